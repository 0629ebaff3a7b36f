#!/usr/bin/env bash
# Benchmark (not a test): nalgebra against faer for Pass 3's SVDs, natively and as wasm in
# headless Chromium. Not part of `make test`; the site depends on nalgebra only.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CARGO_TARGET_DIR="$PWD/target/svd-bench"
cargo run --quiet --release --manifest-path bench/svd/Cargo.toml
cargo build --quiet --release --manifest-path bench/svd/Cargo.toml --lib --target wasm32-unknown-unknown
node scripts/svd-bench.mjs "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/svd_bench.wasm"
