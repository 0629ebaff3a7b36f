// The site as a whole: loads clean under a sub-path with no network beyond its own host,
// URL state round-trips, bad URLs give notices and still draw, the embed view, sharing,
// export, theme. Runs against dist/ (make dist) in Debian's Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle, settled, readouts, draws, loadPasses, typesetFormulas, reveal, figureIds, download } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

test('the page loads under a sub-path with no error, every figure drawn, formulas typeset', async () => {
  const p = await openPage(env);
  await p.goto('');
  const figures = await p.page.$$eval('[data-figure]', (els) => els.map((e) => e.dataset.figure));
  // The registry's figures in page order (docs/url-state.md's table, held equal to the
  // registry by a native test).
  assert.deepEqual(figures, figureIds());
  for (const c of await p.page.$$('[data-figure] canvas[data-canvas]')) {
    assert.ok(Number(await c.getAttribute('data-draws')) >= 1, 'every canvas drew');
  }
  await typesetFormulas(p.page);
  assert.ok(await p.page.$('#backprop .katex'), 'KaTeX markup present');
  assert.ok(await p.page.$('#backprop .katex-mathml math'), 'MathML present for screen readers');
  const fontOk = await p.page.evaluate(async () => { await document.fonts.ready; return [...document.fonts].some((f) => f.family.includes('KaTeX') && f.status === 'loaded'); });
  assert.ok(fontOk, 'KaTeX fonts load from the sub-path');
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.external, [], 'no request leaves the site');
  await p.close();
});

test('a figure not yet computed claims no number: each readout says "…" or already what it shows once computed, and no chart fails', async () => {
  const p = await openPage(env, { viewport: { width: 375, height: 812 } });
  // Not p.goto, which brings every figure on screen: here the heavy figures (computed only
  // on screen) are loaded but not shown.
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure] canvas[data-draws]');
  await loadPasses(p.page);
  await settle(p.page);
  // The training figures are left out of the before/after comparison: their numbers
  // change by design as they train (from step 0, measured as soon as they come near);
  // training.test.mjs checks them.
  const shown = () => p.page.evaluate(() => {
    const still = (e) => !e.closest('[data-train]');
    return {
      readouts: Object.fromEntries([...document.querySelectorAll('[data-readout]')].filter(still).map((e) => [e.dataset.readout, e.querySelector('.readout-value').textContent])),
      captions: Object.fromEntries([...document.querySelectorAll('[data-caption]')].filter(still).map((e) => [e.dataset.caption, e.textContent])),
      problems: [...document.querySelectorAll('.chart-problem')].map((e) => `${e.closest('[data-figure]').dataset.figure}: ${e.textContent}`),
      pictures: Object.fromEntries([...document.querySelectorAll('canvas[data-canvas]')].filter(still).map((c) => [c.dataset.canvas, c.getAttribute('aria-label')])),
    };
  });
  const before = await shown();
  await settled(p.page);
  const after = await shown();
  assert.deepEqual(before.problems, [], 'no chart error while waiting');
  assert.deepEqual(after.problems, []);
  const waiting = Object.keys(before.readouts).filter((k) => before.readouts[k] === '…');
  assert.ok(waiting.length >= 5, `some figures were still to compute (${waiting.join(', ')})`);
  for (const [name, text] of Object.entries(before.readouts)) {
    if (text !== '…') assert.equal(text, after.readouts[name], `readout ${name} showed ${text} before it was computed`);
    assert.notEqual(after.readouts[name], '…', `readout ${name} computed once on screen`);
  }
  // A caption or a picture's text alternative says it is waiting, or already says what it
  // will say once computed.
  const waitingText = /omputing|being computed|…/;
  for (const [id, text] of Object.entries(before.captions)) {
    if (!waitingText.test(text)) assert.equal(text, after.captions[id], `caption of ${id} before it was computed`);
  }
  for (const [name, text] of Object.entries(before.pictures)) {
    if (!waitingText.test(text)) assert.equal(text, after.pictures[name], `text alternative of canvas ${name} before it was computed`);
    assert.doesNotMatch(after.pictures[name], waitingText, `canvas ${name} says what it shows once computed`);
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('every colour bar paints its whole strip, one opaque ramp from one end of its scale to the other', async () => {
  const p = await openPage(env);
  await p.goto('');
  const bars = await p.page.$$eval('.colorbar-strip', (cs) => cs.map((c) => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const at = (i) => [...px.slice(4 * i, 4 * i + 3)];
    let transparent = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 255) transparent++;
    return { label: c.closest('.colorbar').getAttribute('aria-label'), width: c.width, height: c.height, transparent, first: at(0), last: at(c.width * c.height - 1) };
  }));
  assert.equal(bars.length, 4, 'one colour bar under each of the four heatmap figures that have one');
  for (const b of bars) {
    // The strip is stretched over its whole box: a canvas taller than the ramp would show
    // mostly transparent rows (the bar looked empty at 300×150 with one painted row).
    assert.deepEqual([b.width, b.height], [256, 1], b.label);
    assert.equal(b.transparent, 0, `${b.label}: every pixel painted`);
    assert.notDeepEqual(b.first, b.last, `${b.label}: the two ends differ in colour`);
  }
  await p.close();
});

