// Benchmark (not a test): the Pass 4 arithmetic alone in the built page's wasm, through its
// export time_gradient_stack (default 32-block stacks, forward and backward, weights
// drawn). Prints ms per stack, best and median of several rounds.
// Usage: node scripts/arith-time.mjs [dist dir] [rounds] [stacks per round]
import { openWasmPage } from './wasm-page.mjs';

const [root = 'dist', roundsArg = '15', stacksArg = '40'] = process.argv.slice(2);
const { page, close } = await openWasmPage(root);
const times = [];
for (let r = 0; r < Number(roundsArg); r++) {
  times.push(await page.evaluate((n) => window.__wasm.time_gradient_stack(32, n), Number(stacksArg)));
}
times.sort((a, b) => a - b);
console.log(`Pass 4 arithmetic in wasm (depth-32 default stack, forward + backward): ${times[0].toFixed(2)} ms at best, ${times[times.length >> 1].toFixed(2)} ms median of ${times.length} rounds`);
await close();
