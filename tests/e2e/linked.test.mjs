// Formula and figure linked both ways: a term (`data-term`) lights its part of the figure
// and the figure root says so (`data-linked`); a part of the figure (a cell, a point of a
// line, a layer of the strip) lights its term and fills the formula in with its numbers
// (`[data-live-formula]`), which agree with the figure's readouts. Hover, keyboard focus
// and a tap do the same. And the charts' legends never cover what they draw.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle, settled, readout } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const fig = (id) => `[data-figure="${id}"]`;
const linkedOf = (page, id) => page.getAttribute(fig(id), 'data-linked');
const live = (page, id) => page.textContent(`${fig(id)} [data-live-formula]`);

/** Numbers written in a formula ("4 096", "0.210", "−0.0252", "1.41×10⁻¹¹"). */
function numbersIn(text) {
  const sup = { '⁰': 0, '¹': 1, '²': 2, '³': 3, '⁴': 4, '⁵': 5, '⁶': 6, '⁷': 7, '⁸': 8, '⁹': 9 };
  return [...text.replace(/\u202f/g, '').matchAll(/(−?\d+(?:\.\d+)?)(?:×10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?/g)].map((m) => {
    const base = Number(m[1].replace('−', '-'));
    if (!m[2]) return base;
    const exp = Number([...m[2]].map((c) => (c === '⁻' ? '-' : sup[c])).join(''));
    return base * 10 ** exp;
  });
}

const near = (a, b, rel = 0.01) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);

/** The centre of cell (row, col) of a heatmap canvas, in page coordinates. */
async function cellCentre(page, canvas, row, col, rows, cols) {
  const box = await page.locator(canvas).boundingBox();
  return { x: box.x + (col + 0.5) * (box.width / cols), y: box.y + (row + 0.5) * (box.height / rows) };
}

async function pixel(page, canvas, x, y) {
  return page.$eval(canvas, (c, [px, py]) => {
    const r = c.getBoundingClientRect();
    const k = c.width / r.width;
    return [...c.getContext('2d').getImageData(Math.floor((px - r.left) * k), Math.floor((py - r.top) * k), 1, 1).data];
  }, [x, y]);
}

/** How many pixels of a canvas are close to the colour of a CSS custom property. */
async function pixelsOf(page, canvas, property) {
  return page.$eval(canvas, (c, prop) => {
    const hex = getComputedStyle(document.documentElement).getPropertyValue(prop).trim();
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const g = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < g.length; i += 4) {
      if (Math.abs(g[i] - want[0]) + Math.abs(g[i + 1] - want[1]) + Math.abs(g[i + 2] - want[2]) < 30) n++;
    }
    return n;
  }, property);
}

