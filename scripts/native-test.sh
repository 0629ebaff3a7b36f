#!/usr/bin/env bash
# The native tests: `cargo test` for the machine's own target, named explicitly. With
# `--target`, Cargo builds the proc macros and build scripts apart from the tests, exactly
# as the wasm32 builds of the component tests do, so the two share them: a cold build
# compiles syn, the Leptos and wasm-bindgen macros and KaTeX's QuickJS once, not twice.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
host=$(rustc -vV | sed -n 's/^host: //p')
cargo test --target "$host" "$@"
