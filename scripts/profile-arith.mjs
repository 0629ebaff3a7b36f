// Profiling aid (not a test): a CDP CPU profile of the Pass 4 arithmetic alone (the
// page's export time_gradient_stack: default 32-block stacks, forward and backward),
// printed as the functions with the most self time. Build a dist that keeps wasm names
// first (see scripts/profile.mjs). Usage: node scripts/profile-arith.mjs <dist dir> [stacks]
import { openWasmPage } from './wasm-page.mjs';

const [root, stacksArg = '200'] = process.argv.slice(2);
const { page, close } = await openWasmPage(root);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
const ms = await page.evaluate((n) => window.__wasm.time_gradient_stack(32, n), Number(stacksArg));
const { profile } = await cdp.send('Profiler.stop');
const self = new Map();
const dt = new Map();
profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
for (const node of profile.nodes) {
  const us = dt.get(node.id) ?? 0;
  const name = node.callFrame.functionName || `(${node.callFrame.url.split('/').pop()})`;
  self.set(name, (self.get(name) ?? 0) + us);
  if (name !== '(idle)' && name !== '(program)') total += us;
}
console.log(`${stacksArg} stacks, ${ms.toFixed(2)} ms each; busy ${(total / 1000).toFixed(0)} ms sampled`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${(100 * us / total).toFixed(1).padStart(5)} %  ${name.slice(0, 150)}`);
}
await close();
