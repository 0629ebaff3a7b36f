// Visual regression: a screenshot of every figure at fixed URL states, compared
// pixel by pixel (in Chromium itself: no image library) with the baselines committed in
// tests/visual/. `make baselines` rewrites them on purpose (UPDATE_BASELINES=1).
// Pixel baselines belong to the renderer that made them: tests/visual/chromium.txt records
// its major version, and another version skips the comparison with a message saying so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { launch, openPage, figureIds } from './harness.mjs';

const DIR = 'tests/visual';
const UPDATE = process.env.UPDATE_BASELINES === '1';
// A pixel differs when a channel moves by more than 40 of 255; at most 0.5 % may differ.
const CHANNEL_TOLERANCE = 40;
const MAX_DIFFERING = 0.005;

// Fixed states: every figure at defaults, and some at a telling setting.
const STATES = [
  // Every figure of the registry (docs/url-state.md's table) but the one that times this
  // machine.
  ...figureIds().filter((id) => id !== 'measured-attention')
    .map((id) => ({ name: id, query: `?embed=${id}` })),
  { name: 'jacobian-saturated', query: '?embed=jacobian&alpha=20&div=0' },
  { name: 'score-rank-softmax', query: '?embed=score-rank&rshow=a&rn=24' },
  { name: 'gradient-flow-pre-norm-dark', query: '?embed=gradient-flow&res=1&norm=pre&theme=dark' },
  // A diverging map on a dark page: zero dark, the colour brightening with |value|.
  { name: 'jacobian-dark', query: '?embed=jacobian&theme=dark' },
  { name: 'low-rank-target-dark', query: '?embed=low-rank-target&theme=dark' },
];

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** Fraction of pixels that differ beyond the channel tolerance (1 when the sizes differ). */
async function differingFraction(page, a, b) {
  return page.evaluate(async ({ a, b, tol }) => {
    const load = async (b64) => { const img = new Image(); img.src = `data:image/png;base64,${b64}`; await img.decode(); return img; };
    const [x, y] = await Promise.all([load(a), load(b)]);
    if (x.width !== y.width || x.height !== y.height) return 1;
    const pixels = (img) => { const c = new OffscreenCanvas(img.width, img.height); const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, img.width, img.height).data; };
    const [p, q] = [pixels(x), pixels(y)];
    let differ = 0;
    for (let i = 0; i < p.length; i += 4) {
      if (Math.abs(p[i] - q[i]) > tol || Math.abs(p[i + 1] - q[i + 1]) > tol || Math.abs(p[i + 2] - q[i + 2]) > tol) differ++;
    }
    return differ / (p.length / 4);
  }, { a: a.toString('base64'), b: b.toString('base64'), tol: CHANNEL_TOLERANCE });
}

test('every figure matches its committed baseline screenshot', async (t) => {
  const p = await openPage(env, { viewport: { width: 1000, height: 900 } });
  const version = env.browser.version().split('.')[0];
  const recorded = existsSync(`${DIR}/chromium.txt`) ? readFileSync(`${DIR}/chromium.txt`, 'utf8').trim() : null;
  if (!UPDATE && recorded !== version) {
    t.skip(`baselines were made with Chromium ${recorded ?? '(none)'}, this is Chromium ${version}: run \`make baselines\` and commit tests/visual/`);
    await p.close();
    return;
  }
  const failures = [];
  mkdirSync(DIR, { recursive: true });
  mkdirSync('target/visual-diff', { recursive: true });
  for (const s of STATES) {
    await p.goto(s.query);
    // A training figure is compared when both its runs are done (the same run every time).
    if (await p.page.$('[data-train]')) await p.page.waitForSelector('[data-train="done"]', { timeout: 120000 });
    await p.page.evaluate(() => document.fonts.ready);
    const shot = await p.page.locator('[data-figure]').first().screenshot({ animations: 'disabled', caret: 'hide' });
    const file = `${DIR}/${s.name}.png`;
    if (UPDATE) { writeFileSync(file, shot); continue; }
    if (!existsSync(file)) { failures.push(`${s.name}: no baseline`); continue; }
    const fraction = await differingFraction(p.page, readFileSync(file), shot);
    if (fraction > MAX_DIFFERING) {
      writeFileSync(`target/visual-diff/${s.name}.png`, shot);
      failures.push(`${s.name}: ${(fraction * 100).toFixed(2)} % of pixels differ (new screenshot in target/visual-diff/)`);
    }
  }
  if (UPDATE) writeFileSync(`${DIR}/chromium.txt`, `${version}\n`);
  assert.deepEqual(p.errors, []);
  assert.deepEqual(failures, []);
  await p.close();
});

test('the comparison itself catches a change: a figure in another state differs from its baseline', async (t) => {
  if (UPDATE || !existsSync(`${DIR}/jacobian.png`)) { t.skip('no baseline to compare with'); return; }
  const p = await openPage(env, { viewport: { width: 1000, height: 900 } });
  await p.goto('?embed=jacobian&alpha=20&div=0&n=12');
  const shot = await p.page.locator('[data-figure]').first().screenshot({ animations: 'disabled', caret: 'hide' });
  assert.ok(await differingFraction(p.page, readFileSync(`${DIR}/jacobian.png`), shot) > MAX_DIFFERING);
  await p.close();
});
