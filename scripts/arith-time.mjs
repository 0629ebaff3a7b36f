// Benchmark (not a test): the Pass 4 arithmetic alone in the built page's wasm, through its
// export time_gradient_stack (default 32-block stacks, forward and backward, weights
// drawn). Prints ms per stack, best and median of several rounds.
// Usage: node scripts/arith-time.mjs [dist dir] [rounds] [stacks per round]
import { chromium } from 'playwright-core';
import { serveDist } from './serve-static.mjs';
import { CHROMIUM_ARGS } from '../tests/e2e/harness.mjs';

const [root = 'dist', roundsArg = '15', stacksArg = '40'] = process.argv.slice(2);
const site = await serveDist({ root });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
const page = await (await browser.newContext()).newPage();
await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; }));
await page.goto(site.url + '?embed=jacobian');
await page.waitForFunction(() => window.__wasm);
await page.evaluate(() => window.__wasm.time_gradient_stack(32, 20));
const times = [];
for (let r = 0; r < Number(roundsArg); r++) {
  times.push(await page.evaluate((n) => window.__wasm.time_gradient_stack(32, n), Number(stacksArg)));
}
times.sort((a, b) => a - b);
console.log(`Pass 4 arithmetic in wasm (depth-32 default stack, forward + backward): ${times[0].toFixed(2)} ms at best, ${times[times.length >> 1].toFixed(2)} ms median of ${times.length} rounds`);
await browser.close();
site.server.close();
