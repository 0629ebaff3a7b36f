// Times the wasm build of bench/svd in headless Chromium (median of 9 calls, ms).
import { readFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../tests/e2e/harness.mjs';

const bytes = [...(await readFile(process.argv[2]))];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
const page = await browser.newPage();
const rows = await page.evaluate(async (bytes) => {
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
  const f = instance.exports;
  const median = (fn, n) => {
    const t = [];
    for (let i = 0; i < 9; i++) { const t0 = performance.now(); fn(n); t.push(performance.now() - t0); }
    return t.sort((a, b) => a - b)[4];
  };
  return [64, 128, 256].map((n) => [n, median(f.nalgebra_singular_values, n), median(f.faer_singular_values, n), median(f.nalgebra_full_svd, n), median(f.faer_full_svd, n)]);
}, bytes);
for (const [n, ...t] of rows) console.log(`| wasm (Chromium) | ${n} | ${t.map((x) => x.toFixed(2)).join(' | ')} |`);
const size = bytes.length;
console.log(`\nwasm module with both crates: ${(size / 1024).toFixed(0)} KiB`);
await browser.close();
