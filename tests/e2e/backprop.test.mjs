// Pass 1 end to end: every control, moved by keyboard and by pointer, changes the
// canvases and the readouts; readouts agree with an independent computation for explicit
// scores given in the URL; the heatmap's cells are reachable by keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle, readout, readouts, canvasPixels, reveal } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const HEATMAP = '[data-canvas="jacobian"]';
const BARS = '[data-canvas="probabilities"]';
const SWEEP = '[data-canvas="jacobian-vs-dk"]';

async function snapshot(page) {
  return { heat: await canvasPixels(page, HEATMAP), bars: await canvasPixels(page, BARS), sweep: await canvasPixels(page, SWEEP), r: await readouts(page) };
}

async function expectChange(page, before, what, { sweep = false } = {}) {
  await settle(page);
  const after = await snapshot(page);
  assert.notEqual(after.heat, before.heat, `${what}: heatmap pixels change`);
  assert.notEqual(after.r.frobenius, before.r.frobenius, `${what}: ‖J‖_F readout changes`);
  if (sweep) assert.notEqual(after.sweep, before.sweep, `${what}: sweep chart changes`);
  return after;
}

test('each control moved by keyboard changes the figures', async () => {
  const p = await openPage(env);
  await p.goto('');
  let s = await snapshot(p.page);
  for (const [key, press, sweep] of [['n', 'ArrowRight', true], ['dk', 'ArrowRight', true], ['alpha', 'ArrowRight', true], ['seed', null, true]]) {
    await reveal(p.page, `[data-control="${key}"]`);
    if (press) {
      await p.page.focus(`[data-control="${key}"]`);
      await p.page.keyboard.press(press);
    } else {
      await p.page.fill(`[data-control="${key}"]`, '12345');
      await p.page.press(`[data-control="${key}"]`, 'Enter');
    }
    s = await expectChange(p.page, s, key, { sweep });
  }
  await p.page.focus('[data-control="div"]');
  await p.page.keyboard.press('Space');
  s = await expectChange(p.page, s, 'div');
  assert.equal(await p.page.isChecked('[data-control="div"]'), false);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('each slider moved by pointer changes the figures', async () => {
  const p = await openPage(env);
  await p.goto('');
  let s = await snapshot(p.page);
  // Where each click lands (fraction of the track): α stays moderate so that turning the
  // division off next still changes the picture rather than both states being saturated.
  for (const [key, at] of [['n', 0.9], ['dk', 0.9], ['alpha', 0.25]]) {
    await reveal(p.page, `[data-control="${key}"]`);
    await p.page.locator(`[data-control="${key}"]`).scrollIntoViewIfNeeded();
    const box = await p.page.locator(`[data-control="${key}"]`).boundingBox();
    await p.page.mouse.click(box.x + box.width * at, box.y + box.height / 2);
    s = await expectChange(p.page, s, `${key} (pointer)`);
  }
  await p.page.click('[data-control="div"]');
  s = await expectChange(p.page, s, 'div (pointer)');
  await p.page.click('[data-action="new-seed"]');
  await expectChange(p.page, s, 'new seed (pointer)');
  assert.deepEqual(p.errors, []);
  await p.close();
});

// Independent computation of what the page must show for explicit scores.
function expected(z, alpha, dk, divide) {
  const s = z.map((x) => (divide ? (alpha * x) / Math.sqrt(dk) : alpha * x));
  const m = Math.max(...s);
  const e = s.map((x) => Math.exp(x - m));
  const t = e.reduce((a, b) => a + b, 0);
  const p = e.map((x) => x / t);
  const n = p.length;
  const J = p.map((pi, i) => p.map((pj, j) => (i === j ? pi * (1 - pi) : -pi * pj)));
  const frob = Math.sqrt(J.flat().reduce((a, x) => a + x * x, 0));
  // Largest eigenvalue of the PSD matrix J by power iteration.
  let v = p.map((_, i) => (i % 2 ? 1 : -0.7) + i * 0.01);
  let lambda = 0;
  for (let it = 0; it < 5000; it++) {
    const w = J.map((row) => row.reduce((a, x, j) => a + x * v[j], 0));
    const norm = Math.hypot(...w);
    if (norm === 0) { lambda = 0; break; }
    v = w.map((x) => x / norm);
    lambda = norm;
  }
  const entropy = -p.filter((x) => x > 0).reduce((a, x) => a + x * Math.log(x), 0);
  return { frobenius: frob, spectral: lambda, 'max-p': Math.max(...p), entropy, n };
}

test('readouts agree with an independent computation for explicit scores in the URL', async () => {
  const p = await openPage(env);
  for (const [z, alpha, dk, div] of [
    [[1.5, -0.2, 0.3, 2.0, -1.0], 1, 64, true],
    [[1.5, -0.2, 0.3, 2.0, -1.0], 3.7, 16, false],
    [[0, 0, 0], 1, 64, true],
    [[40, -35, 90, 12, -100], 50, 1024, false],
  ]) {
    await p.goto(`?z=${z.join(',')}&alpha=${alpha}&dk=${dk}&div=${div ? 1 : 0}`);
    const want = expected(z, alpha, dk, div);
    for (const name of ['frobenius', 'spectral', 'max-p', 'entropy']) {
      const got = await readout(p.page, name);
      assert.ok(Math.abs(got - want[name]) <= 1e-9 * Math.max(1, Math.abs(want[name])), `${name}: page ${got}, independent ${want[name]} (z=${z})`);
    }
    assert.equal(await p.page.inputValue('[data-control="n"]'), String(z.length), 'n follows the count of z');
    assert.ok(await p.page.$('[data-explicit-scores]'));
  }
  // Saturation is named in the caption.
  assert.match(await p.page.textContent('[data-caption="jacobian"]'), /Saturated/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('moving n drops the explicit scores and samples again', async () => {
  const p = await openPage(env);
  await p.goto('?z=1,2,3');
  await reveal(p.page, '[data-control="n"]');
  await p.page.focus('[data-control="n"]');
  await p.page.keyboard.press('ArrowRight');
  await p.page.waitForFunction(() => !location.search.includes('z='), null, { timeout: 3000 });
  assert.equal(await p.page.inputValue('[data-control="n"]'), '4');
  assert.equal(await p.page.$('[data-explicit-scores]'), null);
  await p.close();
});

test('the heatmap reads out cells on keyboard focus and arrow keys, and on hover', async () => {
  const p = await openPage(env);
  await p.goto('?z=1,2,3,4');
  await p.page.focus(HEATMAP);
  await settle(p.page);
  assert.match(await p.page.textContent('[data-cell-readout="jacobian"]'), /^i = 0, j = 0: pᵢ = /);
  await p.page.keyboard.press('ArrowRight');
  await p.page.keyboard.press('ArrowDown');
  await settle(p.page);
  const text = await p.page.textContent('[data-cell-readout="jacobian"]');
  assert.match(text, /^i = 1, j = 1: /);
  assert.equal(await p.page.getAttribute('[data-cell-readout="jacobian"]', 'aria-live'), 'polite');
  await p.page.locator(HEATMAP).scrollIntoViewIfNeeded();
  const box = await p.page.locator(HEATMAP).boundingBox();
  await p.page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.1);
  await settle(p.page);
  assert.match(await p.page.textContent('[data-cell-readout="jacobian"]'), /^i = 0, j = 3: .*Jᵢⱼ = −/);
  await p.close();
});

test('the heatmap is crisp: its backing store follows the device pixel ratio', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(env.site.url);
  await page.waitForSelector(`${HEATMAP}[data-draws]`);
  await settle(page);
  const { w, cssW } = await page.$eval(HEATMAP, (c) => ({ w: c.width, cssW: c.getBoundingClientRect().width }));
  assert.ok(Math.abs(w - 2 * cssW) <= 2, `backing ${w} for css ${cssW}`);
  await context.close();
});

test('without division, large d_k saturates the softmax and the caption says so', async () => {
  const p = await openPage(env);
  await p.goto('?div=0&dk=1024&alpha=5');
  assert.ok((await readout(p.page, 'max-p')) > 0.99);
  assert.match(await p.page.textContent('[data-caption="jacobian"]'), /Saturated/);
  await p.goto('?div=1&dk=1024&alpha=1');
  assert.doesNotMatch(await p.page.textContent('[data-caption="jacobian"]'), /Saturated/);
  const withDiv = await readout(p.page, 'mean-with');
  const without = await readout(p.page, 'mean-without');
  assert.ok(without < withDiv / 5, `mean ‖J‖_F at d_k=1024: ${without} without vs ${withDiv} with`);
  await p.close();
});
