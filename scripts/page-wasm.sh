#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): builds the page's wasm split into lazily loaded
# modules and puts it, with its loader, into Trunk's staging directory.
#
# Trunk 0.21 cannot split a wasm, so the page's binary is not a Trunk rust asset: this
# script does its four steps itself.
#   1. cargo builds the `handwave` binary for wasm32, linked with --emit-relocs (the
#      splitter needs the relocations to move code between modules; as a flag of the
#      binary's own link only, it changes nothing else that is compiled);
#   2. wasm-split-cli (wasm_split_cli_support) cuts it at the split points of src/split_points.rs
#      (`#[wasm_split(...)]`: Passes 2, 3 and 4) into the main module, one module per
#      pass, shared chunks and `__wasm_split.js`, which fetches a module the first time a
#      split function is called;
#   3. wasm-bindgen makes the main module's JS glue, exactly as Trunk would;
#   4. wasm-opt (binaryen 132, the pinned one) shrinks every module, and terser the JS
#      (release only).
# Everything goes into one folder named after a hash of its contents (`page-<hash>/`), so
# a static host's caches never mix two builds, and every URL inside it stays relative:
# the site still works under any sub-path. index.html's `page-wasm/` placeholders
# (the boot script and the preload hints; index.html's own main rust link is
# `data-trunk-skip`, there only so that Trunk does not add a default one) are pointed at that folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

staging="${TRUNK_STAGING_DIR:?run by trunk as its post_build hook}"
profile="${TRUNK_PROFILE:-release}"
target_dir="${CARGO_TARGET_DIR:-target}"

log() { printf '[page-wasm] %s\n' "$*" >&2; }

if [ "$profile" = release ]; then
  cargo rustc --release --target wasm32-unknown-unknown --bin handwave -- -C link-arg=--emit-relocs
  input="$target_dir/wasm32-unknown-unknown/release/handwave.wasm"
else
  cargo rustc --target wasm32-unknown-unknown --bin handwave -- -C link-arg=--emit-relocs
  input="$target_dir/wasm32-unknown-unknown/debug/handwave.wasm"
fi

work="$target_dir/page-wasm"
rm -rf "$work"
mkdir -p "$work/split" "$work/out"
wasm-split-cli "$input" "$work/split" --out-name handwave
wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$work/out" "$work/split/handwave.wasm"
mv "$work/out/handwave_bg.wasm" "$work/split/handwave_bg.wasm"
mv "$work/out/handwave.js" "$work/split/handwave.js"
rm "$work/split/handwave.wasm"

if [ "$profile" = release ]; then
  features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
            --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd)
  # PAGE_WASM_KEEP_NAMES=1 keeps the functions' names, for CPU profiles (scripts/profile.mjs).
  strip=(--strip-debug --strip-producers)
  [ "${PAGE_WASM_KEEP_NAMES:-0}" = 1 ] && strip=(--debuginfo)
  for module in "$work"/split/*.wasm; do
    wasm-opt -Oz "${features[@]}" "${strip[@]}" "$module" -o "$module" 2>/dev/null
  done
  # Trunk's own minifier fails on wasm-bindgen's glue; terser (npm, pinned) does not.
  for script in "$work/split/handwave.js" "$work/split/__wasm_split.js"; do
    terser "$script" --module --compress --mangle -o "$script"
  done
fi

# The boot script: start the main module (its `main` mounts the app), then tell the page's
# tools that it started, as Trunk's own bootstrap does (`TrunkApplicationStarted`).
cat > "$work/split/boot.js" <<'JS'
import init from './handwave.js';
const wasm = await init({ module_or_path: new URL('./handwave_bg.wasm', import.meta.url) });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
JS

hash="$(cat "$work"/split/* | sha256sum | cut -c1-16)"
folder="page-$hash"
rm -rf "$staging"/page-*
cp -r "$work/split" "$staging/$folder"
sed -i "s#page-wasm/#$folder/#g" "$staging/index.html"
# What Trunk leaves behind that the browser does not need: the skipped rust link (it
# loads nothing) and the data-integrity="none" markers (they only told Trunk to add no
# digest). Every byte of index.html is in the first load.
sed -i -E 's#<link [^>]*data-trunk-skip[^>]*>##; s# data-integrity="?none"?##g' "$staging/index.html"
if grep -q 'page-wasm/' "$staging/index.html" || ! grep -q "$folder/boot.js" "$staging/index.html"; then
  log "index.html does not load $folder/boot.js" && exit 1
fi
log "$folder: $(ls "$staging/$folder" | tr '\n' ' ')"
