// Teaching: the figure first on the first screen, the guided steps of each pass's main
// figure ("Try it"), predict-then-reveal, `step=` in the page and in an embed, keyboard-only
// use, reduced motion, and a phone's primary control beside its plot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settled, settle, readouts, urlKeyRows } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** The main figure of each pass, its steps' target states (the values each step sets, as
 * the issue and the article name them), and its primary control. */
const STRIPS = [
  {
    figure: 'jacobian', control: 'alpha',
    targets: [{ div: '0', alpha: '1' }, { alpha: '20' }, { div: '1' }, { alpha: '1' }],
    // The prediction before step 2: ‖J‖₂ when α goes 1 → 20 without the division.
    prediction: { step: 2, answer: (was, now) => (now.spectral / was.spectral < 0.5 ? 'collapses' : now.spectral / was.spectral < 2 ? 'same' : 'grows') },
  },
  {
    figure: 'memory-vs-context', control: 'ctx',
    targets: [{ ctx: '1024', model: 'llama2-7b', dtype: 'bf16', batch: '1' }, { ctx: '131072' }, { model: 'llama3-8b' }],
    prediction: {
      step: 2,
      answer: (was, now) => {
        const r = now['score-bytes'] / was['score-bytes'];
        assert.equal(r, 128 * 128, 'one layer\'s scores grow as n²: 128² times');
        return 'quadratic';
      },
    },
  },
  {
    figure: 'score-rank', control: 'rdk',
    targets: [{ rn: '32', rdk: '4', rshow: 's' }, { rdk: '48' }, { rdk: '4' }],
    prediction: { step: 2, answer: (was, now) => (now['rank-s'] === 4 ? 'stays' : now['rank-s'] === 32 ? 'n' : 'dk') },
  },
  {
    figure: 'finetune-memory', control: 'ftmethod',
    targets: [{ ftmodel: 'llama3-8b', ftmethod: 'full' }, { ftmethod: 'lora' }, { ftmodel: 'llama3-70b', ftmethod: 'qlora' }],
    // The prediction before step 3: the smallest laptop QLoRA of Llama-3-70B fits in.
    prediction: {
      step: 3,
      answer: (was, now) => {
        const gib = 2 ** 30;
        const b = now['bytes-qlora'];
        return b <= 16 * gib ? 'laptop-16' : b <= 36 * gib ? 'laptop-36' : b <= 64 * gib ? 'laptop-64' : 'larger';
      },
    },
  },
  {
    figure: 'gradient-flow', control: 'depth',
    targets: [{ res: '0', norm: 'none', depth: '8' }, { depth: '64' }, { res: '1', norm: 'pre' }],
    prediction: {
      step: 2,
      answer: (was, now) => {
        const r = now['grad-ratio'] / was['grad-ratio'];
        return r < 1e-3 ? 'vanishes' : r < 0.5 ? 'shrinks' : r < 2 ? 'same' : 'explodes';
      },
    },
  },
];

/** Each key's default, from the key table of docs/url-state.md. */
const DEFAULTS = Object.fromEntries(urlKeyRows().map((l) => {
  const cells = l.split('|').map((c) => c.trim());
  return [cells[1].replace(/`/g, ''), cells[cells.length - 2].replace(/`/g, '')];
}));

/** The state step k of a strip reaches: every earlier step's values, then its own. */
function stateAt(strip, k) {
  const keys = [...new Set(strip.targets.flatMap((t) => Object.keys(t)))];
  const state = Object.fromEntries(keys.map((key) => [key, null]));
  for (const t of strip.targets.slice(0, k)) Object.assign(state, t);
  return state;
}

/** The page's address as key → value, a key the address leaves out at its default. */
async function addressValues(page, keys) {
  const search = new URLSearchParams(await page.evaluate(() => location.search));
  return Object.fromEntries(keys.map((k) => [k, search.get(k) ?? DEFAULTS[k]]));
}

/** A figure's readouts as numbers (overflow +∞). */
async function figureReadouts(page, figure) {
  const all = await page.$$eval(`[data-figure="${figure}"] [data-readout]`, (els) => els.map((e) => [e.dataset.readout, e.dataset.value]));
  return Object.fromEntries(all.map(([k, v]) => [k, v === 'overflow' ? Infinity : Number(v)]));
}

