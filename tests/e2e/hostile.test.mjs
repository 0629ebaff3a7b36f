// Bad input: hundreds (thousands in `make hardening`) of generated hostile query strings (fixed seed), each
// loaded in the page, and the whole site under a strict Content-Security-Policy.
// FUZZ_QUERIES overrides the count (default 150; `make hardening` runs 20,000); FUZZ_SEED the seed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { figureIds, launch, loadPasses, openPage, urlKeyRows } from './harness.mjs';
import { strictPolicy } from './csp.mjs';

const QUERIES = Number(process.env.FUZZ_QUERIES ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);

/** The URL table of docs/url-state.md: key → { range, options, default } (the public contract). */
function urlKeys() {
  const rows = urlKeyRows();
  return rows.map((l) => {
    const cells = l.split('|').slice(1, -1).map((c) => c.trim());
    const key = cells[0].replace(/`/g, '');
    const range = cells[cells.length - 2];
    const options = [...range.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const numeric = range.match(/([-\d.]+)–([-\d.]+)/);
    return { key, range, options, min: numeric ? Number(numeric[1]) : null, max: numeric ? Number(numeric[2]) : null, bool: range === '0 or 1' };
  });
}
const KEYS = urlKeys();
const FIGURES = figureIds();

// mulberry32: a small seeded generator, so every run tries the same queries.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCRIPTY = [
  '<script>window.__pwned=1</script>', '"><img src=x onerror="window.__pwned=1">', '<svg onload=window.__pwned=1>',
  "'><b>bold</b>", '\\href{javascript:window.__pwned=1}{x}', '$\\frac{1}{0}$', 'javascript:window.__pwned=1', '{{7*7}}',
  '<style>body{display:none}</style>', '&lt;b&gt;',
];
const NUMBERS = ['NaN', 'nan', 'Infinity', '-Infinity', 'inf', '-inf', '1e308', '-1e308', '1e309', '-0', '0', '-1', '-999999999',
  '999999999999999999999', '3.5', '0.5', '1.0e1', '.5', '5.', '+7', '0x10', '1_000', '1,5', ' 12 ', '2.0000000001', '1e-320'];
const JUNK = ['', ' ', 'abc', 'true', 'false', 'yes', 'null', 'undefined', '[]', '{}', '%00', '%ZZ', '%', '%E2%82%AC', '€', '日本',
  '\u200b', 'a'.repeat(5000), '9'.repeat(400), '1'.repeat(4097), '-'.repeat(50)];

/** One hostile query string, as raw URL text (some parts percent-encoded, some not). */
function hostileQuery(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const value = (spec) => {
    const roll = r();
    if (spec && roll < 0.25) {
      if (spec.options.length) return pick(spec.options).toUpperCase();
      if (spec.min !== null) return String(spec.min + r() * (spec.max - spec.min) * 1.4 - (spec.max - spec.min) * 0.2);
    }
    if (roll < 0.55) return pick(NUMBERS);
    if (roll < 0.8) return pick(JUNK);
    return pick(SCRIPTY);
  };
  const encode = (text) => (r() < 0.5 ? encodeURIComponent(text) : text.replace(/[#&%+=]/g, encodeURIComponent));
  const parts = [];
  const count = 1 + Math.floor(r() * 6);
  for (let i = 0; i < count; i++) {
    const roll = r();
    if (roll < 0.12) parts.push(`embed=${encode(r() < 0.6 ? pick(FIGURES) : pick(['nope', 'jacobian ', 'JACOBIAN', '', ...SCRIPTY]))}`);
    else if (roll < 0.18) parts.push(`${pick(['theme', 'hide'])}=${encode(pick(['dark', 'light', 'controls', 'x', ...SCRIPTY]))}`);
    else if (roll < 0.22) {
      // A list of controls to show: keys of the table, foreign and unknown keys, junk.
      const list = Array.from({ length: 1 + Math.floor(r() * 4) }, () => (r() < 0.6 ? pick(KEYS).key : pick([...JUNK.slice(0, 12), ...SCRIPTY, 'embed', 'controls'])));
      parts.push(`controls=${encode(list.join(r() < 0.8 ? ',' : ';'))}`);
    }
    else if (roll < 0.26) parts.push(`${encode(pick(['zz', 'foo', 'N', 'alpha ', '__proto__', 'constructor', ...SCRIPTY]))}=${encode(value(null))}`);
    else {
      const spec = pick(KEYS);
      parts.push(`${spec.key}=${encode(value(spec))}`);
      if (r() < 0.1) parts.push(`${spec.key}=${encode(value(spec))}`); // repeated key
    }
  }
  return `?${parts.join(r() < 0.05 ? '&&' : '&')}`;
}

/** Keys whose value the page must have changed (and so must name in a notice). Only the
 * certain cases: the page may add notices this misses, never omit one this finds. */
function keysThatMustBeNoticed(query) {
  const seen = new Set();
  const must = new Set();
  for (const [key, raw] of new URLSearchParams(query)) {
    const spec = KEYS.find((k) => k.key === key);
    if (!spec) continue;
    if (seen.has(key)) { must.add(key); continue; }
    seen.add(key);
    const t = raw.trim();
    let changed = false;
    if (key === 'embed') changed = !FIGURES.includes(t);
    else if (key === 'theme') changed = !['dark', 'light'].includes(t);
    else if (key === 'hide') changed = !raw.split(',').some((v) => v.trim() === 'controls');
    else if (key === 'z') changed = false; // lists: checked natively
    else if (raw.length > 4096) changed = true;
    else if (spec.bool) changed = !['1', '0', 'true', 'false', 'on', 'off', 'yes', 'no'].includes(t.toLowerCase());
    else if (spec.options.length) changed = !spec.options.some((o) => o.toLowerCase() === t.toLowerCase());
    else if (spec.min !== null) {
      const decimal = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t);
      const x = Number(t);
      changed = !decimal || !Number.isFinite(x) || x < spec.min || x > spec.max;
    }
    if (changed) must.add(key);
  }
  return [...must];
}

/** What a loaded page shows that must never be there. */
async function problemsOnPage(page) {
  return page.evaluate(() => {
    const problems = [];
    const bad = /NaN|Infinity|\binf\b/i;
    if (window.__pwned) problems.push('a script from the URL ran');
    if (document.querySelector('body script, body style, img[src="x"], svg[onload], b, [onerror], [onload]')) problems.push('markup from the URL reached the DOM');
    const canvases = [...document.querySelectorAll('canvas[data-canvas]')];
    if (!canvases.length) problems.push('no canvas');
    for (const c of canvases) if (!Number(c.dataset.draws)) problems.push(`canvas ${c.dataset.canvas} not drawn`);
    for (const el of document.querySelectorAll('[data-readout]')) {
      if (bad.test(el.textContent) || bad.test(el.dataset.value ?? '')) problems.push(`readout ${el.dataset.readout}: ${el.textContent} / ${el.dataset.value}`);
    }
    for (const el of document.querySelectorAll('.chart-problem')) {
      problems.push(`chart ${el.closest('[data-figure]')?.dataset.figure} not drawn: ${el.textContent}`);
    }
    for (const el of document.querySelectorAll('[data-caption]')) {
      if (bad.test(el.textContent)) problems.push(`caption ${el.dataset.caption}: ${el.textContent.slice(0, 120)}`);
    }
    const noticed = [...document.querySelectorAll('[data-notice-key]')].map((n) => n.dataset.noticeKey);
    return { problems, noticed, figures: document.querySelectorAll('[data-figure]').length };
  });
}

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

test(`${QUERIES} hostile query strings: no error, no NaN or infinity shown, every canvas drawn, a notice for every changed value, no markup from the URL`, async () => {
  const r = rng(SEED);
  const queries = Array.from({ length: QUERIES }, () => hostileQuery(r));
  const failures = [];
  // Two lanes at once: the machine has two cores. Each lane opens a fresh page (a new
  // browser context, so a new renderer process) every PAGE_LOADS_PER_TAB queries: one tab
  // navigated through hundreds of WebAssembly pages keeps the old ones (back-forward cache,
  // garbage not yet collected) and has been refused a new Wasm memory ("Out of memory:
  // Cannot allocate Wasm memory"), a limit of the test's tab and not of any reader's page.
  const PAGE_LOADS_PER_TAB = 25;
  // A page that takes this long has stalled: on a loaded 2-core machine the slowest
  // hostile state (an embedded sweep at its largest) draws in a few seconds.
  const ready = (page) => page.waitForFunction(() => {
    const cs = [...document.querySelectorAll('canvas[data-canvas]')];
    return cs.length > 0 && cs.every((c) => c.dataset.draws) && !document.querySelector('[aria-busy="true"]');
  }, null, { timeout: 60000 });
  // What a page that did not finish was still waiting for.
  const waitingFor = (page) => page.evaluate(() => JSON.stringify({
    undrawn: [...document.querySelectorAll('canvas[data-canvas]')].filter((c) => !c.dataset.draws).map((c) => c.dataset.canvas),
    busy: [...document.querySelectorAll('[aria-busy="true"]')].map((e) => e.closest('[data-figure]')?.dataset.figure ?? e.tagName),
    worker: document.documentElement.dataset.worker ?? 'not started',
  })).catch((e) => `(unreadable: ${e.message.split('\n')[0]})`);
  let next = 0;
  await Promise.all([0, 1].map(async () => {
    let p = null;
    let loads = 0;
    while (next < queries.length && failures.length < 10) {
      const query = queries[next++];
      if (loads++ % PAGE_LOADS_PER_TAB === 0) {
        await p?.close();
        p = await openPage(env);
      }
      p.errors.length = 0;
      try {
        await p.page.goto(env.site.url + query);
        // Every pass, as a reader scrolling down would bring it (Passes 2–4 load lazily).
        await p.page.waitForSelector('[data-figure] canvas[data-draws]', { timeout: 60000 });
        await loadPasses(p.page);
        await ready(p.page);
      } catch (e) {
        failures.push(`${query.slice(0, 300)}: did not finish drawing (${e.message.split('\n')[0]}); waiting for ${await waitingFor(p.page)}; errors: ${p.errors.join('; ').slice(0, 300)}`);
        continue;
      }
      const { problems, noticed } = await problemsOnPage(p.page);
      const missing = keysThatMustBeNoticed(query).filter((k) => !noticed.includes(k));
      if (missing.length) problems.push(`no notice for ${missing.join(', ')}`);
      problems.push(...p.errors);
      if (problems.length) failures.push(`${query.slice(0, 300)}: ${problems.join('; ').slice(0, 600)}`);
    }
    await p?.close();
  }));
  assert.deepEqual(failures, []);
});

test('an unknown embed id names itself in a notice and shows the whole page', async () => {
  const p = await openPage(env);
  await p.goto('?embed=%3Cb%3Enope%3C%2Fb%3E');
  const { problems, noticed, figures } = await problemsOnPage(p.page);
  assert.deepEqual(problems, []);
  assert.ok(noticed.includes('embed'));
  assert.equal(figures, FIGURES.length);
  assert.match(await p.page.textContent('[data-notice-key="embed"]'), /<b>nope/, 'the id is shown as text');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the whole site works under a strict Content-Security-Policy, worker included, with no violation', async () => {
  const strict = await launch({ csp: strictPolicy() });
  try {
    // n = 128: Pass 3 sends decompositions that large to its worker (smaller ones run at once).
    for (const query of ['?rn=128', '?embed=score-rank&rn=128', '?embed=gradient-flow']) {
      const p = await openPage(strict);
      await p.page.addInitScript(() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      await p.goto(query);
      const policy = await p.page.evaluate(async () => (await fetch(location.href)).headers.get('content-security-policy'));
      assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'/, 'the policy was delivered');
      assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'/);
      assert.deepEqual(await p.page.evaluate(() => window.__violations), [], `no violation for ${query || 'the page'}`);
      assert.deepEqual(p.errors, []);
      const { problems } = await problemsOnPage(p.page);
      assert.deepEqual(problems, []);
      if (query !== '?embed=gradient-flow') {
        assert.equal(await p.page.getAttribute('html', 'data-worker'), 'ready', 'Pass 3 ran in its Web Worker');
      }
      assert.equal(await p.page.$$eval('[style]', (els) => els.filter((e) => e.tagName !== 'CANVAS').length), 0, 'no inline style attributes (KaTeX styles are classes)');
      await p.close();
    }
  } finally {
    await strict.close();
  }
});

test('extreme but valid settings draw finite figures and name saturation, vanishing, explosion and overflow', async () => {
  const p = await openPage(env);
  const cases = [
    { query: '?n=64&dk=1024&alpha=50&div=0', captions: { jacobian: /Saturated/ } },
    { query: '?ctx=1048576&model=llama3-70b&batch=64&dtype=fp32', captions: { 'memory-vs-context': /PiB/, 'flops-vs-context': /past the crossover/ } },
    { query: '?rn=256&rdk=256&rk=256&mhd=128&mhh=8&lshape=custom&lout=65536&lin=65536&lr=256&ldecay=3', captions: { 'score-rank': /no higher than S/, 'low-rank-target': /exact/ } },
    { query: '?n=2&dk=1&alpha=0.05&rn=2&rdk=1&rk=1&mhd=16&mhh=1&lr=1&ldecay=0&depth=1&dmodel=16&heads=1&seq=4&rho=0.1', captions: { 'gradient-flow': /Stable: bottom over top is 1\.00/ } },
    { query: '?res=1', captions: { 'gradient-flow': /Exploded/ } },
    { query: '?depth=128&gain=0.25', captions: { 'gradient-flow': /Vanished.*underflowed to exactly 0/, 'depth-sweep': /0 \(underflow\) at L = 128/ } },
    { query: '?depth=128&dmodel=64&heads=4&seq=16&gain=2&res=1', captions: { 'gradient-flow': /Overflow: .* at layer \d+/, 'depth-sweep': /overflow at L = 128/ } },
  ];
  for (const c of cases) {
    await p.goto(c.query);
    const { problems } = await problemsOnPage(p.page);
    assert.deepEqual(problems, [], c.query);
    for (const [figure, pattern] of Object.entries(c.captions)) {
      assert.match(await p.page.textContent(`[data-caption="${figure}"]`), pattern, `${figure} at ${c.query}`);
    }
  }
  assert.deepEqual(p.errors, []);
  await p.close();
});
