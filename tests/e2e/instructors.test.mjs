// The instructor's path: the example course page (examples/course-page/, copied into
// dist/examples/course-page/) served from a second origin with its iframes pointing at the
// site; embeds that size themselves before they compute; chosen controls; the embed code
// form; handouts that print.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist } from '../../scripts/serve-static.mjs';
import { launch, openPage, settle, settled, figureIds } from './harness.mjs';

let env;
let host;
before(async () => {
  env = await launch();
  // A second origin (another port) serving only the course page, as a course's site would.
  host = await serveDist({ root: 'dist/examples/course-page', prefix: '/teaching/week7/' });
});
after(async () => { host?.server.close(); await env?.close(); });

test('the course page on another origin: every iframe ends at its figure\'s height, nothing throws, and each figure draws once scrolled to', async () => {
  const p = await openPage(env, { viewport: { width: 1280, height: 900 } });
  // Every resize message the host page receives, in order.
  await p.page.addInitScript(() => {
    window.__resizes = [];
    addEventListener('message', (e) => { if (e.data?.type === 'handwave:resize') window.__resizes.push([e.data.figure, e.data.height]); });
  });
  await p.page.goto(`${host.url}?site=${encodeURIComponent(env.site.url)}`);
  const frames = await p.page.$$('iframe[data-handwave]');
  assert.equal(frames.length, 3, 'three embedded figures');
  const expected = ['jacobian', 'memory-vs-context', 'gradient-flow'];
  for (const [i, element] of frames.entries()) {
    // Scrolled to, the lazy iframe loads its figure.
    await element.evaluate((f) => f.scrollIntoView({ block: 'start' }));
    const frame = await element.contentFrame();
    await frame.waitForSelector('[data-figure] canvas[data-draws]', { timeout: 30000 }).catch((e) => {
      throw new Error(`${expected[i]}: no figure drew in its iframe (${frame.url()}): ${e.message.split('\n')[0]}`);
    });
    await frame.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60000 });
    assert.equal(await frame.$eval('[data-figure]', (f) => f.dataset.figure), expected[i]);
    assert.ok(frame.url().startsWith(env.site.url), `the figure comes from the site's origin: ${frame.url()}`);
    // The host page sized the iframe from the figure's messages.
    await p.page.waitForFunction(([index, want]) => {
      const f = document.querySelectorAll('iframe[data-handwave]')[index];
      return Math.abs(f.getBoundingClientRect().height - want) <= 2;
    }, [i, await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height))], { timeout: 10000 });
    // Every canvas of the figure drew, and none is blank.
    const blank = await frame.$$eval('[data-figure] canvas[data-canvas]', (cs) => cs.filter((c) => {
      const g = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let k = 3; k < g.length; k += 4) if (g[k] !== 0) return false;
      return true;
    }).map((c) => c.dataset.canvas));
    assert.deepEqual(blank, [], `${expected[i]}: blank canvases`);
  }
  // The chosen controls: the Jacobian shows α and ÷√dₖ only; gradient-flow none.
  const jacobian = await frames[0].contentFrame();
  assert.deepEqual((await jacobian.$$eval('[data-control]', (cs) => cs.map((c) => c.dataset.control))).sort(), ['alpha', 'div']);
  assert.equal(await (await frames[2].contentFrame()).$('[data-control]'), null);
  // Each figure's first message already carried (about) its final height: it was posted
  // once the figure was laid out, not for a "Loading" line.
  const resizes = await p.page.evaluate(() => window.__resizes);
  for (const figure of expected) {
    const heights = resizes.filter(([f]) => f === figure).map(([, h]) => h);
    assert.ok(heights.length >= 1, `${figure} posted its height`);
    const final = heights[heights.length - 1];
    assert.ok(heights[0] > 300, `${figure}: the first height posted (${heights[0]}) is a figure's, not a loading line's`);
    assert.ok(Math.abs(heights[0] - final) <= 60, `${figure}: first ${heights[0]} against final ${final} (all: ${heights})`);
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('controls= shows only the controls named, keeps the others\' values, and names what it ignored', async () => {
  const p = await openPage(env);
  await p.goto('?embed=jacobian&alpha=3&n=12&controls=alpha,ctx');
  assert.deepEqual(await p.page.$$eval('[data-control]', (cs) => cs.map((c) => c.dataset.control)), ['alpha']);
  assert.equal(await p.page.getAttribute('[data-control="alpha"]', 'aria-valuetext'), '3.00 ×');
  assert.equal(Number(await p.page.getAttribute('[data-readout="max-p"]', 'data-value')) > 0, true);
  // n = 12 still holds: the caption says so.
  assert.match(await p.page.textContent('[data-caption="jacobian"]'), /12 tokens/);
  assert.match(await p.page.textContent('[data-notice-key="controls"]'), /ctx is not a control of figure jacobian/);
  // The address keeps the choice.
  await p.page.waitForFunction(() => location.search.includes('controls=alpha'));
  // Moving the one control shown works.
  await p.page.focus('[data-control="alpha"]');
  await p.page.keyboard.press('ArrowRight');
  await p.page.waitForFunction(() => new URLSearchParams(location.search).get('alpha') !== '3');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the embed code form: ticking controls off updates the code, and the starting height fits the figure', async () => {
  const p = await openPage(env);
  await p.goto('?alpha=2');
  await p.page.click('[data-figure="jacobian"] [data-action="copy-embed"]');
  // The form's code arrives with the first press (a module of its own).
  await p.page.waitForSelector('[data-figure="jacobian"] [data-embed-control]');
  const code = () => p.page.inputValue('[data-figure="jacobian"] [data-share="embed"]');
  const boxes = await p.page.$$eval('[data-figure="jacobian"] [data-embed-control]', (bs) => bs.map((b) => [b.dataset.embedControl, b.checked]));
  assert.deepEqual(boxes, [['n', true], ['dk', true], ['div', true], ['alpha', true], ['seed', true]]);
  assert.match(await code(), /embed=jacobian&amp;alpha=2"/);
  const full = Number((await code()).match(/height="(\d+)"/)[1]);
  const figureHeight = await p.page.$eval('[data-figure="jacobian"]', (f) => f.getBoundingClientRect().height - f.querySelector('.share-box').getBoundingClientRect().height);
  assert.ok(full >= figureHeight && full < figureHeight + 120, `height ${full} for a figure of ${figureHeight}`);
  for (const key of ['n', 'dk', 'seed']) await p.page.click(`[data-figure="jacobian"] [data-embed-control="${key}"]`);
  assert.match(await code(), /embed=jacobian&amp;controls=div,alpha&amp;alpha=2"/);
  const fewer = Number((await code()).match(/height="(\d+)"/)[1]);
  assert.ok(fewer < full, `fewer controls, a shorter start (${fewer} < ${full})`);
  for (const key of ['div', 'alpha']) await p.page.click(`[data-figure="jacobian"] [data-embed-control="${key}"]`);
  assert.match(await code(), /embed=jacobian&amp;hide=controls&amp;alpha=2"/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

/** Whether every canvas of every figure holds a drawing: [figure, canvas] of those that do not. */
async function blankCanvases(page) {
  return page.$$eval('[data-figure] canvas[data-canvas]', (cs) => cs.filter((c) => {
    if (c.closest('[hidden]')) return false;
    const g = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let k = 3; k < g.length; k += 4) if (g[k] !== 0) return false;
    return true;
  }).map((c) => `${c.closest('[data-figure]').dataset.figure}/${c.dataset.canvas}`));
}

test('a printed handout: no controls, buttons or notices; every figure\'s canvases drawn, its caption and its link; light even from dark; a PDF', async () => {
  const p = await openPage(env, { colorScheme: 'dark' });
  await p.goto('?alpha=3&theme=dark&bogus=1&n=999');
  await p.page.emulateMedia({ media: 'print', colorScheme: 'dark' });
  await p.page.waitForFunction(() => !document.querySelector('[data-formula="pending"]') && document.documentElement.dataset.theme === 'light');
  await p.page.waitForFunction(() => document.querySelectorAll('[data-print-link]').length === document.querySelectorAll('[data-figure]').length);
  const state = await p.page.evaluate(() => ({
    controls: [...document.querySelectorAll('.figure-controls, .figure-actions, .notices, .theme-switch, button')].filter((e) => getComputedStyle(e).display !== 'none').length,
    captions: [...document.querySelectorAll('[data-figure]')].filter((f) => f.querySelector('figcaption').getBoundingClientRect().height > 0).length,
    figures: document.querySelectorAll('[data-figure]').length,
    links: [...document.querySelectorAll('[data-print-link] a')].map((a) => a.getAttribute('href')),
    background: getComputedStyle(document.body).backgroundColor,
  }));
  assert.equal(state.controls, 0, 'nothing to press on paper');
  assert.equal(state.captions, state.figures, 'every caption prints');
  assert.equal(state.figures, figureIds().length);
  assert.ok(state.links.every((l) => l.includes('alpha=3') && l.includes('#')), state.links.join('\n'));
  assert.equal(state.background, 'rgb(255, 255, 255)', 'dark prints light');
  // The canvases were drawn again in the light palette: a chart's background is white.
  const corner = await p.page.$eval('[data-figure="jacobian-vs-dk"] canvas[data-canvas]', (c) => [...c.getContext('2d').getImageData(1, 1, 1, 1).data]);
  assert.deepEqual(corner.slice(0, 3), [255, 255, 255]);
  assert.deepEqual(await blankCanvases(p.page), []);
  const pdf = await p.page.pdf({ format: 'A4', printBackground: true });
  assert.ok(pdf.length > 50000 && pdf.subarray(0, 5).toString() === '%PDF-', `a PDF of ${pdf.length} bytes`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a link to a figure of any pass lands on it, without the reader scrolling, and stays there', async () => {
  const p = await openPage(env, { viewport: { width: 1280, height: 900 } });
  for (const id of ['jacobian-vs-dk', 'flops-vs-context', 'lora', 'gradient-ab']) {
    // The page's own load, not the harness's (which scrolls every pass in first).
    await p.page.goto(`${env.site.url}?theme=light#${id}`);
    await p.page.waitForSelector(`[data-figure="${id}"] canvas[data-draws]`, { timeout: 30000 });
    const top = () => p.page.$eval(`#${id}`, (e) => e.getBoundingClientRect().top);
    await p.page.waitForFunction((f) => { const t = document.getElementById(f)?.getBoundingClientRect().top; return t !== undefined && t >= -2 && t <= 96; }, id, { timeout: 10000 });
    // Passes above it may still arrive and grow: the page keeps the figure in place.
    await p.page.waitForTimeout(1500);
    const at = await top();
    assert.ok(at >= -2 && at <= 96, `#${id} is at the top of the screen (${at} px)`);
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

for (const viewport of [{ width: 900, height: 800 }, { width: 375, height: 700 }]) test(`at ${viewport.width} px, iframes written by hand below the fold (no height, no loading attribute) get their final height before the reader scrolls`, async () => {
  // A course page as an instructor or an LMS writes it: a long block of reading, then the
  // main figure of each pass in a bare iframe (150 px tall by CSS), and the resize
  // listener of docs/instructors.md. Served from a second origin.
  const figures = ['jacobian', 'memory-vs-context', 'score-rank', 'gradient-flow'];
  const dir = mkdtempSync(join(tmpdir(), 'handwave-lms-'));
  const frames = figures.map((f) => `<iframe src="${env.site.url}?embed=${f}" title="${f}" style="width:100%;border:0"></iframe>`).join('\n');
  writeFileSync(join(dir, 'index.html'), `<!doctype html><html><head><meta charset="utf-8"><title>Week 7</title><link rel="icon" href="data:,"></head><body>
<div style="height:1200px">Reading for this week.</div>
${frames}
<script>
  window.__resizes = [];
  addEventListener('message', (event) => {
    if (event.data?.type !== 'handwave:resize') return;
    const height = Number(event.data.height);
    if (!Number.isFinite(height) || height <= 0) return;
    window.__resizes.push([event.data.figure, height, performance.now()]);
    for (const frame of document.querySelectorAll('iframe')) {
      if (frame.contentWindow === event.source) frame.style.height = Math.ceil(height) + 'px';
    }
  });
</script></body></html>`);
  const lms = await serveDist({ root: dir, prefix: '/lms/' });
  const p = await openPage(env, { viewport });
  try {
    await p.page.goto(lms.url);
    // No scrolling: every iframe's height arrives within a few seconds.
    await p.page.waitForFunction((n) => new Set(window.__resizes.map(([f]) => f)).size === n, figures.length, { timeout: 10000 })
      .catch(async () => { throw new Error(`heights before scrolling: ${JSON.stringify(await p.page.evaluate(() => window.__resizes))}`); });
    assert.equal(await p.page.evaluate(() => scrollY), 0, 'the reader has not scrolled');
    await p.page.waitForTimeout(1500);
    const early = Object.fromEntries(await p.page.evaluate(() => window.__resizes.map(([f, h]) => [f, h])));
    for (const [i, figure] of figures.entries()) {
      assert.ok(early[figure] > 300, `${figure}: the early height ${early[figure]} is a figure's`);
      const element = (await p.page.$$('iframe'))[i];
      await element.evaluate((f) => f.scrollIntoView({ block: 'start' }));
      const frame = await element.contentFrame();
      await frame.waitForSelector('[data-figure] canvas[data-draws]', { timeout: 30000 });
      await frame.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 60000 });
      await settle(frame);
      const final = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      assert.ok(Math.abs(final - early[figure]) <= 24, `${figure}: early ${early[figure]} px against ${final} px once scrolled to`);
      const shown = await element.evaluate((f) => f.getBoundingClientRect().height);
      assert.ok(Math.abs(shown - final) <= 24, `${figure}: the iframe is ${shown} px for a ${final} px figure`);
    }
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
    lms.server.close();
  }
});
