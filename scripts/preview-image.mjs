// The link preview's image (static/preview.png, 1200 × 630: index.html's og:image and
// twitter:image), taken from the release build: a title band over the lab embedded as a docs page
// shows it, its stage a few seconds into the opening scenario.
//   node scripts/preview-image.mjs     (after `bash scripts/build-web.sh`; writes static/preview.png)
// It serves dist/ itself on a free port and stops the server when done. The PNG is then made
// smaller with pngquant when that is on PATH (apt-get install pngquant); keep it under 150 KB.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, ROOT, assertBuilt, launchBrowser, serveDir, sleep } from '../e2e/lib.mjs';

const OUT = join(ROOT, 'static', 'preview.png');
const [W, H] = [1200, 630];
assertBuilt();
const server = await serveDir(DIST);
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: W, height: H });
  const lab = `${server.url}?embed=1&view=stage,metrics&autoplay=0`;
  await page.setContent(`<!doctype html>
<style>
  body { margin: 0; font: 16px system-ui, sans-serif; background: #f4f6fa; }
  header { height: 74px; box-sizing: border-box; padding: 14px 28px; background: #12324f; color: #fff;
           display: flex; align-items: baseline; gap: 18px; }
  h1 { margin: 0; font-size: 34px; letter-spacing: .2px; }
  p { margin: 0; font-size: 19px; opacity: .85; }
  iframe { display: block; border: 0; width: ${W}px; height: ${H - 74}px; }
</style>
<header><h1>LLM Serving Lab</h1><p>queue → prefill → decode on a simulated GPU: TTFT, TPOT, goodput, KV cache</p></header>
<iframe src="${lab}"></iframe>`);
  const frame = page.frameLocator('iframe');
  const tid = (id) => `[data-testid="${id}"]`;
  await frame.locator(tid('key-numbers-a')).waitFor({ timeout: 30_000 });
  await frame.locator(tid('speed-10')).click();
  await frame.locator(tid('play')).click();
  await sleep(1800);
  await frame.locator(tid('play')).click();
  await sleep(400);
  await page.screenshot({ path: OUT });
} finally {
  await browser.close();
  await server.close();
}
const quant = spawnSync('pngquant', ['--force', '--skip-if-larger', '--quality=70-95', '--speed=1', '--strip', '--output', OUT, OUT], { stdio: 'inherit' });
if (quant.error) console.log('preview-image: pngquant is not on PATH: the PNG is as Chromium wrote it');
console.log(`preview-image: ${OUT} ${W}×${H}, ${statSync(OUT).size} B`);
