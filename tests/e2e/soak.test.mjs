// Issue 6, long sessions: thousands of random control changes across every figure in one
// page — no error, finite readouts at the end, and memory (the page's WASM memory and the
// JS heap after a collection) within 10 % of where it settled after the first 500.
// SOAK_CHANGES overrides the count (default 5000).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle } from './harness.mjs';

const CHANGES = Number(process.env.SOAK_CHANGES ?? 5000);
const WARM_UP = Math.min(500, Math.floor(CHANGES / 10));

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** `count` random changes of random controls (seeded), each as a reader would make it:
 * the control's figure scrolled on screen, the value set, input and change dispatched. */
async function randomChanges(page, count, seed) {
  return page.evaluate(async ({ count, seed }) => {
    let a = seed >>> 0;
    const r = () => { a = (a + 0x6D2B79F5) >>> 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    const tick = () => new Promise((ok) => setTimeout(ok, 0));
    for (let i = 0; i < count; i++) {
      const controls = [...document.querySelectorAll('[data-control]')].filter((e) => e.offsetParent !== null && !e.disabled);
      const el = controls[Math.floor(r() * controls.length)];
      const figure = el.closest('[data-figure]');
      if (figure && r() < 0.2) figure.scrollIntoView({ block: 'center' });
      if (el.type === 'checkbox') {
        el.click();
      } else if (el.tagName === 'SELECT') {
        el.selectedIndex = Math.floor(r() * el.options.length);
        el.dispatchEvent(new Event('change', { bubbles: true }));
      } else {
        const min = el.min === '' ? 0 : Number(el.min);
        const max = el.max === '' ? 1000 : Number(el.max);
        // Ends of the range a third of the time: the extremes are where bugs live, and the
        // heaviest settings are reached early, before the memory baseline is taken.
        const x = r() < 0.33 ? (r() < 0.5 ? min : max) : min + r() * (max - min);
        el.value = String(Math.round(x));
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
      await (i % 4 === 3 ? frame() : tick());
    }
  }, { count, seed });
}

/** Every Pass 4 control at its heaviest, then gain and seed changed quickly while all
 * three Pass 4 figures are on screen, then back to defaults. */
async function heaviestStress(page) {
  await page.evaluate(async () => {
    const tick = () => new Promise((ok) => setTimeout(ok, 0));
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    const set = (key, value) => {
      for (const el of document.querySelectorAll(`[data-control="${key}"]`)) {
        el.value = String(value);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
    };
    const idle = async () => { while (document.querySelector('[aria-busy="true"]')) await frame(); };
    document.querySelector('[data-figure="gradient-ab"]').scrollIntoView({ block: 'center' });
    for (const [key, value] of [['dmodel', 64], ['heads', 4], ['seq', 16], ['depth', 128]]) set(key, value);
    await frame();
    for (const fig of ['gradient-flow', 'gradient-ab', 'depth-sweep']) {
      document.querySelector(`[data-figure="${fig}"]`).scrollIntoView({ block: 'center' });
      for (let i = 0; i < 6; i++) { set('gain', i % 2 ? 0.5 : 2); await frame(); set('sseed', 7 + (i % 2)); await tick(); }
      await idle();
    }
    for (const [key, value] of [['dmodel', 32], ['heads', 2], ['seq', 8], ['depth', 32], ['gain', 1], ['sseed', 1]]) set(key, value);
    await idle();
  });
}

/** Bytes in use once the page is idle: the page's WASM memory and the JS heap after a
 * forced collection. */
async function memory(page, cdp) {
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 120000 });
  await settle(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  const wasm = await page.evaluate(() => window.__wasmMemory?.buffer.byteLength ?? 0);
  return { js: usedSize, wasm };
}

test(`soak: ${CHANGES} random control changes, no error, memory flat after the first ${WARM_UP} and the heaviest state`, { timeout: 30 * 60 * 1000 }, async () => {
  const p = await openPage(env);
  await p.page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__wasmMemory = e.detail.wasm.memory; });
  });
  await p.goto('');
  const cdp = await p.context.newCDPSession(p.page);
  await randomChanges(p.page, WARM_UP, 1);
  // WASM memory never shrinks: it is the high-water mark of what was live at once. So the
  // warm-up ends at the heaviest state the page has (every Pass 4 figure at the largest
  // stack, on screen, with newer requests superseding older ones still running), and only
  // growth beyond that afterwards counts as a leak.
  await heaviestStress(p.page);
  const settled = await memory(p.page, cdp);
  assert.ok(settled.wasm > 0, 'the WASM memory is visible');
  const chunk = 500;
  for (let done = WARM_UP, k = 2; done < CHANGES; done += chunk, k++) {
    await randomChanges(p.page, Math.min(chunk, CHANGES - done), k);
    assert.deepEqual(p.errors, [], `no error after ${done} changes`);
    if (process.env.SOAK_TRACE) console.log(`# after ${done + chunk}: wasm ${((await p.page.evaluate(() => window.__wasmMemory.buffer.byteLength)) / 2 ** 20).toFixed(1)} MiB`);
  }
  const end = await memory(p.page, cdp);
  console.log(`# soak memory after ${WARM_UP}: wasm ${(settled.wasm / 2 ** 20).toFixed(1)} MiB, JS ${(settled.js / 2 ** 20).toFixed(1)} MiB; after ${CHANGES}: wasm ${(end.wasm / 2 ** 20).toFixed(1)} MiB, JS ${(end.js / 2 ** 20).toFixed(1)} MiB`);
  assert.ok(end.wasm <= settled.wasm * 1.1, `WASM memory ${end.wasm} within 10 % of ${settled.wasm}`);
  assert.ok(end.js <= settled.js * 1.1, `JS heap ${end.js} within 10 % of ${settled.js}`);
  const bad = await p.page.$$eval('[data-readout]', (els) => els.filter((e) => /NaN|Infinity|\binf\b/i.test(e.textContent + (e.dataset.value ?? ''))).map((e) => e.dataset.readout));
  assert.deepEqual(bad, [], 'readouts stay finite');
  const undrawn = await p.page.$$eval('canvas[data-canvas]', (cs) => cs.filter((c) => !Number(c.dataset.draws)).length);
  assert.equal(undrawn, 0);
  assert.deepEqual(p.errors, []);
  await p.close();
});
