import { launch, openPage } from '/work/main/tests/e2e/harness.mjs';
const env = await launch();
const p = await openPage(env, { viewport: { width: 1280, height: 900 } });
await p.page.addInitScript(() => {
  window.__log = [];
  const t0 = performance.now();
  const tick = () => {
    const ab = document.getElementById('gradient-ab');
    const fl = document.querySelector('[data-figure="gradient-flow"]');
    const entry = `${Math.round(performance.now() - t0)} y=${Math.round(scrollY)} ab=${ab ? Math.round(ab.getBoundingClientRect().top) : '-'} flowH=${fl ? Math.round(fl.getBoundingClientRect().height) : '-'} H=${document.documentElement.scrollHeight}`;
    if (window.__log[window.__log.length - 1]?.slice(entry.indexOf(' ')) !== entry.slice(entry.indexOf(' '))) window.__log.push(entry);
    if (performance.now() - t0 < 4000) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});
await p.page.goto(`${env.site.url}?theme=light#gradient-ab`);
await p.page.waitForTimeout(4500);
console.log((await p.page.evaluate(() => window.__log)).join('\n'));
await p.close(); await env.close();