async function figureReadoutTexts(page, figure) {
  return page.$$eval(`[data-figure="${figure}"] [data-readout]`, (els) => els.map((e) => `${e.dataset.readout}=${e.dataset.value}`).sort());
}

/** Waits until the figure has reached step k (or left every step, k = 0) and its
 * readouts have caught up. */
async function reached(page, figure, k) {
  await page.waitForFunction(([f, want]) => {
    const root = document.querySelector(`[data-figure="${f}"]`);
    const at = root?.getAttribute('data-step-at');
    const moving = root?.querySelector('[data-steps] [data-action="step-back"]')?.disabled && want > 0;
    return (want === 0 ? at === null : at === String(want)) && !moving && !root.querySelector('[aria-busy="true"]');
  }, [figure, k], { timeout: 60000 });
  await page.waitForFunction((want) => (want === 0 ? !/[?&]step=/.test(location.search) : new RegExp(`[?&]step=${want}(&|$)`).test(location.search)), k, { timeout: 5000 });
  await settle(page);
}

/** Brings a figure's strip on screen (its placeholder, until its module has arrived) and
 * waits for its buttons. */
async function bringStrip(page, figure) {
  await page.locator(`[data-figure="${figure}"] .steps`).first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.waitForSelector(`[data-figure="${figure}"] [data-steps] [data-action="step-next"]`, { timeout: 30000 });
  await page.locator(`[data-figure="${figure}"] [data-steps]`).evaluate((e) => e.scrollIntoView({ block: 'center' }));
}

async function openStrip(p, figure, query = '') {
  await p.goto(`${query}#${figure}`);
  await bringStrip(p.page, figure);
}

/** Waits until the address holds `want` (key → value, a key left out at its default). */
async function addressHolds(page, want) {
  await page.waitForFunction(([w, defaults]) => {
    const search = new URLSearchParams(location.search);
    return Object.entries(w).every(([k, v]) => (search.get(k) ?? defaults[k]) === v);
  }, [want, DEFAULTS], { timeout: 5000 }).catch(() => {});
}

test('at 1280×900 and 375×812 a figure\'s canvas starts within the first screen, and links to the four passes are on it', async () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 812 }]) {
    const p = await openPage(env, { viewport });
    await p.goto();
    await p.page.evaluate(() => window.scrollTo(0, 0));
    const top = await p.page.$eval('[data-figure] canvas[data-canvas]', (c) => c.getBoundingClientRect().top);
    assert.ok(top < viewport.height, `${viewport.width} px: the first canvas starts at ${top} px, within ${viewport.height}`);
    for (const section of ['backprop', 'complexity', 'linear-algebra', 'stability']) {
      // The first visible link to the section (a wide screen's bar of passes is hidden on a phone).
      const box = await p.page.$$eval(`a[href="#${section}"]`, (as) => as.map((a) => {
        const r = a.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, visible: r.width > 0 && r.height > 0 && a.checkVisibility() };
      }).find((b) => b.visible) ?? { visible: false });
      assert.ok(box.visible && box.top >= 0 && box.bottom <= viewport.height, `${viewport.width} px: the link to #${section} is on the first screen (${JSON.stringify(box)})`);
    }
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});

