// The fine-tuning memory figure end to end: its readouts at defaults and at each paper's
// set-up against the papers' numbers (within 15 %), the verdict, a pasted config.json
// filling Pass 2 and this figure, a broken one refused with a message and nothing changed,
// the address round trip, CSV export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, settled, readout, readouts, reveal, download } from './harness.mjs';

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const FIG = '[data-figure="finetune-memory"]';
const GB = 1e9;
const GIB = 2 ** 30;
const within = (actual, expected, tolerance) => Math.abs(actual / expected - 1) <= tolerance;

async function load(p, query) {
  await p.goto(query);
  await p.page.waitForSelector(`${FIG} [data-readout="bytes-full"]`);
  await settled(p.page);
}

test('at defaults: QLoRA on Llama-3-70B fits a 48 GB GPU, not a 16 GB laptop; full fine-tuning fits nothing', async () => {
  const p = await openPage(env);
  await load(p, '?embed=finetune-memory');
  const r = await readouts(p.page);
  const qlora = Number(r['bytes-qlora']);
  assert.ok(qlora > 36 * GIB && qlora <= 48 * GIB, `QLoRA ${qlora / GIB} GiB`);
  assert.equal(r.fits, 'gpu-48');
  assert.ok(Number(r['bytes-full']) > 1e12, 'full fine-tuning of 70B is over a terabyte');
  assert.ok(Number(r['bytes-lora']) > 128 * GIB, 'LoRA keeps a 16-bit 70B base');
  assert.match(await p.page.textContent(`${FIG} [data-verdict-text]`), /smallest listed device it fits is a workstation GPU, 48 GB/);
  assert.ok(Number(await p.page.getAttribute(`${FIG} canvas[data-canvas]`, 'data-draws')) >= 1);
  await load(p, '?embed=finetune-memory&ftmethod=full');
  assert.equal((await readouts(p.page)).fits, 'none');
  assert.match(await p.page.textContent(`${FIG} [data-verdict-text]`), /fits none of the listed devices/);
  await load(p, '?embed=finetune-memory&ftmodel=llama3-8b');
  assert.notEqual((await readouts(p.page)).fits, 'none', 'QLoRA of an 8B model fits a listed device');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test("the LoRA paper's GPT-3 set-up reads 1.2 TB → 350 GB and 10,000× fewer trained parameters, within 15 %", async () => {
  const p = await openPage(env);
  await load(p, '?embed=finetune-memory&ftmodel=gpt3-175b&ftr=4&fttarget=qv&ftopt=lean&ftseq=2048&ftmethod=lora');
  const full = await readout(p.page, 'bytes-full');
  const lora = await readout(p.page, 'bytes-lora');
  assert.ok(within(full, 1.2e12, 0.15), `full ${full / GB} GB`);
  assert.ok(within(lora, 350 * GB, 0.15), `LoRA ${lora / GB} GB`);
  const trained = await readout(p.page, 'trainable-params');
  assert.ok(within(175e9 / trained, 10000, 0.15), `${175e9 / trained}×`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test("the QLoRA paper's LLaMA-65B set-up reads more than 780 GB for 16-bit full fine-tuning and under 48 GB with QLoRA", async () => {
  const p = await openPage(env);
  await load(p, '?embed=finetune-memory&ftmodel=llama-65b&ftr=64&fttarget=all&ftopt=half&ftseq=512');
  const full = await readout(p.page, 'bytes-full');
  const qlora = await readout(p.page, 'bytes-qlora');
  assert.ok(full > 780 * GB && within(full, 780 * GB, 0.15), `full ${full / GB} GB`);
  assert.ok(qlora < 48 * GB && within(qlora, 48 * GB, 0.15), `QLoRA ${qlora / GB} GB`);
  // Double quantisation off: about 3 GB more.
  const withDq = qlora;
  await load(p, '?embed=finetune-memory&ftmodel=llama-65b&ftr=64&fttarget=all&ftopt=half&ftseq=512&ftdq=0');
  const saved = (await readout(p.page, 'bytes-qlora')) - withDq;
  assert.ok(within(saved, 3 * GB, 0.15), `double quantisation saves ${saved / GB} GB`);
  assert.deepEqual(p.errors, []);
  await p.close();
});

const LLAMA2_CONFIG = JSON.stringify({
  architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
  max_position_embeddings: 4096, model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 32,
  num_key_value_heads: 32, rms_norm_eps: 1e-5, tie_word_embeddings: false, vocab_size: 32000,
});

async function paste(page, scope, text) {
  const area = `${scope} [data-action="config-json-text"]`;
  await reveal(page, area);
  await page.fill(area, text);
  await page.click(`${scope} [data-action="config-json-fill"]`);
}

test('a pasted config.json fills Pass 2 and this figure; a broken one says which field and changes nothing', async () => {
  const p = await openPage(env);
  const memory = '[data-figure="memory-vs-context"]';
  await p.goto('?model=custom&ftmodel=llama2-7b#complexity');
  await p.page.waitForSelector(`${memory} [data-config-json]`);
  await settled(p.page);
  const llama2Full = await readout(p.page, 'bytes-full');
  await paste(p.page, memory, LLAMA2_CONFIG);
  await p.page.waitForSelector(`${memory} [data-config-json-said="ok"]`);
  await p.page.waitForFunction(() => location.search.includes('ftmodel=custom') && location.search.includes('cff=11008'), null, { timeout: 5000 });
  await settled(p.page);
  assert.equal(await p.page.inputValue(`${memory} [data-control="cff"]`), '11008');
  assert.equal(await p.page.inputValue(`${FIG} [data-control="ftmodel"]`), 'custom');
  // The custom copy of Llama-2-7B costs exactly what the preset does.
  assert.equal(await readout(p.page, 'bytes-full'), llama2Full);
  const before = await p.page.evaluate(() => location.search);
  const broken = [
    ['{"hidden_size": 4096,', /not a config\.json/],
    [LLAMA2_CONFIG.replace('"num_hidden_layers":32', '"num_hidden_layers":100000'), /num_hidden_layers is 100000/],
    [LLAMA2_CONFIG.replace('"vocab_size":32000', '"vocab":1'), /vocab_size/],
    [LLAMA2_CONFIG.replace('"hidden_size":4096', '"hidden_size":"big"'), /hidden_size should be a whole number/],
  ];
  for (const [text, message] of broken) {
    await paste(p.page, memory, text);
    await p.page.waitForSelector(`${memory} [data-config-json-said="error"]`);
    assert.match(await p.page.textContent(`${memory} [data-config-json-said="error"]`), message);
    await settled(p.page);
    assert.equal(await p.page.evaluate(() => location.search), before, 'a refused file changes nothing');
  }
  assert.ok(!(await p.page.evaluate(() => location.search)).includes('hidden_size'), 'the address keeps the fields, not the JSON');
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('the address round trip restores every setting; CSV export has one row per method', async () => {
  const p = await openPage(env);
  const query = '?embed=finetune-memory&ftmodel=mistral-7b&ftmethod=lora&ftr=64&fttarget=qv&ftbatch=4&ftseq=4096&ftckpt=0&ftopt=half&ftdq=0';
  await load(p, query);
  const first = await readouts(p.page);
  for (const [key, value] of [['ftmodel', 'mistral-7b'], ['ftmethod', 'lora'], ['fttarget', 'qv'], ['ftopt', 'half']]) {
    assert.equal(await p.page.inputValue(`${FIG} [data-control="${key}"]`), value);
  }
  await p.page.reload();
  await p.page.waitForSelector(`${FIG} [data-readout="bytes-full"]`);
  await settled(p.page);
  assert.deepEqual(await readouts(p.page), first);
  const csv = await download(p.page, `${FIG} [data-action="csv"]`);
  assert.equal(csv.name, 'handwave-finetune-memory.csv');
  const text = csv.bytes.toString();
  const rows = text.trim().split('\n').filter((l) => !l.startsWith('#'));
  assert.equal(rows[0], 'method,weights,master_weights,gradients,optimiser_states,adapters,quantisation_constants,activations,total_bytes,trainable_params');
  assert.deepEqual(rows.slice(1).map((r) => r.split(',')[0]), ['full', 'lora', 'qlora']);
  assert.equal(Number(rows[2].split(',')[8]), Number(first['bytes-lora']));
  // Clamped, not broken: an absurd rank and sequence length.
  await load(p, '?embed=finetune-memory&ftr=99999&ftseq=1');
  assert.equal(await p.page.inputValue(`${FIG} [data-control="ftr"]`).then(Number).then((v) => v > 0), true);
  assert.ok(await p.page.$('.notice, [data-notice]'), 'a notice names the clamped values');
  assert.deepEqual(p.errors, []);
  await p.close();
});
