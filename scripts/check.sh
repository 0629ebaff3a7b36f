#!/usr/bin/env bash
# The inner loop: formatting, the native tests, a release build and one end-to-end smoke
# test of the built page (it loads under a sub-path, every figure draws, no error). A few
# minutes warm; `make test` runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
echo "== formatting (cargo fmt --check)"
if cargo fmt --version >/dev/null 2>&1; then cargo fmt --check; else echo "rustfmt not installed: formatting not checked"; fi
echo "== native tests (cargo test)"
scripts/native-test.sh
echo "== release build of dist/"
scripts/dist.sh
echo "== smoke test of the page"
node --test --test-name-pattern="the page loads under a sub-path" tests/e2e/foundation.test.mjs
