import { launch, openPage, loadPasses } from '../tests/e2e/harness.mjs';
const env = await launch();
for (const [w, h] of [[1280, 2400], [375, 2400]]) for (const scheme of ['light', 'dark']) {
  const p = await openPage(env, { viewport: { width: w, height: h }, colorScheme: scheme });
  await p.goto('');
  await loadPasses(p.page);
  await p.page.waitForTimeout(1500);
  for (const fig of (process.argv[2] ?? 'jacobian,memory-vs-context,score-rank,gradient-flow').split(',')) {
    const loc = p.page.locator(`[data-figure="${fig}"]`).first();
    await loc.scrollIntoViewIfNeeded();
    await p.page.waitForTimeout(500);
    await loc.screenshot({ path: `/tmp/shots/${fig}-${w}-${scheme}.png` });
  }
  console.log(w, scheme, p.errors);
  await p.close();
}
await env.close();
