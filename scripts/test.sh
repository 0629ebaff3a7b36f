#!/usr/bin/env bash
# Every test: native (math core, state, pure widget helpers), component tests in headless
# Chromium (wasm-bindgen-test), then the end-to-end suite against dist/ served under a
# sub-path. `scripts/test.sh components` runs only the component tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

# Each step says when it starts and how long the one before took (docs/testing.md gives
# the breakdown of a clean clone).
SECONDS=0
step() { echo "== [${SECONDS}s] $*"; }

component_tests() {
  step "component tests (wasm32, headless Chromium)"
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  CHROMEDRIVER=/usr/bin/chromedriver \
  WASM_BINDGEN_TEST_TIMEOUT=120 \
    cargo test --target wasm32-unknown-unknown --test components
}

if [ "${1:-}" = components ]; then component_tests; exit; fi

step "formatting (cargo fmt --check)"
# rustfmt is a rustup component; a machine without it skips the check and says so.
if cargo fmt --version >/dev/null 2>&1; then cargo fmt --check; else echo "rustfmt not installed: formatting not checked"; fi
step "native tests (cargo test)"
scripts/native-test.sh
component_tests
step "release build of dist/"
scripts/dist.sh
# The suites that time nothing run two at a time; a suite that measures the page's speed
# says so on its first line ("// Timed:") and runs alone afterwards, so that no other
# browser shares the machine's two cores while it measures.
timed=$(grep -l '^// Timed:' tests/e2e/*.test.mjs)
untimed=$(grep -L '^// Timed:' tests/e2e/*.test.mjs)
step "end-to-end tests, two at a time: $(echo $untimed | wc -w) suites that time nothing"
node --test --test-concurrency=2 $untimed
step "end-to-end tests, one at a time: $(echo $timed | wc -w) timed suites"
node --test --test-concurrency=1 $timed
step "done"
