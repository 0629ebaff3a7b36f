#!/usr/bin/env bash
# `make fonts`: cuts KaTeX's fonts down to the characters the page's formulas show and
# writes them to assets/fonts/ (committed; the build copies them, not KaTeX's full set).
# Every formula is typeset at build time from src/formulas_tex.rs, so that set is known:
# `cargo run --example formula_chars` prints it, and assets/font-chars.txt records it.
# tests/formulas.rs fails when a formula shows a character missing from font-chars.txt, and
# tests/e2e/formulas.test.mjs fails when the browser falls back to a non-KaTeX font.
# Needs fonttools with brotli (pip install fonttools==4.55.3 brotli); run it on purpose
# after changing formulas, then commit assets/fonts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
python3 -c "import fontTools, brotli" 2>/dev/null || pip install --quiet fonttools==4.55.3 brotli
chars="$(cargo run --quiet --example formula_chars)"
rm -rf assets/fonts && mkdir -p assets/fonts
printf "%s\n" "$chars" > assets/font-chars.txt
for ttf in node_modules/katex/dist/fonts/KaTeX_*.ttf; do
  name="$(basename "$ttf" .ttf)"
  # A font none of whose glyphs is shown still gets a (tiny) file: katex.min.css names
  # every face, and a formula added later must not fetch a 404.
  pyftsubset "$ttf" --text="$chars" --flavor=woff2 --layout-features='*' --no-hinting \
    --desubroutinize --notdef-outline --output-file="assets/fonts/$name.woff2" 2>/dev/null
done
echo "assets/fonts: $(ls assets/fonts/*.woff2 | wc -l) fonts, $(du -cb assets/fonts/*.woff2 | tail -1 | cut -f1) bytes, for $(printf '%s' "$chars" | wc -m) characters"
