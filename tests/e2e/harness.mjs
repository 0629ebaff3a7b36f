// Shared end-to-end harness: dist/ served under a sub-path, Debian's Chromium through
// playwright-core, and a page object that collects every console error and page error.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { serveDist } from '../../scripts/serve-static.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
  // A loaded 2-core CI machine must not throttle or background a page's timers and frames:
  // a test waits on them, and a throttled one looks like a hang.
  '--disable-renderer-backgrounding', '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];

export async function launch({ csp = null } = {}) {
  const site = await serveDist({ csp });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    // playwright gives every launch a fresh temporary profile of its own.
    args: CHROMIUM_ARGS,
    headless: true,
  });
  return {
    site, browser,
    async close() { await browser.close(); site.server.close(); },
  };
}

/** CPU_SLOWDOWN=2.5 runs `page`'s main thread 2.5 times slower (Chromium's CPU
 * throttling): a slow day on purpose, to see how much room a budget has, or that a budget
 * scaled by `machineSlowness` still holds. */
export const CPU_SLOWDOWN = Number(process.env.CPU_SLOWDOWN ?? 1);
export async function slowDownIfAsked(page) {
  if (CPU_SLOWDOWN > 1) {
    await (await page.context().newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  }
}

/** A new page that records errors; `goto(query)` loads the site with that query string. */
export async function openPage(env, { viewport = { width: 1280, height: 900 }, colorScheme = 'light' } = {}) {
  const context = await env.browser.newContext({ viewport, colorScheme, acceptDownloads: true });
  const page = await context.newPage();
  await slowDownIfAsked(page);
  const errors = [];
  const external = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith(env.site.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) external.push(r.url()); });
  return {
    page, context, errors, external,
    async goto(query = '') {
      // A page error while loading (a wasm that traps at start) fails at once, instead of
      // after the 20 s wait for a canvas: a broken build then fails each test in moments.
      const trapped = page.waitForEvent('pageerror', { timeout: 0 }).then(
        (e) => { throw new Error(`page error while loading ${query || '/'}: ${e.message}`); },
        () => {},
      );
      await page.goto(env.site.url + query);
      await Promise.race([
        page.waitForSelector('[data-figure] canvas[data-draws]', { timeout: 20000 }),
        trapped,
      ]);
      await settled(page);
    },
    async close() { await context.close(); },
  };
}

/** Waits until figures computed off the input (Pass 3's worker, Pass 4's sliced stacks),
 * which mark their readouts aria-busy, have caught up, and two frames have painted. */
export async function settled(page) {
  await settle(page);
  await loadPasses(page);
  // Heavy figures compute only near the screen: bring each one there once.
  await page.evaluate(async () => {
    // Two frames, or 500 ms if the renderer stops producing frames (a page that never
    // paints again must fail a later check, not hang the suite on an unbounded wait).
    const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 500); });
    for (const f of document.querySelectorAll('[data-figure]')) { f.scrollIntoView({ block: 'center' }); await frame(); }
    window.scrollTo(0, 0);
  });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60000 });
  await settle(page);
}

/** Brings every lazily loaded pass (Passes 2–4: their modules are fetched when their place
 * comes near the screen) onto the page, by scrolling to each placeholder in turn, as a
 * reader scrolling down would, then back to the top. With `outOfSight`, a pass's
 * placeholder is brought only to 500 px below the screen (a pass is fetched within a
 * screen's height of it, a figure computes within 200 px), so the figures that arrive have
 * not been near the screen and have not computed; parts (fetched within a quarter screen)
 * still come into view. */
export async function loadPasses(page, { outOfSight = false } = {}) {
  await page.evaluate(async (outOfSight) => {
    const pending = () => document.querySelector('[data-lazy-pass]:not([data-failed]), [data-lazy-part]:not([data-failed])');
    for (let i = 0; i < 100 && pending(); i++) {
      const el = pending();
      if (outOfSight && el.matches('[data-lazy-pass]')) {
        window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - window.innerHeight - 500);
      } else {
        el.scrollIntoView({ block: 'start' });
      }
      // One frame (the observer sees each position), or 100 ms if frames stop.
      await new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
    }
    window.scrollTo(0, 0);
  }, outOfSight);
  await page.waitForFunction(() => !document.querySelector('[data-lazy-pass]:not([data-failed]), [data-lazy-part]:not([data-failed])'), null, { timeout: 30000 });
}

/** Brings every formula near the screen in turn (a formula is typeset only then, see
 * src/widgets/formula.rs), until none is pending, then back to the top, and waits for
 * the fonts. */
export async function typesetFormulas(page) {
  await page.evaluate(async () => {
    for (let i = 0; i < 200 && document.querySelector('[data-formula="pending"]'); i++) {
      document.querySelector('[data-formula="pending"]').scrollIntoView({ block: 'center' });
      await new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
    }
    window.scrollTo(0, 0);
    await document.fonts.ready;
  });
  await page.waitForFunction(() => !document.querySelector('[data-formula="pending"]'), null, { timeout: 30000 });
}

/** Waits until pending effects have run and two frames have painted. */
export async function settle(page) {
  await page.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 20))); setTimeout(r, 1000); }));
}

export async function readout(page, name) {
  return Number(await page.getAttribute(`[data-readout="${name}"]`, 'data-value'));
}

/** Clicks `selector` (a figure's CSV or PNG action) and returns the file it downloads:
 * its suggested name and its bytes. */
