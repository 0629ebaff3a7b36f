#!/usr/bin/env bash
# Installs what handwave needs to build and test, skipping whatever is already there at
# the pinned version. Safe to run any number of times; every other script calls it first.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14          # 0.22.x needs rustc >= 1.96
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate in Cargo.lock
WASM_SPLIT_VERSION=0.2.4       # wasm_split_cli_support, matching Leptos's wasm_split_helpers 0.2

log() { printf '[setup] %s\n' "$*" >&2; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q " ${TRUNK_VERSION}\$"; then
  log "installing trunk ${TRUNK_VERSION} (a few minutes, once)"
  cargo install trunk --version "${TRUNK_VERSION}" --locked
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " ${WASM_BINDGEN_VERSION}\$"; then
  log "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (about two minutes, once)"
  # Not --locked: its lockfile pins a crate version the registry here does not have.
  cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --force
fi

# The splitter of the page's wasm into lazily loaded modules (scripts/page-wasm.sh). It has
# no --version: ask cargo what it installed.
if ! cargo install --list 2>/dev/null | grep -qx "wasm_split_cli_support v${WASM_SPLIT_VERSION}:" \
   || ! command -v wasm-split-cli >/dev/null 2>&1; then
  log "installing wasm-split-cli ${WASM_SPLIT_VERSION} (about a minute, once)"
  cargo install wasm_split_cli_support --version "${WASM_SPLIT_VERSION}" --features build-binary --locked --force
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  log "installing Debian's chromium and chromium-driver"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# npm: wasm-opt (binaryen 132), KaTeX's CSS and fonts, playwright-core, axe-core.
stamp=node_modules/.handwave-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  log "installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
log "ok: $(trunk --version), $(wasm-bindgen --version), wasm-split-cli ${WASM_SPLIT_VERSION}, $(node_modules/.bin/wasm-opt --version 2>/dev/null | head -1), $(chromium --version 2>/dev/null)"
