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
echo "dist/ built: $(du -sh dist | cut -f1) on disk; $(ls dist/*.wasm | xargs -n1 du -h | cut -f1) wasm"
