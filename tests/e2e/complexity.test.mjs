// Timed: this suite measures the page's speed (or waits on workers that do), so
// scripts/test.sh runs it alone, after the suites that run two at a time.
// Pass 2 end to end: memory and FLOPs figures follow every control and agree with values
// computed by hand; a URL restores model and context; an invalid custom configuration is
// named in the page; the in-browser measurement runs, fits an exponent and can be cancelled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settle, readout, canvasPixels, reveal, download } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const MEM = '[data-canvas="memory-vs-context"]';
const FLOPS = '[data-canvas="flops-vs-context"]';

test('defaults: Llama-2-7B at 4096 tokens in bf16, read out exactly', async () => {
  const p = await openPage(env);
  await p.goto('');
  assert.equal(await readout(p.page, 'score-bytes'), 32 * 4096 * 4096 * 2); // 1 GiB
  assert.equal(await readout(p.page, 'kv-bytes'), 524288 * 4096); // 2 GiB
  assert.equal(await readout(p.page, 'flash-bytes'), 32 * 4096 * 4);
  assert.equal(await readout(p.page, 'weights-bytes'), 6738415616 * 2);
  assert.equal(await readout(p.page, 'score-growth'), 4);
  assert.equal(await readout(p.page, 'kv-growth'), 2);
  assert.equal(await readout(p.page, 'crossover-n'), 24704);
  assert.match(await p.page.textContent('[data-readout="kv-bytes"]'), /2\.00 GiB/);
  assert.deepEqual(p.errors, []);
  await p.close();
});

async function changes(p, action, what, selectors) {
  const before = await Promise.all(selectors.map((s) => canvasPixels(p.page, s)));
  await action();
  await settle(p.page);
  const after = await Promise.all(selectors.map((s) => canvasPixels(p.page, s)));
  selectors.forEach((s, i) => assert.notEqual(after[i], before[i], `${what} changes ${s}`));
}

