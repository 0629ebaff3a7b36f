// For benchmarks and profiling aids (not tests): a headless Chromium page of a built dist/
// whose wasm exports are reachable as window.__wasm, the Pass 4 arithmetic warmed up.
import { chromium } from 'playwright-core';
import { serveDist } from './serve-static.mjs';
import { CHROMIUM_ARGS } from '../tests/e2e/harness.mjs';

export async function openWasmPage(root) {
  const site = await serveDist({ root });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const page = await (await browser.newContext()).newPage();
  await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; }));
  await page.goto(site.url + '?embed=jacobian');
  await page.waitForFunction(() => window.__wasm);
  await page.evaluate(() => window.__wasm.time_gradient_stack(32, 20));
  return {
    page,
    async close() { await browser.close(); site.server.close(); },
  };
}