export async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: Buffer.concat(await (await file.createReadStream()).toArray()) };
}

/** Every readout of the page that shows a state (name → `data-value`). A training
 * figure's readouts are left out: they move on by themselves while it trains
 * (training.test.mjs reads them figure by figure). */
export async function readouts(page) {
  return page.$$eval('[data-readout]', (els) => Object.fromEntries(els.filter((e) => !e.closest('[data-train]')).map((e) => [e.dataset.readout, e.dataset.value])));
}

export async function canvasPixels(page, selector) {
  return page.$eval(selector, (c) => c.toDataURL());
}

export async function draws(page, selector) {
  return Number(await page.getAttribute(selector, 'data-draws'));
}

/** Everything a figure shows: its canvases' pixels, its readouts and its caption. */
export async function figureState(page, id) {
  // What is shown: a hidden canvas (a multi-head cell beyond h keeps its last picture) is not.
  const canvases = await page.$$eval(`[data-figure="${id}"] canvas[data-canvas]`, (cs) => cs.filter((c) => !c.closest('[hidden]')).map((c) => c.toDataURL()));
  const values = await page.$$eval(`[data-figure="${id}"] [data-readout]`, (els) => els.map((e) => e.dataset.value));
  return JSON.stringify({ canvases, values, caption: await page.textContent(`[data-caption="${id}"]`) });
}

/** Opens every closed `<details>` around the element (a figure's More settings), as a
 * reader clicks its summary before reaching a control inside. */
export async function reveal(page, selector) {
  await page.locator(selector).evaluate((e) => {
    for (let d = e.closest('details:not([open])'); d; d = d.parentElement?.closest('details:not([open])')) {
      d.querySelector(':scope > summary').click();
    }
  });
}

/** Moves a control as a reader would: the next option of a select (never `custom`),
 * a new number in a field, a click on a switch, one arrow-key step on a slider. */
export async function moveControl(page, selector) {
  const el = page.locator(selector);
  // Scrolled by the page itself, not by Playwright's scrollIntoViewIfNeeded, which waits for
  // the element to hold still over two animation frames: a clean-clone CI run timed out
  // there (30 s) while the loaded machine was slow to give frames.
  await reveal(page, selector);
  await el.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  const tag = await el.evaluate((e) => `${e.tagName}:${e.type}`);
  if (tag.startsWith('SELECT')) {
    const options = await el.evaluate((e) => [...e.options].map((o) => o.value));
    const current = await el.inputValue();
    await el.selectOption(options.find((o) => o !== current && o !== 'custom'));
  } else if (tag === 'INPUT:number') {
    await el.fill('4242');
    await el.press('Enter');
  } else if (tag === 'INPUT:checkbox') {
    // Space on the focused switch, as a keyboard reader toggles it (no stability wait).
    await el.focus();
    await page.keyboard.press('Space');
  } else {
    await el.focus();
    await page.keyboard.press('ArrowRight');
  }
}

/** The public contract as docs/url-state.md writes it down. */
const URL_STATE_DOC = 'docs/url-state.md';

/** Every figure id, in page order, from the table of figure and section ids in
 * docs/url-state.md. */
export function figureIds() {
  const doc = readFileSync(URL_STATE_DOC, 'utf8');
  const table = doc.split('## Figure and section ids')[1].split('\n\n')[1];
  return table.split('\n').filter((l) => /^\| \d/.test(l)).flatMap((l) => l.split('|')[3].match(/`([a-z-]+)`/g).map((s) => s.replace(/`/g, '')));
}

/** The rows of the key table of docs/url-state.md, as text lines. */
export function urlKeyRows() {
  return readFileSync(URL_STATE_DOC, 'utf8').split('\n').filter((l) => /^\| `[a-z]+` \|/.test(l));
}

/** How many times slower this machine runs now than on the day the long-task budgets were
 * set (at least 1): a fixed arithmetic loop timed in the page, the median of five runs,
 * over its time then (`CALIBRATION_MS`). A budget "no task over 50 ms" is checked as "no
 * task over 50 ms × slowness": the code's own cost, not the machine's day. Chromium's CPU
 * throttling slows the loop as it slows the page. */
export const CALIBRATION_MS = 25;
export async function machineSlowness(page) {
  const ms = await page.evaluate(() => {
    const times = [];
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      let x = 1;
      for (let i = 0; i < 1e6; i++) x = (x * 48271 + i) % 2147483647;
      // `x` is read, so the loop is not dropped as dead code (it is never negative).
      times.push(performance.now() - t0 + (x < 0 ? 1 : 0));
    }
    return times.sort((a, b) => a - b)[2];
  });
  return { ms, slowness: Math.max(1, ms / CALIBRATION_MS) };
}

/** Focuses `selector` (a slider) and lets what its scrolling into view brought near the
 * screen settle, then presses the arrow keys `presses` times through the browser's input
 * pipeline, Right and Left in turn, each after the figures have caught up with the last
 * (`aria-busy`). Returns the durations of the main-thread tasks over 50 ms during the
 * presses (a PerformanceObserver of long tasks). */
export async function longTasksOfKeyPresses(page, selector, presses) {
  const caughtUp = () => page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60000 });
  await page.focus(selector);
  await caughtUp();
  await settle(page);
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  });
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press(i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft');
    await page.waitForTimeout(100);
    await caughtUp();
    await page.waitForTimeout(150);
  }
  return page.evaluate(() => window.__longTasks);
}
