// Accessibility and devices: axe-core on the page and on every embed view, the
// keyboard alone, text alternatives that follow the state, and three viewports in light and
// dark (no horizontal scrolling, no overlapping controls, 44 px touch targets, reduced
// motion). Screenshots go to target/screenshots/ for a human to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { figureIds, launch, openPage, settle, settled, typesetFormulas } from './harness.mjs';

const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');
const FIGURES = figureIds();

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** axe-core's serious and critical violations on the loaded page, one line each. */
async function seriousViolations(page) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

for (const colorScheme of ['light', 'dark']) {
  test(`axe-core: no serious or critical violation on the page (${colorScheme})`, async () => {
    const p = await openPage(env, { colorScheme });
    await p.goto('');
    assert.deepEqual(await seriousViolations(p.page), []);
    await p.close();
  });
}

test('on a phone, a formula wider than the screen can be scrolled by keyboard: it takes the focus, has a name, and axe finds nothing serious', async () => {
  const p = await openPage(env, { viewport: { width: 375, height: 812 } });
  await p.goto('');
  await typesetFormulas(p.page);
  await settle(p.page);
  const formulas = await p.page.$$eval('div.formula', (fs) => fs.map((f) => ({
    scrolls: f.scrollWidth > f.clientWidth + 1, tabindex: f.getAttribute('tabindex'), role: f.getAttribute('role'), label: f.getAttribute('aria-label'),
  })));
  assert.ok(formulas.filter((f) => f.scrolls).length >= 5, 'several formulas are wider than a phone');
  for (const f of formulas) {
    if (f.scrolls) assert.deepEqual([f.tabindex, f.role, Boolean(f.label)], ['0', 'group', true]);
    else assert.deepEqual([f.tabindex, f.role], [null, null], 'a formula that fits takes no focus');
  }
  // The focus lands on the formula (scrolling it by arrow keys is the browser's own job,
  // and may be animated, so it is not timed here).
  const first = p.page.locator('div.formula[tabindex="0"]').first();
  await first.focus();
  assert.ok(await first.evaluate((f) => document.activeElement === f), 'the formula takes the focus');
  assert.deepEqual(await seriousViolations(p.page), []);
  await p.close();
  // On a wide screen every formula fits, and none is a tab stop.
  const wide = await openPage(env);
  await wide.goto('');
  await typesetFormulas(wide.page);
  await settle(wide.page);
  assert.equal(await wide.page.$$eval('div.formula[tabindex]', (fs) => fs.length), 0);
  await wide.close();
});

test('axe-core: no serious or critical violation in any embed view', async () => {
  const p = await openPage(env);
  const found = [];
  for (const id of FIGURES) {
    await p.goto(`?embed=${id}`);
    for (const v of await seriousViolations(p.page)) found.push(`${id}: ${v}`);
  }
  assert.deepEqual(found, []);
  await p.close();
});

