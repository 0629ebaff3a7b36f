// Timed: this suite measures the page's speed (or waits on workers that do), so
// scripts/test.sh runs it alone, after the suites that run two at a time.
// Pass 4 end to end: a real stack computed in the browser. Each control moves its figure,
// the verdicts follow the numbers, depth 1 gives a ratio of exactly 1, overflow is named
// and never printed as inf or NaN, the URL restores, each figure embeds, CSV export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle, readout, readouts, loadPasses, download } from './harness.mjs';
import { figureState, moveControl, reveal } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const fig = (id) => `[data-figure="${id}"]`;
const control = (id, key) => `${fig(id)} [data-control="${key}"]`;

/** Waits until the figure's computation for the current state has finished. */
async function computed(page, id = 'gradient-flow') {
  await settle(page);
  await page.waitForFunction((id) => {
    const box = document.querySelector(`[data-figure="${id}"] .readouts`);
    return box && box.getAttribute('aria-busy') !== 'true';
  }, id, { timeout: 60000 });
  await settle(page);
}


async function move(page, selector, id) {
  await moveControl(page, selector);
  await computed(page, id);
}

test('default: no residual, no norm, depth 32 — layer 0 goes dark, and the caption says vanished', async () => {
  const p = await openPage(env);
  await p.goto('');
  await computed(p.page);
  const r = await readout(p.page, 'grad-ratio');
  assert.ok(r > 0 && r < 1e-3, `bottom/top ${r}`);
  assert.equal(await readout(p.page, 'depth'), 32);
  assert.match(await p.page.textContent('[data-caption="gradient-flow"]'), /Vanished/);
  // The strip is dark on the left: the bottom cell's colour is darker than the top's.
  const [left, right] = await p.page.$eval('[data-canvas="gradient-strip"]', (c) => {
    const ctx = c.getContext('2d');
    const px = (x) => [...ctx.getImageData(x, c.height / 2, 1, 1).data].slice(0, 3).reduce((a, b) => a + b, 0);
    return [px(2), px(c.width - 3)];
  });
  assert.ok(left < right, `left ${left} darker than right ${right}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('pre-norm residual stays within a factor of 1000, and the side-by-side figure shows both', async () => {
  const p = await openPage(env);
  await p.goto('?res=1&norm=pre');
  await computed(p.page);
  const r = await readout(p.page, 'grad-ratio');
  assert.ok(r > 1e-3 && r < 1e3, `pre-norm bottom/top ${r}`);
  assert.match(await p.page.textContent('[data-caption="gradient-flow"]'), /Stable/);
  await computed(p.page, 'gradient-ab');
  assert.ok((await readout(p.page, 'grad-ratio-a')) < 1e-3, 'A (no residual) vanishes');
  const b = await readout(p.page, 'grad-ratio-b');
  assert.ok(b > 1e-3 && b < 1e3, `B (pre-norm) ${b}`);
  assert.equal(await readout(p.page, 'grad-ratio-b'), r, 'the same stack gives the same number in both figures');
  await p.close();
});

test('a figure not computed yet (off screen) shows empty axes and "…", never a chart error, then its profile once on screen', async () => {
  const p = await openPage(env, { viewport: { width: 375, height: 812 } });
  // Not p.goto: that brings every figure on screen. Pass 4 is only loaded here, never near
  // the screen, so its figures have not computed.
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure] canvas[data-draws]');
  await loadPasses(p.page, { outOfSight: true });
  await settle(p.page);
  const pending = (id) => p.page.$eval(fig(id), (f) => ({
    ratio: f.querySelector('.readout-value').textContent,
    depth: f.querySelector('[data-readout="depth"] .readout-value')?.textContent ?? null,
    problem: f.querySelector('.chart-problem')?.textContent ?? null,
    drawn: [...f.querySelectorAll('canvas[data-canvas]')].every((c) => Number(c.dataset.draws) > 0),
  }));
  // The sweep has not started either: it says it will compute, not that it is 100 % done.
  assert.doesNotMatch(await p.page.textContent('[data-caption="depth-sweep"]'), /%/);
  for (const id of ['gradient-flow', 'gradient-ab']) {
    const before = await pending(id);
    assert.equal(before.ratio, '…', `${id} has not computed yet (it is off screen)`);
    assert.equal(before.problem, null, `${id}: no chart error while computing`);
    assert.ok(before.drawn, `${id}: its canvases are drawn (empty axes)`);
    if (before.depth !== null) assert.equal(before.depth, '…', 'no depth shown before a profile');
    await p.page.$eval(fig(id), (f) => f.scrollIntoView({ block: 'start' }));
    await computed(p.page, id);
    const after = await pending(id);
    assert.notEqual(after.ratio, '…');
    assert.equal(after.problem, null);
    if (after.depth !== null) assert.equal(after.depth, '32');
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('depth 1 gives a bottom/top ratio of exactly 1 for every wiring', async () => {
  const p = await openPage(env);
  for (const q of ['depth=1', 'depth=1&res=1', 'depth=1&res=1&norm=pre', 'depth=1&norm=post']) {
    await p.goto(`?${q}`);
    await computed(p.page);
    assert.equal(await readout(p.page, 'grad-ratio'), 1, q);
  }
  await p.close();
});

test('each control moves its figure', async () => {
  const p = await openPage(env);
  await p.goto('');
  await computed(p.page);
  let before = await figureState(p.page, 'gradient-flow');
  for (const key of ['depth', 'res', 'norm', 'gain', 'sseed', 'grad', 'dmodel', 'heads', 'seq', 'rho']) {
    await move(p.page, control('gradient-flow', key), 'gradient-flow');
    const after = await figureState(p.page, 'gradient-flow');
    assert.notEqual(after, before, `gradient-flow: moving ${key} changes the figure`);
    before = after;
  }
  before = await figureState(p.page, 'gradient-ab');
  for (const key of ['depth', 'ares', 'anorm', 'bres', 'bnorm', 'grad']) {
    await move(p.page, control('gradient-ab', key), 'gradient-ab');
    const after = await figureState(p.page, 'gradient-ab');
    assert.notEqual(after, before, `gradient-ab: moving ${key} changes the figure`);
    before = after;
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the depth sweep completes and separates the four wirings', async () => {
  const p = await openPage(env);
  await p.goto('?embed=depth-sweep');
  await computed(p.page, 'depth-sweep');
  const r = await readouts(p.page);
  assert.ok(Number(r['sweep-plain']) < 1e-3, `plain ${r['sweep-plain']}`);
  assert.ok(Number(r['sweep-residual']) > 1e3, `residual without norm ${r['sweep-residual']}`);
  assert.ok(Number(r['sweep-pre']) > 1e-3 && Number(r['sweep-pre']) < 1e3);
  assert.doesNotMatch(await p.page.textContent('[data-caption="depth-sweep"]'), /Computing/);
  // Moving a control starts a new sweep that also finishes.
  await move(p.page, control('depth-sweep', 'gain'), 'depth-sweep');
  assert.notEqual((await readouts(p.page))['sweep-pre'], r['sweep-pre']);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('an overflow of f64 is named, drawn empty, and never printed as inf or NaN', async () => {
  const p = await openPage(env);
  await p.goto('?embed=gradient-flow&res=1&depth=128&gain=2');
  await computed(p.page);
  const values = Object.values(await readouts(p.page));
  assert.ok(values.every((v) => !/inf|nan/i.test(v)), `readouts ${values}`);
  assert.equal((await readouts(p.page))['grad-ratio'], 'overflow');
  const text = await p.page.textContent(fig('gradient-flow'));
  assert.doesNotMatch(text, /\binf\b|NaN/);
  assert.match(await p.page.textContent('[data-caption="gradient-flow"]'), /Overflow/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a newer request supersedes one still running', async () => {
  const p = await openPage(env);
  await p.goto('?embed=gradient-flow&dmodel=64&seq=16');
  await computed(p.page);
  await p.page.$eval(control('gradient-flow', 'depth'), (el) => {
    for (const v of ['128', '100', '3']) { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }
  });
  await computed(p.page);
  assert.equal(await readout(p.page, 'depth'), 3);
  await p.close();
});

test('the URL restores every Pass 4 figure, and an embed shows each alone', async () => {
  const p = await openPage(env);
  await p.goto('?depth=12&res=1&norm=post&gain=0.5&sseed=3&grad=weight&dmodel=24&heads=4&seq=6&rho=0.9&ares=1&anorm=none&bres=0&bnorm=pre');
  await computed(p.page);
  assert.equal(await p.page.inputValue(control('gradient-flow', 'depth')), '12');
  assert.equal(await p.page.isChecked(control('gradient-flow', 'res')), true);
  assert.equal(await p.page.inputValue(control('gradient-flow', 'norm')), 'post');
  assert.equal(await p.page.inputValue(control('gradient-flow', 'grad')), 'weight');
  assert.equal(await p.page.isChecked(control('gradient-ab', 'bres')), false);
  assert.equal(await readout(p.page, 'depth'), 12);
  assert.match(await p.page.textContent('[data-caption="gradient-flow"]'), /d_model 24, 4 heads, 6 tokens, gain 0\.5/);
  for (const id of ['gradient-flow', 'gradient-ab', 'depth-sweep']) {
    await p.goto(`?embed=${id}&depth=4`);
    assert.deepEqual(await p.page.$$eval('[data-figure]', (els) => els.map((e) => e.dataset.figure)), [id]);
    await computed(p.page, id);
    await p.goto(`?embed=${id}&hide=controls`);
    assert.equal(await p.page.$('[data-control]'), null);
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('CSV export of the per-layer norms', async () => {
  const p = await openPage(env);
  await p.goto('?depth=10&res=1&norm=pre');
  await computed(p.page);
  const csv = await download(p.page, `${fig('gradient-flow')} [data-action="csv"]`);
  assert.equal(csv.name, 'handwave-gradient-flow.csv');
  const text = csv.bytes.toString();
  const rows = text.trim().split('\n');
  assert.equal(rows[0], 'layer,input_grad_norm,weight_grad_norm');
  assert.equal(rows.length, 11);
  const bottom = Number(rows[1].split(',')[1]);
  assert.equal(bottom, await readout(p.page, 'bottom-norm'));
  assert.equal(Number(rows[10].split(',')[1]), await readout(p.page, 'top-norm'));
  await p.close();
});

test('a depth computed again shows what it showed first, and the shared stack agrees between figures', async () => {
  const p = await openPage(env);
  await p.goto('?depth=31');
  await computed(p.page);
  await computed(p.page, 'gradient-ab');
  const first = await figureState(p.page, 'gradient-flow');
  // At the defaults gradient-ab's A is gradient-flow's stack: one computation, one answer.
  assert.equal(await readout(p.page, 'grad-ratio-a'), await readout(p.page, 'grad-ratio'));
  const slider = control('gradient-flow', 'depth');
  await p.page.focus(slider);
  await p.page.keyboard.press('ArrowRight');
  await computed(p.page);
  assert.equal(await readout(p.page, 'depth'), 32);
  await p.page.keyboard.press('ArrowLeft');
  await computed(p.page);
  assert.equal(await readout(p.page, 'depth'), 31);
  assert.equal(await figureState(p.page, 'gradient-flow'), first, 'the kept profile is the one computed');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the next step of the gain and depth sliders is computed in idle time: ready when taken, and the same as computed fresh', async () => {
  const p = await openPage(env);
  await p.goto('?embed=gradient-flow');
  await computed(p.page);
  const source = () => p.page.$eval(`${fig('gradient-flow')} [data-source]`, (e) => e.dataset.source);
  const step = async (key, arrow) => {
    // A pause, as a reader's between two key presses: the page is idle, and anticipates.
    await reveal(p.page, control('gradient-flow', key));
    await p.page.waitForTimeout(600);
    await p.page.focus(control('gradient-flow', key));
    await p.page.keyboard.press(arrow);
    await computed(p.page);
    return source();
  };
  assert.equal(await step('gain', 'ArrowRight'), 'ready', 'gain 1 → 1.05 was anticipated');
  assert.equal(await p.page.inputValue(control('gradient-flow', 'gain')), '1.05');
  const anticipated = await figureState(p.page, 'gradient-flow');
  assert.equal(await step('gain', 'ArrowRight'), 'ready', 'gain 1.05 → 1.1, in the direction of the move');
  assert.equal(await step('depth', 'ArrowLeft'), 'ready', 'depth 32 → 31');
  assert.equal(await step('depth', 'ArrowLeft'), 'ready', 'depth 31 → 30, in the direction of the move');
  // A jump nobody could anticipate is computed.
  await move(p.page, control('gradient-flow', 'sseed'));
  assert.equal(await source(), 'computed', 'a new seed is computed for the change');
  assert.deepEqual(p.errors, []);
  await p.close();
  // The anticipated profile is exactly what the stack gives when asked for directly.
  const fresh = await openPage(env);
  await fresh.goto('?embed=gradient-flow&gain=1.05');
  await computed(fresh.page);
  assert.equal(await fresh.page.$eval(`${fig('gradient-flow')} [data-source]`, (e) => e.dataset.source), 'computed');
  assert.equal(await figureState(fresh.page, 'gradient-flow'), anticipated);
  await fresh.close();
});

/** SplitMix64, written again here with BigInt, independent of the page's Rust. */
function splitmix64(x) {
  const M = (1n << 64n) - 1n;
  x = (x + 0x9E3779B97F4A7C15n) & M;
  x = ((x ^ (x >> 30n)) * 0xBF58476D1CE4E5B9n) & M;
  x = ((x ^ (x >> 27n)) * 0x94D049BB133111EBn) & M;
  return x ^ (x >> 31n);
}
/** The seed "New" gives after `s` (seeds 0…999 999): SplitMix64(s) mod 10⁶, never s. */
function nextSeed(s) {
  let d = splitmix64(BigInt(s)) % 1000000n;
  if (d === BigInt(s)) d = (d + 1n) % 1000000n;
  return Number(d);
}

test('"New" seed and the wiring switches are computed in idle time: ready when pressed, and the same as computed fresh', async () => {
  assert.equal(nextSeed(0), 607535, 'SplitMix64(0) = 0xE220A8397B1DCDAF, mod 10⁶ by hand');
  const p = await openPage(env);
  await p.goto('?embed=gradient-flow&sseed=1');
  await computed(p.page);
  const source = () => p.page.$eval(`${fig('gradient-flow')} [data-source]`, (e) => e.dataset.source);
  const seedField = control('gradient-flow', 'sseed');
  // A reader's pause: the page is idle and computes what one press away would show.
  const pause = () => p.page.waitForTimeout(2000);
  await reveal(p.page, `${fig('gradient-flow')} [data-action="new-seed"]`);
  const pressNew = async () => {
    await pause();
    await p.page.click(`${fig('gradient-flow')} [data-action="new-seed"]`);
    await computed(p.page);
  };
  let seed = 1;
  for (let press = 0; press < 2; press++) {
    await pressNew();
    seed = nextSeed(seed);
    assert.equal(await p.page.inputValue(seedField), String(seed), 'New gives SplitMix64(seed) mod 10⁶');
    assert.equal(await source(), 'ready', `press ${press + 1} of New found its stack computed ahead`);
    await p.page.waitForFunction((s) => new URLSearchParams(location.search).get('sseed') === String(s), seed, { timeout: 5000 });
  }
  const afterNew = await figureState(p.page, 'gradient-flow');
  // The residual switch and the norm placement were anticipated as well.
  await pause();
  await p.page.focus(control('gradient-flow', 'res'));
  await p.page.keyboard.press('Space');
  await computed(p.page);
  assert.equal(await source(), 'ready', 'residual switched on: computed ahead');
  await pause();
  await p.page.selectOption(control('gradient-flow', 'norm'), 'pre');
  await computed(p.page);
  assert.equal(await source(), 'ready', 'norm placement pre: computed ahead');
  assert.deepEqual(p.errors, []);
  await p.close();
  // What was computed ahead, with a bank of weights of its own, is exactly what the
  // stack gives when that seed is asked for directly.
  const fresh = await openPage(env);
  await fresh.goto(`?embed=gradient-flow&sseed=${seed}`);
  await computed(fresh.page);
  assert.equal(await fresh.page.$eval(`${fig('gradient-flow')} [data-source]`, (e) => e.dataset.source), 'computed');
  assert.equal(await figureState(fresh.page, 'gradient-flow'), afterNew);
  await fresh.close();
});