test('each control moves its figures', async () => {
  const p = await openPage(env);
  await p.goto('');
  await changes(p, () => p.page.selectOption('[data-control="model"]', 'llama3-8b'), 'model', [MEM, FLOPS]);
  assert.equal(await readout(p.page, 'kv-bytes'), 131072 * 4096);
  await changes(p, async () => { await p.page.focus('[data-control="ctx"]'); await p.page.keyboard.press('ArrowRight'); }, 'context', [MEM, FLOPS]);
  await reveal(p.page, '[data-control="dtype"]');
  await changes(p, () => p.page.selectOption('[data-control="dtype"]', 'fp32'), 'dtype', [MEM]);
  await changes(p, async () => { await p.page.focus('[data-control="batch"]'); await p.page.keyboard.press('End'); }, 'batch', [MEM]);
  // Batch 64, fp32, Llama-3-8B, n one quarter-octave above 4096 (round(2^12.25) = 4871).
  assert.equal(await readout(p.page, 'kv-bytes'), 64 * 2 * 32 * 8 * 128 * 4871 * 4);
  await changes(p, () => p.page.selectOption('[data-control="axes"]', 'linear'), 'axes', [MEM]);
  await reveal(p.page, '#ctl-model-flops');
  await changes(p, () => p.page.selectOption('#ctl-model-flops', 'gpt2'), 'model (FLOPs figure)', [MEM, FLOPS]);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('a URL with a model and a context restores them', async () => {
  const p = await openPage(env);
  await p.goto('?model=llama3-70b&ctx=32768&dtype=fp8&batch=4');
  assert.equal(await p.page.inputValue('[data-control="model"]'), 'llama3-70b');
  assert.equal(await p.page.inputValue('[data-control="dtype"]'), 'fp8');
  assert.equal(await readout(p.page, 'kv-bytes'), 4 * 2 * 80 * 8 * 128 * 32768 * 1);
  assert.equal(await readout(p.page, 'score-bytes'), 4 * 64 * 32768 * 32768 * 1);
  assert.match(await p.page.textContent('[data-caption="memory-vs-context"]'), /Llama-3-70B at n = 32768 tokens, batch 4, fp8/);
  // Mistral's sliding window caps the cache: doubling n past 4096 leaves it unchanged.
  await p.goto('?model=mistral-7b&ctx=65536');
  assert.equal(await readout(p.page, 'kv-growth'), 1);
  await p.close();
});

test('an invalid custom configuration is named in the page, without a panic, and can be fixed', async () => {
  const p = await openPage(env);
  await p.goto('?model=custom&ch=32&ckv=5');
  const msg = await p.page.textContent('[data-figure="memory-vs-context"] [data-config-error]');
  assert.match(msg, /kv_heads \(5\) must divide heads \(32\)/);
  assert.equal(await p.page.$('[data-readout="kv-bytes"]'), null, 'no numbers from an invalid model');
  const text = await p.page.textContent('main');
  assert.doesNotMatch(text, /NaN|Infinity/);
  await p.page.fill('[data-control="ckv"] >> nth=0', '8');
  await p.page.press('[data-control="ckv"] >> nth=0', 'Enter');
  await settle(p.page);
  assert.equal(await p.page.$('[data-config-error]'), null);
  assert.equal(await readout(p.page, 'kv-bytes'), 2 * 32 * 8 * 128 * 4096 * 2);
  // Zero heads and a NaN in the URL: notices name them, the page still works.
  await p.goto('?model=custom&ch=0&cd=NaN');
  const keys = await p.page.$$eval('[data-notice-key]', (els) => els.map((e) => e.dataset.noticeKey));
  assert.ok(keys.includes('ch') && keys.includes('cd'), `${keys}`);
  assert.ok(await p.page.$('[data-config-error]'));
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('measuring in the browser draws points, fits an exponent, keeps the page responsive', async () => {
  const p = await openPage(env);
  await p.goto('');
  await p.page.locator('[data-action="measure"]').scrollIntoViewIfNeeded();
  await p.page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    const tick = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  await p.page.click('[data-action="measure"]');
  await p.page.waitForSelector('[data-readout="exponent"]', { timeout: 60000 });
  await p.page.waitForFunction(() => /^Done/.test(document.querySelector('[data-measure-status]').textContent), null, { timeout: 120000 });
  const maxGap = await p.page.evaluate(() => { window.__stop = true; return Math.max(...window.__gaps.slice(2)); });
  const exponent = await readout(p.page, 'exponent');
  const sizes = await readout(p.page, 'measured-sizes');
  assert.ok(sizes >= 3, `sizes ${sizes}`);
  assert.ok(exponent > 1.2 && exponent < 3, `exponent ${exponent}`);
  assert.ok(maxGap < 250, `longest frame gap during the measurement ${maxGap} ms`);
  const csv = await download(p.page, '[data-figure="measured-attention"] [data-action="csv"]');
  const rows = csv.bytes.toString().trim().split('\n');
  assert.equal(rows.length, 1 + sizes);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the measurement can be cancelled', async () => {
  const p = await openPage(env);
  await p.goto('');
  await p.page.click('[data-action="measure"]');
  await p.page.waitForFunction(() => /Measuring/.test(document.querySelector('[data-measure-status]').textContent));
  await p.page.click('[data-action="cancel-measure"]');
  await p.page.waitForFunction(() => /^Cancelled/.test(document.querySelector('[data-measure-status]').textContent), null, { timeout: 20000 });
  assert.equal(await p.page.isDisabled('[data-action="measure"]'), false);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('embed view of each Pass 2 figure', async () => {
  const p = await openPage(env);
  for (const id of ['memory-vs-context', 'flops-vs-context', 'measured-attention']) {
    await p.goto(`?embed=${id}&model=gpt2`);
    assert.deepEqual(await p.page.$$eval('[data-figure]', (els) => els.map((e) => e.dataset.figure)), [id]);
    assert.equal(await p.page.$('#complexity'), null);
  }
  await p.goto('?embed=memory-vs-context&hide=controls');
  assert.equal(await p.page.$('[data-control]'), null);
  assert.deepEqual(p.errors, []);
  await p.close();
});