for (const strip of STRIPS) {
  test(`${strip.figure}: every step reaches exactly its target state, in the address and in the readouts, and Back returns`, async () => {
    const p = await openPage(env);
    const check = await openPage(env);
    await openStrip(p, strip.figure);
    const { page } = p;
    const keys = Object.keys(stateAt(strip, 0));
    const start = await addressValues(page, keys);
    const startReadouts = await figureReadoutTexts(page, strip.figure);
    const steps = await page.$$eval(`[data-figure="${strip.figure}"] [data-steps] [data-step]`, (els) => els.map((e) => e.dataset.step));
    assert.deepEqual(steps, strip.targets.map((_, i) => String(i + 1)), 'one [data-step] per step, numbered from 1');
    for (let k = 1; k <= strip.targets.length; k++) {
      // Next is enabled once the step before has been said; a strip waits at most 30 s for
      // its figure to catch up before it says its sentence anyway (then the checks below
      // find out whether the state is right), so this waits longer than that.
      await page.click(`[data-figure="${strip.figure}"] [data-action="step-next"]`, { timeout: 45000 });
      const skip = page.locator(`[data-figure="${strip.figure}"] [data-action="predict-skip"]`);
      if (k === strip.prediction.step) {
        await skip.waitFor({ timeout: 5000 });
        await skip.click();
      }
      await reached(page, strip.figure, k);
      const want = { ...start, ...Object.fromEntries(Object.entries(stateAt(strip, k)).filter(([, v]) => v !== null)) };
      await addressHolds(page, want);
      assert.deepEqual(await addressValues(page, keys), want, `step ${k}: the address holds the step's state`);
      // The same state opened from its address, without any step, shows the same readouts.
      const query = new URLSearchParams(await page.evaluate(() => location.search));
      query.delete('step');
      await check.goto(`?${query}#${strip.figure}`);
      assert.deepEqual(await figureReadoutTexts(page, strip.figure), await figureReadoutTexts(check.page, strip.figure), `step ${k}: the readouts are those of its state`);
      // The sentence is filled in from the figure's numbers.
      const said = await page.textContent(`[data-figure="${strip.figure}"] [data-steps-said]`);
      assert.ok(said.length > 20 && !said.includes('{') && !/NaN|inf\b/.test(said), `step ${k} says: ${said}`);
      assert.equal(await page.getAttribute(`[data-figure="${strip.figure}"] [data-step="${k}"]`, 'aria-current'), 'step');
    }
    assert.ok(await page.isDisabled(`[data-figure="${strip.figure}"] [data-action="step-next"]`), 'Next stops at the last step');
    for (let k = strip.targets.length - 1; k >= 0; k--) {
      await page.click(`[data-figure="${strip.figure}"] [data-action="step-back"]`);
      await reached(page, strip.figure, k);
    }
    await addressHolds(page, start);
    assert.deepEqual(await addressValues(page, keys), start, 'Back to the start restores the state before the first step');
    assert.deepEqual(await figureReadoutTexts(page, strip.figure), startReadouts);
    assert.deepEqual([...p.errors, ...check.errors], []);
    await p.close();
    await check.close();
  });
}

for (const strip of STRIPS) {
  test(`${strip.figure}: predict, then reveal: the revealed answer agrees with the readouts, the reader's answer is shown beside it and remembered`, async () => {
    const p = await openPage(env);
    const { page } = p;
    await openStrip(p, strip.figure);
    const root = `[data-figure="${strip.figure}"]`;
    for (let k = 1; k < strip.prediction.step; k++) {
      await page.click(`${root} [data-action="step-next"]`);
      await reached(page, strip.figure, k);
    }
    const was = await figureReadouts(page, strip.figure);
    await page.click(`${root} [data-action="step-next"]`);
    await page.waitForSelector(`${root} fieldset[data-predict] [data-option]`);
    const options = await page.$$eval(`${root} [data-predict] [data-option]`, (els) => els.map((e) => e.dataset.option));
    assert.ok(options.length >= 3 && options.length <= 4, `3–4 options: ${options}`);
    assert.ok(await page.isDisabled(`${root} [data-action="predict-commit"]`), 'nothing to commit before a choice');
    const chosen = options[0];
    await page.check(`${root} [data-option="${chosen}"]`);
    await page.click(`${root} [data-action="predict-commit"]`);
    await reached(page, strip.figure, strip.prediction.step);
    const now = await figureReadouts(page, strip.figure);
    const reveal = page.locator(`${root} [data-predict][data-revealed]`);
    const revealed = await reveal.getAttribute('data-revealed');
    assert.equal(revealed, strip.prediction.answer(was, now), `the computed answer follows from the readouts ${JSON.stringify({ was, now })}`);
    assert.ok(options.includes(revealed));
    assert.equal(await reveal.getAttribute('data-reader'), chosen);
    const text = await reveal.textContent();
    assert.match(text, /You predicted/);
    assert.ok(!text.includes('{'), text);
    // A reload does not ask again: the answer was remembered in this browser only.
    await p.goto(`#${strip.figure}`);
    await bringStrip(page, strip.figure);
    for (let k = 1; k <= strip.prediction.step; k++) {
      await page.click(`${root} [data-action="step-next"]`);
      await reached(page, strip.figure, k);
    }
    assert.equal(await page.$(`${root} fieldset[data-predict]`), null, 'no question the second time');
    assert.equal(await page.getAttribute(`${root} [data-predict][data-revealed]`, 'data-reader'), chosen);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, [], 'answers are sent nowhere');
    await p.close();
  });
}