test('a diverging heatmap keeps zero at the quiet end of the page: near-white on light, dark on dark, repainted when the theme switches', async () => {
  const p = await openPage(env);
  await p.goto('');
  // Relative luminance (WCAG) of the colour bar's middle (zero), of its ends (±¼) and of
  // the heatmap's bottom-left cell (−p₇p₀ ≈ −0.005 at the defaults: next to zero).
  const shades = () => p.page.evaluate(() => {
    const lum = ([r, g, b]) => {
      const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const bar = document.querySelector('[data-figure="jacobian"] .colorbar-strip');
    const row = bar.getContext('2d').getImageData(0, 0, bar.width, 1).data;
    const at = (i) => lum([...row.slice(4 * i, 4 * i + 3)]);
    const map = document.querySelector('canvas[data-canvas="jacobian"]');
    const cell = map.getContext('2d').getImageData(Math.floor(map.width / 16), Math.floor(map.height * 15 / 16), 1, 1).data;
    return { zero: at(Math.floor(bar.width / 2)), low: at(0), high: at(bar.width - 1), cell: lum([...cell.slice(0, 3)]), draws: Number(map.dataset.draws) };
  });
  const light = await shades();
  assert.ok(light.zero > 0.85 && light.cell > 0.85, `light: zero and a near-zero cell near-white: ${JSON.stringify(light)}`);
  assert.ok(light.low < 0.1 && light.high < 0.1, `light: the ends dark: ${JSON.stringify(light)}`);
  await p.page.click('.theme-switch');
  await settle(p.page);
  const dark = await shades();
  assert.ok(dark.draws > light.draws, 'the heatmap was repainted for the dark theme');
  assert.ok(dark.zero < 0.05 && dark.cell < 0.05, `dark: zero and a near-zero cell dark: ${JSON.stringify(dark)}`);
  assert.ok(dark.low > 0.5 && dark.high > 0.5, `dark: the ends bright: ${JSON.stringify(dark)}`);
  await p.page.click('.theme-switch');
  await settle(p.page);
  assert.deepEqual(await shades().then(({ draws, ...s }) => s), (({ draws, ...s }) => s)(light), 'back to light: the same colours as before');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('every glyph of every formula comes from a KaTeX font (the cut-down fonts miss none)', async () => {
  const p = await openPage(env);
  await p.goto('');
  await typesetFormulas(p.page);
  const cdp = await p.context.newCDPSession(p.page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
  // Elements of KaTeX's visible layout that hold text themselves.
  const marked = await p.page.evaluate(() => {
    let n = 0;
    for (const el of document.querySelectorAll('.katex-html *')) {
      if ([...el.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) { el.setAttribute('data-glyph-check', String(n)); n += 1; }
    }
    return n;
  });
  assert.ok(marked > 300, `formulas hold text (${marked} elements)`);
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: '[data-glyph-check]' });
  const fallbacks = [];
  let glyphs = 0;
  const texts = await p.page.$$eval('[data-glyph-check]', (els) => els.map((e) => e.textContent));
  for (const [i, nodeId] of nodeIds.entries()) {
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    for (const f of fonts) {
      glyphs += f.glyphCount;
      if (!f.isCustomFont || !f.familyName.startsWith('KaTeX')) fallbacks.push(`${f.familyName} for ${JSON.stringify(texts[i])}`);
    }
  }
  assert.deepEqual([...new Set(fallbacks)], [], 'a glyph fell back to another font: run `make fonts`');
  assert.ok(glyphs > 300, `glyphs drawn: ${glyphs}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('moving a control writes the URL (replacing history) and a reload restores it', async () => {
  const p = await openPage(env);
  await p.goto('');
  const historyLength = await p.page.evaluate(() => history.length);
  await reveal(p.page, '[data-control="n"]');
  await p.page.focus('[data-control="n"]');
  for (let i = 0; i < 4; i++) await p.page.keyboard.press('ArrowRight');
  await p.page.fill('[data-control="alpha"]', '200');
  await p.page.waitForFunction(() => location.search.includes('n=12'), null, { timeout: 3000 });
  await p.page.waitForFunction(() => location.search.includes('alpha='), null, { timeout: 3000 });
  assert.equal(await p.page.evaluate(() => history.length), historyLength, 'no history entry per tick');
  const before = await readouts(p.page);
  const url = p.page.url();
  assert.match(url, /\/course\/handwave\/\?/);
  await p.page.reload();
  await p.page.waitForSelector('[data-figure] canvas[data-draws]');
  await settled(p.page);
  assert.deepEqual(await readouts(p.page), before);
  assert.equal(await p.page.inputValue('[data-control="n"]'), '12');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a URL restores exactly its state, and defaults stay out of it', async () => {
  const p = await openPage(env);
  await p.goto('?n=5&dk=256&div=0&alpha=2.5&seed=77');
  assert.equal(await p.page.inputValue('[data-control="n"]'), '5');
  assert.equal(await p.page.inputValue('[data-control="dk"]'), '8');
  assert.equal(await p.page.isChecked('[data-control="div"]'), false);
  assert.equal(await p.page.inputValue('[data-control="seed"]'), '77');
  const n = await p.page.$$eval('[data-readout]', (e) => e.length);
  assert.ok(n >= 4);
  // Put everything back to defaults: the query string empties.
  await p.page.goto(env.site.url + '?n=8');
  await p.page.waitForSelector('canvas[data-draws]');
  await p.page.waitForFunction(() => location.search === '', null, { timeout: 3000 }).catch(() => {});
  await p.close();
});

test('bad values give visible, dismissible notices and the page still draws finite numbers', async () => {
  const p = await openPage(env);
  await p.goto('?n=abc&alpha=1e999&dk=7&seed=-5&z=1,2,x&embedd=1&theme=purple');
  const keys = await p.page.$$eval('[data-notice-key]', (els) => els.map((e) => e.dataset.noticeKey));
  for (const k of ['n', 'alpha', 'dk', 'seed', 'z', 'theme']) assert.ok(keys.includes(k), `notice for ${k}: ${keys}`);
  const all = await readouts(p.page);
  // `fits` is a device id by contract (docs/url-state.md); every other readout a number.
  assert.match(all.fits, /^(laptop|gpu)-\d+$|^none$/);
  const values = Object.entries(all).filter(([k]) => k !== 'fits').map(([, v]) => Number(v));
  assert.ok(values.every(Number.isFinite), `finite readouts ${values}`);
  const text = await p.page.textContent('main');
  assert.doesNotMatch(text, /NaN|Infinity/);
  for (const c of await p.page.$$('canvas[data-canvas]')) assert.ok(Number(await c.getAttribute('data-draws')) >= 1);
  await p.page.click('[data-notice-key="n"] button');
  assert.equal(await p.page.$('[data-notice-key="n"]'), null, 'dismissed');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('script-like text in the URL never becomes markup', async () => {
  const p = await openPage(env);
  await p.goto('?embed=%3Cimg%20src%3Dx%20onerror%3Dwindow.pwned%3D1%3E&n=%3Cb%3Ex%3C%2Fb%3E');
  assert.equal(await p.page.evaluate(() => window.pwned), undefined);
  assert.equal(await p.page.$('.notices img, .notices b'), null);
  assert.match(await p.page.textContent('.notices'), /<img/);
  await p.close();
});

test('embed view: one figure, its controls, hide=controls, and height messages to the parent', async () => {
  const p = await openPage(env);
  await p.goto('?embed=jacobian&n=6');
  assert.deepEqual(await p.page.$$eval('[data-figure]', (els) => els.map((e) => e.dataset.figure)), ['jacobian']);
  assert.equal(await p.page.$('#backprop'), null);
  assert.ok(await p.page.$('[data-figure="jacobian"] [data-control="n"]'));
  await p.goto('?embed=jacobian-vs-dk&hide=controls');
  assert.equal(await p.page.$('[data-control]'), null, 'controls hidden');
  // Inside an iframe, the figure posts its height.
  const src = env.site.url + '?embed=jacobian';
  await p.page.setContent(`<script>window.msgs=[];addEventListener('message',e=>msgs.push(e.data))</script><iframe src="${src}" style="width:700px;height:300px"></iframe>`);
  await p.page.waitForFunction(() => window.msgs.some((m) => m && m.type === 'handwave:resize'), null, { timeout: 15000 });
  const msg = await p.page.evaluate(() => window.msgs.find((m) => m.type === 'handwave:resize'));
  assert.equal(msg.figure, 'jacobian');
  assert.ok(msg.height > 300, `height ${msg.height}`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('copy link and copy embed code give the current state; CSV and PNG export download', async () => {
  const p = await openPage(env);
  await p.goto('?n=5&alpha=3');
  await p.page.click('[data-figure="jacobian"] [data-action="copy-embed"]');
  const snippet = await p.page.inputValue('[data-figure="jacobian"] [data-share="embed"]');
  assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/course\/handwave\/\?embed=jacobian&amp;n=5&amp;alpha=3"/);
  assert.match(snippet, /title="[^"]+"/);
  assert.match(snippet, /loading="lazy"/);
  assert.match(snippet, /width="100%"/);
  await p.page.click('[data-figure="jacobian"] [data-action="copy-link"]');
  const link = await p.page.inputValue('[data-figure="jacobian"] [data-share="link"]');
  assert.match(link, /\?n=5&alpha=3#jacobian$/);

  const csv = await download(p.page, '[data-figure="jacobian"] [data-action="csv"]');
  assert.equal(csv.name, 'handwave-jacobian.csv');
  const text = csv.bytes.toString();
  const lines = text.trim().split('\n');
  assert.equal(lines[0], 'i,j,p_i,p_j,J_ij');
  assert.equal(lines.length, 1 + 25);
  const png = await download(p.page, '[data-figure="jacobian"] [data-action="png"]');
  assert.equal(png.name, 'handwave-jacobian.png');
  const bytes = png.bytes;
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  assert.ok(bytes.length > 2000);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('dark mode: follows the system, the switch overrides it, canvases redraw in theme colours', async () => {
  const p = await openPage(env, { colorScheme: 'dark' });
  await p.goto('');
  assert.equal(await p.page.getAttribute('html', 'data-theme'), 'dark');
  const bg = await p.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(18, 20, 23)');
  const before = await draws(p.page, '[data-canvas="probabilities"]');
  await p.page.click('[data-action="theme"]');
  await settle(p.page);
  assert.equal(await p.page.getAttribute('html', 'data-theme'), 'light');
  assert.ok(await draws(p.page, '[data-canvas="probabilities"]') > before, 'chart redrew for the theme');
  await p.close();
});

test('a phone-width viewport has no horizontal scrolling', async () => {
  const p = await openPage(env, { viewport: { width: 360, height: 780 } });
  await p.goto('');
  const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `overflow ${overflow}px`);
  await p.close();
});

test('a number field shows the value the state holds after an out-of-range or unreadable entry', async () => {
  const p = await openPage(env);
  await p.goto('?sseed=999999');
  const field = '[data-figure="gradient-flow"] [data-control="sseed"]';
  // Already at the largest seed: the clamped entry leaves the state as it was.
  await p.page.fill(field, '5000000');
  await p.page.press(field, 'Enter');
  await settle(p.page);
  assert.equal(await p.page.inputValue(field), '999999');
  assert.match(p.page.url(), /sseed=999999/);
  // A fractional entry is rounded, and the field says so.
  await p.page.fill(field, '41.6');
  await p.page.press(field, 'Enter');
  await settle(p.page);
  assert.equal(await p.page.inputValue(field), '42');
  // The address bar is written at most every 150 ms: wait for it rather than for frames,
  // which under a loaded CI machine can pass before the write.
  await p.page.waitForFunction(() => /(^|[?&])sseed=42(&|$)/.test(location.search), null, { timeout: 5000 });
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the loading notice goes once the wasm starts, and stays, saying what the page needs, where it cannot load', async () => {
  const p = await openPage(env);
  await p.goto('');
  assert.equal(await p.page.$('#boot'), null, 'the notice is removed when the page starts');
  await p.close();
  // A browser that cannot start the module (here: its request fails) keeps the notice.
  const q = await openPage(env);
  await q.page.route('**/*.wasm', (route) => route.abort());
  await q.page.goto(env.site.url);
  await q.page.waitForTimeout(1500);
  const text = await q.page.$eval('#boot', (el) => (el.checkVisibility() ? el.textContent : ''));
  assert.match(text, /WebAssembly with 128-bit SIMD/);
  assert.equal(await q.page.$('[data-figure]'), null, 'no figure without the wasm');
  await q.close();
});

// Passes 2–4 are separate wasm modules (src/sections/lazy.rs, scripts/page-wasm.sh), fetched
// when their place comes within a screen of the viewport.
const PASS_MODULE = /\/split_pass(\d)\.wasm$/;

test('the first load fetches no pass module; each pass arrives when scrolled near, with its id and title held in place until then', async () => {
  const p = await openPage(env, { viewport: { width: 1280, height: 900 } });
  const fetched = [];
  p.page.on('request', (r) => { const m = PASS_MODULE.exec(r.url()); if (m) fetched.push(Number(m[1])); });
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure="jacobian"] canvas[data-draws]');
  await settle(p.page);
  assert.deepEqual(fetched, [], 'no pass module before the reader scrolls');
  const pending = await p.page.$$eval('[data-lazy-pass]', (els) => els.map((e) => [e.id, e.querySelector('h2').textContent, e.querySelector('[role="status"]').textContent]));
  assert.deepEqual(pending.map(([id]) => id), ['complexity', 'linear-algebra', 'stability']);
  assert.match(pending[2][1], /Pass 4 Stability/);
  assert.match(pending[2][2], /Loading Pass 4/);
  // Scrolling to Pass 3 fetches Pass 3 (and Pass 2 above it, now within a screen), not Pass 4.
  await p.page.$eval('#linear-algebra', (e) => e.scrollIntoView({ block: 'start' }));
  await p.page.waitForSelector('[data-figure="score-rank"] canvas[data-draws]', { timeout: 20000 });
  assert.ok(fetched.includes(3), 'Pass 3 fetched when scrolled to');
  await loadPasses(p.page);
  assert.deepEqual([...new Set(fetched)].sort(), [2, 3, 4]);
  assert.equal(await p.page.$('[data-lazy-pass]'), null, 'no placeholder left');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a link to a later pass lands on it and loads it', async () => {
  const p = await openPage(env);
  await p.page.goto(env.site.url + '?depth=12#stability');
  await p.page.waitForSelector('[data-figure="gradient-flow"] canvas[data-draws]', { timeout: 20000 });
  await settle(p.page);
  const top = await p.page.$eval('#stability', (e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 900, `#stability is on screen (top ${top})`);
  assert.equal(await p.page.inputValue('[data-figure="gradient-flow"] [data-control="depth"]'), '12', 'the URL state reaches the lazily loaded pass');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('an embedded figure of a later pass fetches its own pass module and no other', async () => {
  const p = await openPage(env);
  const fetched = [];
  p.page.on('request', (r) => { const m = PASS_MODULE.exec(r.url()); if (m) fetched.push(Number(m[1])); });
  await p.goto('?embed=lora&lr=16');
  assert.deepEqual(await p.page.$$eval('[data-figure]', (els) => els.map((e) => e.dataset.figure)), ['lora']);
  assert.deepEqual(fetched, [3]);
  assert.equal(await p.page.inputValue('[data-figure="lora"] [data-control="lr"]'), '16');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a pass module that cannot be fetched says so in its place, the rest of the page works, and Try again loads it', async () => {
  const p = await openPage(env);
  let block = true;
  await p.page.route(/split_pass4\.wasm$/, (route) => (block ? route.abort() : route.continue()));
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure="jacobian"] canvas[data-draws]');
  await p.page.$eval('#stability', (e) => e.scrollIntoView({ block: 'start' }));
  await p.page.waitForSelector('#stability[data-failed] [role="alert"]', { timeout: 20000 });
  assert.match(await p.page.textContent('#stability [role="alert"]'), /Pass 4 could not be loaded/);
  // The failure is reported to the console by the loader; nothing else went wrong.
  assert.ok(p.errors.every((e) => /console: /.test(e)), p.errors.join('\n'));
  assert.ok(!p.errors.some((e) => /pageerror|panicked|unreachable/i.test(e)), p.errors.join('\n'));
  // Pass 1 still responds.
  const before = await draws(p.page, '[data-figure="jacobian"] canvas[data-canvas]');
  await p.page.$eval('[data-figure="jacobian"]', (e) => e.scrollIntoView({ block: 'center' }));
  await p.page.focus('[data-figure="jacobian"] [data-control="alpha"]');
  await p.page.keyboard.press('ArrowRight');
  await settle(p.page);
  assert.ok(await draws(p.page, '[data-figure="jacobian"] canvas[data-canvas]') > before, 'Pass 1 redraws');
  block = false;
  await p.page.$eval('#stability', (e) => e.scrollIntoView({ block: 'start' }));
  await p.page.click('#stability [role="alert"] button');
  await p.page.waitForSelector('[data-figure="gradient-flow"] canvas[data-draws]', { timeout: 20000 });
  await p.close();
});

/** Everything fetched until every figure on the page at load has drawn and the fonts are
 * ready, without scrolling (what `make bench` calls the first load): [url, gzip bytes]. */
async function firstLoad(viewport) {
  const { gzipSync } = await import('node:zlib');
  const p = await openPage(env, { viewport });
  const responses = [];
  p.page.on('response', async (r) => {
    try { responses.push([r.url(), gzipSync(await r.body(), { level: 9 }).length]); } catch { /* a redirect has no body */ }
  });
  await p.page.goto(env.site.url);
  await p.page.waitForFunction(() => [...document.querySelectorAll('[data-figure]')].every((f) => [...f.querySelectorAll('canvas[data-canvas]')].every((c) => c.dataset.draws)));
  await p.page.evaluate(() => document.fonts.ready);
  await settle(p.page);
  return { p, responses };
}

test('the first load is under 250 KB gzip, and a first screen without a formula fetches no KaTeX font', async () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 812 }]) {
    const { p, responses } = await firstLoad(viewport);
    const total = responses.reduce((a, [, n]) => a + n, 0);
    assert.ok(total < 250000, `first load at ${viewport.width} px: ${total} bytes gzip\n${responses.map(([u, n]) => `${n} ${u}`).join('\n')}`);
    const fonts = responses.filter(([u]) => u.endsWith('.woff2')).map(([u]) => u.split('/').pop());
    assert.deepEqual(fonts, [], `no formula on the first screen at ${viewport.width} px, so no font`);
    assert.equal(await p.page.$('[data-formula="shown"]'), null, 'no formula typeset yet');
    // A formula comes near: it is typeset, with its fonts, and reads as MathML. (Pass 1's
    // derivation, where the first formulas are, arrives when scrolled near.)
    await p.page.$eval('[data-lazy-part]', (f) => f.scrollIntoView({ block: 'start' }));
    await p.page.waitForSelector('[data-formula="pending"], [data-formula="shown"]');
    await p.page.$eval('[data-formula]', (f) => f.scrollIntoView({ block: 'center' }));
    await p.page.waitForSelector('[data-formula="shown"] .katex-mathml math');
    await p.page.waitForFunction(() => [...document.fonts].some((f) => f.family.includes('KaTeX') && f.status === 'loaded'));
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});

test('a formula not yet typeset reads as its TeX, and printing fetches every pass and typesets every formula', async () => {
  const p = await openPage(env);
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure="jacobian"] canvas[data-draws]');
  await loadPasses(p.page);
  // Far from the screen (the page stands at its top), Pass 4's formulas are not typeset.
  const pending = await p.page.$eval('#stability [data-formula="pending"]', (f) => [f.getAttribute('role'), f.getAttribute('aria-label')]);
  assert.equal(pending[0], 'math');
  assert.match(pending[1], /\\[a-zA-Z]+|[a-z]_[a-z0-9{]/, 'the label is the formula\'s TeX');
  // A fresh page printed at once: the passes and parts not yet loaded are fetched.
  await p.page.goto(env.site.url);
  await p.page.waitForSelector('[data-figure="jacobian"] canvas[data-draws]');
  assert.ok(await p.page.$('[data-lazy-pass], [data-lazy-part]'), 'something is still to load');
  await p.page.emulateMedia({ media: 'print' });
  await p.page.waitForFunction(() => !document.querySelector('[data-formula="pending"], [data-lazy-pass], [data-lazy-part]'), null, { timeout: 30000 });
  assert.equal(await p.page.$$eval('[data-figure]', (f) => f.length), figureIds().length, 'every figure is on the page');
  assert.deepEqual(p.errors, []);
  await p.close();
});
