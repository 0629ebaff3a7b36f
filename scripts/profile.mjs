// Profiling aid (not a test): a CDP CPU profile of N changes of one control, printed as
// the functions with the most self time. Build a dist that keeps wasm names first:
//   PAGE_WASM_KEEP_NAMES=1 trunk build --release --dist /tmp/distdbg
// Usage: node scripts/profile.mjs <dist dir> <figure> <control> <pos1,pos2,...> [changes] [query]
import { chromium } from 'playwright-core';
import { serveDist } from './serve-static.mjs';
import { CHROMIUM_ARGS, loadPasses } from '../tests/e2e/harness.mjs';

const [root, figure, control, positionList, changesArg = '100', query = ''] = process.argv.slice(2);
const positions = positionList.split(',');
const site = await serveDist({ root });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
await page.goto(site.url + query);
await loadPasses(page);
await page.waitForSelector(`[data-figure="${figure}"] canvas[data-draws]`);
await page.$eval(`[data-figure="${figure}"]`, (f) => f.scrollIntoView({ block: 'start' }));
await page.waitForTimeout(500);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
const elapsed = await page.evaluate(async ({ figure, control, positions, changes }) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const input = document.querySelector(`[data-figure="${figure}"] [data-control="${control}"]`) ?? document.querySelector(`[data-control="${control}"]`);
  const t0 = performance.now();
  for (let i = 0; i < changes; i++) {
    if (input.type === 'checkbox') input.click();
    else { input.value = positions[i % positions.length]; input.dispatchEvent(new Event(input.tagName === 'SELECT' || input.type === 'number' ? 'change' : 'input', { bubbles: true })); }
    for (let f = 0; f < 3; f++) await frame();
    while (document.querySelector('[aria-busy="true"]')) await frame();
  }
  return performance.now() - t0;
}, { figure, control, positions, changes: Number(changesArg) });
const { profile } = await cdp.send('Profiler.stop');
const self = new Map();
const dt = new Map();
profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
for (const node of profile.nodes) {
  const us = dt.get(node.id) ?? 0;
  const name = node.callFrame.functionName || `(${node.callFrame.url.split('/').pop()})`;
  self.set(name, (self.get(name) ?? 0) + us);
  if (name !== '(idle)' && name !== '(program)') total += us;
}
console.log(`${changesArg} changes in ${elapsed.toFixed(0)} ms; busy ${(total / 1000).toFixed(0)} ms sampled`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
  console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${(100 * us / total).toFixed(1).padStart(5)} %  ${name.slice(0, 150)}`);
}
await browser.close();
site.server.close();