test('the keyboard alone reaches every control in page order, with a visible focus ring', async () => {
  const p = await openPage(env);
  await p.goto('');
  assert.equal(await p.page.$$eval('[tabindex]', (els) => els.filter((e) => e.tabIndex > 0).length), 0, 'no positive tabindex');
  // Every figure's More settings opened (a keyboard reader opens one with Enter on its
  // summary, which Tab reaches: checked below), so that every control is in the order.
  await p.page.$$eval('details[data-more-settings]', (ds) => ds.forEach((d) => { d.open = true; }));
  const controls = await p.page.$$eval('[data-control]', (els) => els.map((e) => e.id || e.dataset.control + '@' + e.closest('[data-figure]')?.dataset.figure));
  const reached = [];
  const unringed = [];
  await p.page.evaluate(() => document.activeElement?.blur());
  for (let i = 0; i < 600; i++) {
    await p.page.keyboard.press('Tab');
    const info = await p.page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      const s = getComputedStyle(e);
      const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none';
      const control = e.dataset.control ? (e.id || e.dataset.control + '@' + e.closest('[data-figure]')?.dataset.figure) : null;
      return { control, ring, what: `${e.tagName}.${e.className}` };
    });
    if (!info) break;
    if (!info.ring) unringed.push(info.what);
    if (info.control) {
      if (reached.includes(info.control)) break; // wrapped around
      reached.push(info.control);
    }
  }
  assert.deepEqual(reached, controls, 'Tab visits every control, in the order of the page');
  // A closed More settings is reached by Tab at its summary and opened with Enter.
  await p.page.$$eval('details[data-more-settings]', (ds) => ds.forEach((d) => { d.open = false; }));
  await p.page.focus('[data-figure="gradient-flow"] details[data-more-settings] > summary');
  await p.page.keyboard.press('Enter');
  assert.ok(await p.page.$eval('[data-figure="gradient-flow"] details[data-more-settings]', (d) => d.open), 'Enter on the summary opens More settings');
  await p.page.keyboard.press('Tab');
  assert.equal(await p.page.evaluate(() => document.activeElement?.closest('details[data-more-settings]') !== null), true, 'Tab goes on into the settings');
  assert.deepEqual([...new Set(unringed)], [], 'every focused element shows a focus ring');
  await p.close();
});

test('each canvas has a text alternative, and it follows the state', async () => {
  const p = await openPage(env);
  await p.goto('');
  const labels = await p.page.$$eval('canvas[data-canvas]', (cs) => cs.map((c) => ({ canvas: c.dataset.canvas, label: c.getAttribute('aria-label') ?? c.textContent, role: c.getAttribute('role') })));
  for (const l of labels) {
    assert.ok(l.label && l.label.trim().length > 10, `canvas ${l.canvas} has a text alternative`);
    assert.equal(l.role, 'img', `canvas ${l.canvas} is an image to assistive technology`);
  }
  const label = (fig) => p.page.$eval(`[data-figure="${fig}"] canvas[data-canvas]`, (c) => c.getAttribute('aria-label'));
  for (const [fig, control] of [['jacobian', 'alpha'], ['memory-vs-context', 'ctx'], ['score-rank', 'rdk'], ['gradient-flow', 'depth']]) {
    const before = await label(fig);
    const input = p.page.locator(`[data-figure="${fig}"] [data-control="${control}"]`).first();
    await input.focus();
    for (let i = 0; i < 3; i++) await p.page.keyboard.press('ArrowRight');
    await settled(p.page);
    assert.notEqual(await label(fig), before, `${fig}'s text alternative changes when ${control} moves`);
  }
  await p.close();
});

const VIEWPORTS = [{ width: 375, height: 812, name: 'phone' }, { width: 768, height: 1024, name: 'tablet' }, { width: 1440, height: 900, name: 'desktop' }];
for (const vp of VIEWPORTS) {
  for (const colorScheme of ['light', 'dark']) {
    test(`${vp.width}×${vp.height} ${colorScheme}: no horizontal scrolling, no overlapping controls, 44 px touch targets`, async () => {
      const p = await openPage(env, { viewport: { width: vp.width, height: vp.height }, colorScheme });
      await p.goto('');
      const layout = await p.page.evaluate(() => {
        const scroll = document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth;
        const targets = [...document.querySelectorAll('[data-control], button, select, summary, .share-box input')]
          .filter((e) => e.offsetParent !== null && e.checkVisibility())
          .map((e) => {
            // A switch's target is the switch and its label (a click on either toggles it).
            let box = e.getBoundingClientRect();
            const label = e.type === 'checkbox' && e.id ? document.querySelector(`label[for="${e.id}"]`) : null;
            if (label) {
              const l = label.getBoundingClientRect();
              const [x0, y0] = [Math.min(box.left, l.left), Math.min(box.top, l.top)];
              box = { x: x0, y: y0, width: Math.max(box.right, l.right) - x0, height: Math.max(box.bottom, l.bottom) - y0 };
            }
            return { what: e.dataset.control ?? e.textContent.trim().slice(0, 30) ?? e.tagName, x: box.x, y: box.y + scrollY, w: box.width, h: box.height };
          });
        return { scroll, targets };
      });
      assert.ok(layout.scroll <= 0, `no horizontal scrolling (overflow ${layout.scroll} px)`);
      const small = layout.targets.filter((t) => t.h < 44 || t.w < 44).map((t) => `${t.what} ${t.w.toFixed(0)}×${t.h.toFixed(0)}`);
      assert.deepEqual(small, [], 'touch targets at least 44 px');
      const overlaps = [];
      const ts = layout.targets;
      for (let i = 0; i < ts.length; i++) {
        for (let j = i + 1; j < ts.length; j++) {
          const [a, b] = [ts[i], ts[j]];
          const ix = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
          const iy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
          if (ix > 1 && iy > 1) overlaps.push(`${a.what} / ${b.what}`);
        }
      }
      assert.deepEqual(overlaps, [], 'no two controls overlap');
      mkdirSync('target/screenshots', { recursive: true });
      await p.page.screenshot({ path: `target/screenshots/page-${vp.name}-${colorScheme}.png`, fullPage: true });
      await p.close();
    });
  }
}

