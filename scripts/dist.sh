#!/usr/bin/env bash
# Release build of the static site into dist/ with relative URLs (works under any sub-path).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
trunk build index.html --release
# A dist/ that references an absolute path would break under a sub-path: refuse it.
if grep -Eq '(src|href)="/[^/]' dist/index.html; then
  echo "dist/index.html contains an absolute URL:" >&2
  grep -Eo '(src|href)="/[^"]*"' dist/index.html >&2
  exit 1
fi
# The page's wasm is staged by scripts/page-wasm.sh (Trunk's post_build hook): refuse a
# dist/ without it.
page=$(ls -d dist/page-*/ 2>/dev/null | head -1)
if [ -z "$page" ] || [ ! -f "${page}boot.js" ] || [ ! -f "${page}handwave_bg.wasm" ]; then
  echo "dist/ has no page-<hash>/ folder with boot.js and handwave_bg.wasm" >&2
  exit 1
fi
echo "dist/ built: $(du -sh dist | cut -f1) on disk; main module $(du -h "${page}handwave_bg.wasm" | cut -f1), $(ls "$page" | grep -c 'split_pass') pass modules, worker $(du -h dist/handwave-worker_bg.wasm | cut -f1)"