test('Pass 1: the diagonal and off-diagonal terms light their cells; a cell fills the formula in, agreeing with its read-out, and lights its term', async () => {
  const p = await openPage(env);
  const { page } = p;
  await p.goto('?n=6');
  const heat = `${fig('jacobian')} canvas[data-canvas="jacobian"]`;
  await page.locator(heat).evaluate((c) => c.scrollIntoView({ block: 'center' }));
  const off = await cellCentre(page, heat, 0, 3, 6, 6);
  const diag = await cellCentre(page, heat, 2, 2, 6, 6);
  const before = await pixel(page, heat, off.x, off.y);
  // Hover the diagonal term: the diagonal is lit, an off-diagonal cell dimmed.
  await page.hover(`${fig('jacobian')} [data-term="diagonal"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'jacobian'), 'diagonal');
  assert.equal(await page.getAttribute(heat, 'data-lit'), 'diagonal');
  const dimmed = await pixel(page, heat, off.x, off.y);
  assert.notDeepEqual(dimmed, before, 'the off-diagonal cell is dimmed');
  assert.match(await live(page, 'jacobian'), /On the diagonal Jᵢᵢ = pᵢ\(1 − pᵢ\): here from/);
  // Off the term: nothing lit.
  await page.mouse.move(0, 0);
  await settle(page);
  assert.equal(await linkedOf(page, 'jacobian'), null);
  assert.equal(await page.getAttribute(heat, 'data-lit'), 'all');
  // Keyboard focus does what hover does.
  await page.focus(`${fig('jacobian')} [data-term="off-diagonal"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'jacobian'), 'off-diagonal');
  assert.equal(await page.getAttribute(heat, 'data-lit'), 'off-diagonal');
  assert.equal(await page.getAttribute(`${fig('jacobian')} .linked-formula`, 'data-lit'), 'off-diagonal', 'the focused term reads as lit');
  await page.keyboard.press('Escape');
  await page.evaluate(() => document.activeElement.blur());
  await settle(page);
  // A cell: its entry written out, the same as its read-out, and its term lit.
  for (const [cell, term] of [[diag, 'diagonal'], [off, 'off-diagonal']]) {
    await page.mouse.move(cell.x, cell.y);
    await settle(page);
    assert.equal(await linkedOf(page, 'jacobian'), term);
    assert.equal(await page.getAttribute(`${fig('jacobian')} .linked-formula`, 'data-lit'), term, `${term} reads as lit`);
    assert.notEqual(await page.$eval(`${fig('jacobian')} [data-term="${term}"]`, (t) => getComputedStyle(t).backgroundColor), 'rgba(0, 0, 0, 0)', `${term} is drawn lit`);
    const text = await live(page, 'jacobian');
    const cellText = await page.textContent(`${fig('jacobian')} [data-cell-readout="jacobian"]`);
    // "i = 2, j = 2: pᵢ = 0.1234, pⱼ = 0.1234, Jᵢⱼ = 0.1082"
    const [, , pi, pj, jij] = numbersIn(cellText);
    const nums = numbersIn(text.split('=').slice(2).join('='));
    if (term === 'diagonal') {
      assert.match(text, /^J₂₂ = p₂\(1 − p₂\) = /, text);
      assert.ok(near(nums[0], pi) && near(nums[1], 1 - pi), `${text} against ${cellText}`);
    } else {
      assert.match(text, /^J₀₃ = −p₀p₃ = /, text);
      assert.ok(near(Math.abs(nums[0]), pi) && near(nums[1], pj), `${text} against ${cellText}`);
    }
    assert.ok(near(nums[2], jij), `the entry ${nums[2]} is the read-out ${jij}`);
    assert.ok(near(Math.abs(nums[0] * nums[1]), Math.abs(jij), 0.02), 'and the product of its factors');
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('Pass 1 on a touch screen: a tap on a term lights it and keeps it lit; a second tap puts it out', async () => {
  const context = await env.browser.newContext({ viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto(env.site.url);
  await settled(page);
  const term = `${fig('jacobian')} [data-term="diagonal"]`;
  await page.locator(term).evaluate((t) => t.scrollIntoView({ block: 'center' }));
  await page.tap(term);
  await settle(page);
  assert.equal(await linkedOf(page, 'jacobian'), 'diagonal');
  await page.tap(term);
  await settle(page);
  assert.equal(await linkedOf(page, 'jacobian'), null);
  await context.close();
});

test('Pass 2: the KV term lights the blue line and its factors multiply to the read-out; the scores term lights the coral line; a point of the chart fills in its line at that context', async () => {
  const p = await openPage(env);
  const { page } = p;
  await p.goto('?model=llama3-8b&ctx=16384');
  const chart = `${fig('memory-vs-context')} canvas[data-canvas="memory-vs-context"]`;
  await page.locator(chart).evaluate((c) => c.scrollIntoView({ block: 'center' }));
  const coral = await pixelsOf(page, chart, '--c-coral');
  assert.ok(coral > 50, `the n² line is drawn in coral (${coral} px)`);
  await page.hover(`${fig('memory-vs-context')} [data-term="kv-cache"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'memory-vs-context'), 'kv-cache');
  assert.ok(await pixelsOf(page, chart, '--c-coral') < coral / 10, 'the other lines are muted while the KV term is lit');
  const kvText = await live(page, 'memory-vs-context');
  assert.match(kvText, /^KV cache at n = 16.384: b × 2 × L × h_kv × d_head × n × e = 1 × 2 × 32 × 8 × 128 × 16.384 × 2 B = /, kvText);
  const kvShown = await page.textContent('[data-readout="kv-bytes"] .readout-value');
  assert.ok(kvText.endsWith(kvShown.trim()), `${kvText} ends with the read-out ${kvShown}`);
  const factors = numbersIn(kvText.split('=')[2]);
  assert.equal(factors.reduce((a, b) => a * b, 1), await readout(page, 'kv-bytes'), 'the factors multiply to the cache');
  await page.hover(`${fig('memory-vs-context')} [data-term="scores"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'memory-vs-context'), 'scores');
  const scoreText = await live(page, 'memory-vs-context');
  const [b, h, n] = numbersIn(scoreText.split('=')[2]);
  const e = 2;
  assert.equal(b * h * n * n * e, await readout(page, 'score-bytes'), `${scoreText}: b·h·n²·e is the read-out`);
  // A point of the chart: the nearer line at that context, written out there.
  const box = JSON.parse(`[${await page.getAttribute(chart, 'data-plot-box')}]`);
  const cbox = await page.locator(chart).boundingBox();
  await page.mouse.move(cbox.x + (box[0] + box[2]) / 2, cbox.y + box[3] - 4);
  await settle(page);
  const at = await linkedOf(page, 'memory-vs-context');
  assert.ok(['kv-cache', 'scores'].includes(at), `a line is lit: ${at}`);
  const text = await live(page, 'memory-vs-context');
  assert.match(text, at === 'kv-cache' ? /^KV cache at n = / : /^Scores of one layer at n = /, text);
  assert.doesNotMatch(text, /n = 16.384:/, 'at the context under the pointer, not the chosen one');
  await page.mouse.move(0, 0);
  await settle(page);
  assert.equal(await linkedOf(page, 'memory-vs-context'), null);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('Pass 3: the bound rank(S) ≤ min(n, dₖ) is filled in with the figure\'s numbers, and a singular value is read against the threshold', async () => {
  const p = await openPage(env);
  const { page } = p;
  await p.goto('?rn=24&rdk=5');
  await page.locator(`${fig('score-rank')} [data-term="rank-bound"]`).evaluate((t) => t.scrollIntoView({ block: 'center' }));
  await page.focus(`${fig('score-rank')} [data-term="rank-bound"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'score-rank'), 'rank-bound');
  const text = await live(page, 'score-rank');
  const rank = await readout(page, 'rank-s');
  assert.equal(rank, 5);
  assert.ok(text.startsWith(`rank(S) = ${rank} ≤ min(n, dₖ) = min(24, 5) = 5: ${rank} singular values of S above the threshold`), text);
  assert.ok(text.endsWith(`${24 - rank} below it.`), text);
  await page.evaluate(() => document.activeElement.blur());
  const chart = `${fig('score-rank')} canvas[data-canvas="singular-values"]`;
  const box = JSON.parse(`[${await page.getAttribute(chart, 'data-plot-box')}]`);
  const cbox = await page.locator(chart).boundingBox();
  // x runs from 0.5 to n + 0.5: the first singular value is 1/24 of the way in.
  const x = cbox.x + box[0] + (box[2] - box[0]) * (0.5 / 24);
  await page.mouse.move(x, cbox.y + (box[1] + box[3]) / 2);
  await settle(page);
  assert.equal(await linkedOf(page, 'score-rank'), 'rank-bound');
  assert.match(await live(page, 'score-rank'), /^σ₁\(S\) = .*, above the threshold .*: counted in rank\(S\)/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('Pass 4: I + F′(x) lights the residual switch and the strip; a layer of the strip is the top\'s norm times the factors down to it', async () => {
  const p = await openPage(env);
  const { page } = p;
  await p.goto('?res=1&norm=pre&depth=16');
  const strip = `${fig('gradient-flow')} canvas[data-canvas="gradient-strip"]`;
  await page.locator(strip).evaluate((c) => c.scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  const outline = () => page.$eval(strip, (c) => getComputedStyle(c).outlineStyle);
  assert.equal(await outline(), 'none');
  await page.hover(`${fig('gradient-flow')} [data-term="identity"]`);
  await settle(page);
  assert.equal(await linkedOf(page, 'gradient-flow'), 'identity');
  assert.equal(await outline(), 'solid', 'the strip is lit');
  assert.equal(await page.$eval(`${fig('gradient-flow')} [data-control="res"]`, (c) => getComputedStyle(c.closest('.control-toggle')).outlineStyle), 'solid', 'the residual switch is lit');
  // Layer 0 (the strip's left end): its norm is the read-out, and the top's norm times the
  // product of the per-block factors.
  const at0 = await cellCentre(page, strip, 0, 0, 1, 16);
  await page.mouse.move(at0.x, at0.y);
  await settle(page);
  assert.equal(await linkedOf(page, 'gradient-flow'), 'identity', 'the layer lights the term of its stack');
  const text = await live(page, 'gradient-flow');
  assert.match(text, /^Layer 0: ‖g₀‖ = /, text);
  const [, g, count, top, product] = numbersIn(text);
  assert.ok(near(g, await readout(page, 'bottom-norm')), `${text}: layer 0's norm is the read-out`);
  assert.ok(near(top, await readout(page, 'top-norm')), `${text}: the top's norm is the read-out`);
  assert.equal(count, 15, 'fifteen blocks between layer 0 and the top');
  assert.ok(near(top * product, g, 0.02), `${top} × ${product} = ${g}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('legends never cover what a chart draws: every chart, at defaults and at heavy settings', async () => {
  const p = await openPage(env);
  const { page } = p;
  for (const query of ['', '?ctx=1048576&model=llama3-70b&batch=64&dtype=fp32&axes=linear&rn=256&rdk=256&mhh=16&depth=128&res=1&norm=post&lr=256', '?ctx=128&model=gpt2&dtype=int4&rn=2&rdk=1&depth=1&div=0&alpha=50']) {
    await p.goto(query);
    const boxes = await page.$$eval('canvas[data-legend-box]', (cs) => cs.map((c) => ({
      canvas: c.dataset.canvas, legend: c.dataset.legendBox.split(',').map(Number), plot: c.dataset.plotBox.split(',').map(Number), covers: Number(c.dataset.legendCovers),
    })));
    assert.ok(boxes.length >= 8, `charts with a legend: ${boxes.length}`);
    for (const b of boxes) {
      assert.equal(b.covers, 0, `${query} ${b.canvas}: the legend covers ${b.covers} drawn points`);
      const [l1, t1, r1, b1] = b.legend;
      const [l2, t2, r2, b2] = b.plot;
      const overlap = Math.min(r1, r2) - Math.max(l1, l2) > 0 && Math.min(b1, b2) - Math.max(t1, t2) > 0;
      assert.ok(!overlap, `${query} ${b.canvas}: legend ${b.legend} and plot ${b.plot} do not overlap`);
    }
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});