test('reduced motion is honoured: no transition or animation runs', async () => {
  const context = await env.browser.newContext({ reducedMotion: 'reduce' });
  const page = await context.newPage();
  await page.goto(env.site.url);
  await page.waitForSelector('[data-figure] canvas[data-draws]');
  await settle(page);
  const moving = await page.$$eval('*', (els) => els.filter((e) => {
    const s = getComputedStyle(e);
    const longest = (v) => Math.max(...v.split(',').map((x) => parseFloat(x) || 0));
    return longest(s.transitionDuration) > 0.01 || (s.animationName !== 'none' && longest(s.animationDuration) > 0.01);
  }).map((e) => `${e.tagName}.${e.className}`));
  assert.deepEqual(moving, []);
  await context.close();
});

test('nothing is conveyed by colour alone: every heatmap reads its cells out in words, every figure offers its numbers as CSV', async () => {
  const p = await openPage(env);
  await p.goto('');
  const missing = [];
  let heatmapsRead = 0;
  for (const id of FIGURES) {
    const figure = `[data-figure="${id}"]`;
    if (!(await p.page.$(`${figure} [data-action="csv"]`))) missing.push(`${id}: no CSV export`);
    const heatmaps = await p.page.$$eval(`${figure} canvas[data-canvas][tabindex="0"]`, (cs) => cs.map((c) => c.dataset.canvas));
    for (const name of heatmaps) {
      const readout = `[data-cell-readout="${name}"]`;
      if (!(await p.page.$(readout))) { missing.push(`${id}/${name}: no cell readout`); continue; }
      await p.page.focus(`${figure} canvas[data-canvas="${name}"]`);
      await p.page.keyboard.press('ArrowRight');
      await settle(p.page);
      const text = (await p.page.textContent(readout)).trim();
      // The cell's value in digits, or the word for a value that has none (overflow).
      if (!/\d/.test(text)) missing.push(`${id}/${name}: the focused cell reads "${text}"`);
      heatmapsRead++;
    }
    // Canvases that are not heatmaps (charts) carry their numbers in their text alternative.
    const charts = await p.page.$$eval(`${figure} canvas[data-canvas]:not([tabindex="0"])`, (cs) => cs.map((c) => [c.dataset.canvas, c.getAttribute('aria-label') ?? '']));
    for (const [name, label] of charts) if (!/\d/.test(label)) missing.push(`${id}/${name}: text alternative without numbers: "${label}"`);
  }
  assert.deepEqual(missing, []);
  // Not vacuous: the page has a dozen heatmaps (Passes 1, 3 and 4).
  assert.ok(heatmapsRead >= 10, `${heatmapsRead} heatmaps read out`);
  console.log(`# ${heatmapsRead} heatmaps read out in words`);
  assert.deepEqual(p.errors, []);
  await p.close();
});