test('"Just show me" skips the question and still reveals the computed answer', async () => {
  const p = await openPage(env);
  const { page } = p;
  await openStrip(p, 'score-rank');
  const root = '[data-figure="score-rank"]';
  await page.click(`${root} [data-action="step-next"]`);
  await reached(page, 'score-rank', 1);
  await page.click(`${root} [data-action="step-next"]`);
  await page.click(`${root} [data-action="predict-skip"]`);
  await reached(page, 'score-rank', 2);
  assert.equal(await page.getAttribute(`${root} [data-predict][data-revealed]`, 'data-revealed'), 'n');
  assert.equal(await page.getAttribute(`${root} [data-predict][data-revealed]`, 'data-reader'), '');
  assert.equal((await figureReadouts(page, 'score-rank'))['rank-s'], 32);
  // Skipping remembers nothing: a reload asks.
  await p.goto('#score-rank');
  await bringStrip(page, 'score-rank');
  await page.click(`${root} [data-action="step-next"]`);
  await reached(page, 'score-rank', 1);
  await page.click(`${root} [data-action="step-next"]`);
  await page.waitForSelector(`${root} fieldset[data-predict]`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('step= opens a figure at that step, in the page (the figure the fragment names) and in an embed', async () => {
  const p = await openPage(env);
  const { page } = p;
  await page.goto(`${env.site.url}?step=2#memory-vs-context`);
  await reached(page, 'memory-vs-context', 2);
  await addressHolds(page, { ctx: '131072', model: 'llama2-7b' });
  const values = await addressValues(page, ['ctx', 'model']);
  assert.deepEqual(values, { ctx: '131072', model: 'llama2-7b' });
  assert.equal(await page.getAttribute('[data-figure="memory-vs-context"] [data-step="2"]', 'aria-current'), 'step');
  assert.equal(await page.$('[data-figure="memory-vs-context"] fieldset[data-predict]'), null, 'a link to a step asks nothing');
  await page.goto(`${env.site.url}?embed=score-rank&step=2`);
  await reached(page, 'score-rank', 2);
  assert.equal((await figureReadouts(page, 'score-rank'))['rank-s'], 32);
  assert.match(await page.evaluate(() => location.search), /embed=score-rank/);
  await page.goto(`${env.site.url}?embed=gradient-flow&step=3`);
  await reached(page, 'gradient-flow', 3);
  await addressHolds(page, { res: '1', norm: 'pre', depth: '64' });
  assert.deepEqual(await addressValues(page, ['res', 'norm', 'depth']), { res: '1', norm: 'pre', depth: '64' });
  // Out of range: no step, no error.
  await page.goto(`${env.site.url}?embed=jacobian&step=9`);
  await page.waitForSelector('[data-figure="jacobian"] [data-steps] [data-action="step-next"]');
  await settle(page);
  assert.equal(await page.getAttribute('[data-figure="jacobian"]', 'data-step-at'), null);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('keyboard only: every strip is completed with Tab, Space and Enter, its sentences announced, and focus stays in the strip', async () => {
  const p = await openPage(env, { viewport: { width: 1280, height: 900 } });
  const { page } = p;
  await p.goto();
  for (const strip of STRIPS) {
    const root = `[data-figure="${strip.figure}"]`;
    await bringStrip(page, strip.figure);
    assert.equal(await page.getAttribute(`${root} [data-steps-said]`, 'aria-live'), 'polite', 'the sentence is announced');
    // Reach Next by Tab from the figure's primary control.
    await page.focus(`${root} [data-control="${strip.control}"]`);
    for (let i = 0; i < 30 && !(await page.evaluate((r) => document.activeElement?.matches(`${r} [data-action="step-next"]`), root)); i++) {
      await page.keyboard.press('Tab');
    }
    assert.ok(await page.evaluate((r) => document.activeElement?.matches(`${r} [data-action="step-next"]`), root), `${strip.figure}: Next is reachable by Tab`);
    for (let k = 1; k <= strip.targets.length; k++) {
      await page.keyboard.press('Enter');
      if (k === strip.prediction.step) {
        await page.waitForSelector(`${root} fieldset[data-predict]`);
        // The question takes the focus: its first option.
        await page.waitForFunction((r) => document.activeElement?.matches(`${r} [data-option]`), root, { timeout: 5000 });
        await page.keyboard.press('Space');
        await page.keyboard.press('Tab');
        assert.ok(await page.evaluate((r) => document.activeElement?.matches(`${r} [data-action="predict-commit"]`), root), 'Tab from the options reaches the commit button');
        await page.keyboard.press('Enter');
      }
      await reached(page, strip.figure, k);
      const focus = await page.evaluate((r) => ({ inStrip: !!document.activeElement?.closest(`${r} [data-steps]`), action: document.activeElement?.dataset.action }), root);
      assert.ok(focus.inStrip, `${strip.figure} step ${k}: focus stayed in the strip (${JSON.stringify(focus)})`);
      if (k < strip.targets.length) {
        assert.equal(focus.action, 'step-next', `${strip.figure} step ${k}: focus on Next`);
      }
    }
    assert.equal(await page.getAttribute(root, 'data-step-at'), String(strip.targets.length));
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

/** Every value the figure's primary control takes while a step runs, frame by frame. */
async function valuesDuringStep(page, figure, control) {
  await page.evaluate(([f, c]) => {
    window.__seen = [];
    const input = document.querySelector(`[data-figure="${f}"] [data-control="${c}"]`);
    const watch = () => {
      const v = input.value;
      if (window.__seen[window.__seen.length - 1] !== v) window.__seen.push(v);
      if (!document.querySelector(`[data-figure="${f}"][data-step-at="2"]`)) requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  }, [figure, control]);
  await page.click(`[data-figure="${figure}"] [data-action="step-next"]`);
  await page.click(`[data-figure="${figure}"] [data-action="predict-skip"]`);
  await reached(page, figure, 2);
  return page.evaluate(() => window.__seen);
}

test('a step moves its control through the values between in a short animation; with reduced motion it jumps', async () => {
  for (const reducedMotion of ['no-preference', 'reduce']) {
    const p = await openPage(env);
    await p.page.emulateMedia({ reducedMotion });
    await openStrip(p, 'jacobian');
    await p.page.click('[data-figure="jacobian"] [data-action="step-next"]');
    await reached(p.page, 'jacobian', 1);
    const t0 = Date.now();
    const seen = await valuesDuringStep(p.page, 'jacobian', 'alpha');
    const took = Date.now() - t0;
    if (reducedMotion === 'reduce') {
      assert.equal(seen.length, 2, `reduced motion: from the start straight to the end ${seen}`);
    } else {
      assert.ok(seen.length >= 4, `the slider passes through values between: ${seen}`);
      const positions = seen.map(Number);
      assert.ok(positions.every((v, i) => i === 0 || v >= positions[i - 1]), `monotone: ${seen}`);
    }
    assert.ok(took < 5000, `the step ran in ${took} ms`);
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});

test('on a 375×812 phone, each main figure\'s primary control and its plot are both on screen while the control is moved', async () => {
  const p = await openPage(env, { viewport: { width: 375, height: 812 } });
  const { page } = p;
  await p.goto();
  for (const strip of STRIPS) {
    const control = `[data-figure="${strip.figure}"] [data-control="${strip.control}"]`;
    const canvas = `[data-figure="${strip.figure}"] canvas[data-canvas]`;
    // The reader scrolls the plot to the middle of the screen, then takes the control.
    await page.locator(canvas).first().evaluate((c) => c.scrollIntoView({ block: 'center' }));
    await settle(page);
    await page.focus(control);
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('ArrowRight');
      await settle(page);
      const boxes = await page.evaluate(([c, v]) => {
        const box = (e) => { const r = e.getBoundingClientRect(); return { top: Math.round(r.top), bottom: Math.round(r.bottom) }; };
        return { control: box(document.querySelector(c)), canvas: box(document.querySelector(v)), height: innerHeight };
      }, [control, canvas]);
      const inside = (b) => b.top >= 0 && b.bottom <= boxes.height;
      assert.ok(inside(boxes.control) && inside(boxes.canvas), `${strip.figure}: control and plot on screen while moving: ${JSON.stringify(boxes)}`);
    }
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});
