// The page before its module arrives: the static layout in index.html (scripts/prerender.mjs) is
// what the page mounts, in the visitor's language, so nothing moves when the page takes its place;
// the first-frame module animates the stage on it meanwhile, and the page carries the run on from
// where that module got to.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, artifact, tid, useLab } from './lib.mjs';

const MOUNTED = 'lab:page-mounted';
const FIRST_FRAME = 'lab:first-animated-frame';

/** Elements whose place and size the static layout must share with the mounted page. */
const PARTS = ['header.top', '.toolbar', '.phone-bar', '.start-here', '.workbench', '.stage-head', 'canvas.stage'];
/** Columns whose place must not change (their height follows the numbers they fill in, so on a
 * phone, where they stand one below the other, a column below the first screen may move down). */
const COLUMNS = ['.controls-col', '.stage-col', '.metrics-col'];

/** Each part's box (x, y, width, height; a column's without height, and without y when it starts
 * below the first screen; null when absent or not shown), rounded to 0.5 px. */
function boxes(page) {
  return page.evaluate(
    ([parts, columns]) => {
      const r = (v) => Math.round(v * 2) / 2;
      const box = (sel) => {
        const b = document.querySelector(sel)?.getBoundingClientRect();
        return !b || b.width === 0 ? null : [r(b.x), r(b.y), r(b.width), r(b.height)];
      };
      return Object.fromEntries([
        ...parts.map((sel) => [sel, box(sel)]),
        ...columns.map((sel) => {
          const b = box(sel);
          return [sel, b && (b[1] < innerHeight ? b.slice(0, 3) : [b[0], b[2]])];
        }),
      ]);
    },
    [PARTS, COLUMNS],
  );
}

/**
 * Opens `target` with the page's module held back: resolves to { page, errors, release }, the
 * static layout on screen; `release()` lets the module load and waits until the page has mounted.
 */
async function openHeld(lab, target, { viewport, init } = {}) {
  const page = await lab.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  if (viewport) await page.setViewportSize(viewport);
  if (init) await page.addInitScript(init);
  const held = [];
  let holding = true;
  await page.route('**/app_bg.wasm', (route) => (holding ? held.push(route) : route.continue()));
  await page.goto(lab.href(target), { waitUntil: 'commit' });
  const release = async () => {
    holding = false;
    for (const route of held.splice(0)) await route.continue();
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, MOUNTED, { timeout: 30_000 });
    await page.locator(tid('stage')).first().waitFor();
  };
  return { page, errors, release };
}

// the layout is parsed and its chooser (an inline script after it) has run: the page is no
// longer loading, and a Chinese layout fetched by the chooser has replaced the English one
const staticShown = (page) =>
  page.waitForFunction(
    () =>
      document.readyState !== 'loading' &&
      document.querySelector('[data-first-paint] h1') &&
      !document.documentElement.classList.contains('first-paint-wait'),
    null,
    { timeout: 15_000 },
  );

describe('the static layout and the first frame', { timeout: 240_000 }, () => {
  const lab = useLab();

  test('no style sheet selects by test id (the static layout has none: it would look otherwise)', () => {
    const dir = join(ROOT, 'static');
    const sheets = readdirSync(dir).filter((f) => f.endsWith('.css'));
    assert.ok(sheets.length > 5, `${sheets.length} style sheets in static/`);
    for (const f of sheets) {
      const hits = readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.includes('data-testid'));
      assert.deepEqual(hits, [], `static/${f} styles by test id`);
    }
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`at ${viewport.width} px the stage moves before the page arrives, and nothing moves when it mounts`, async () => {
      const { page, errors, release } = await openHeld(lab, '', { viewport });
      await staticShown(page);
      // the first-frame module animates the opening stage on the static layout's canvas
      await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, FIRST_FRAME, { timeout: 15_000 });
      await page.waitForFunction(() => window.labFirst?.first_time_us() > 500_000, null, { timeout: 15_000 });
      assert.equal(await page.locator('[data-first-paint] canvas#stage').getAttribute('data-layout') !== null, true);
      assert.equal(await page.evaluate(() => window.wasmBindings), undefined, 'the page module is held back');
      // and writes the headline numbers into it: the simulated time, the latency table, the keys
      const number = (id) => `[data-first-paint] [data-first-number="${id}"]`;
      await page.waitForFunction(
        ([t, p50, key]) =>
          parseFloat(document.querySelector(t)?.textContent) > 0.5 &&
          /\d/.test(document.querySelector(p50)?.textContent ?? '') &&
          /\d/.test(document.querySelector(key)?.textContent ?? ''),
        [number('sim-time'), number('metric-ttft-p50'), number('key-ttft-value')],
        { timeout: 15_000 },
      );
      const before = await boxes(page);
      await page.screenshot({ path: await artifact(`static-layout-${viewport.width}.png`) });
      const reached = await page.evaluate(() => window.labFirst.first_time_us());
      await release();
      assert.equal(await page.locator('[data-first-paint]').count(), 0, 'the static layout is gone');
      const after = await boxes(page);
      for (const part of [...PARTS, ...COLUMNS]) {
        assert.deepEqual(after[part], before[part], `${part} moved or changed size when the page mounted`);
      }
      // the page's run goes on from where the first-frame module's was, not from t = 0
      const s = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_stats()));
      assert.ok(s.sim_time_s * 1e6 >= reached, `the page's run is at ${s.sim_time_s} s, the first module's reached ${reached} µs`);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('in Chinese (locale=zh), the static layout is the Chinese page, and it does not change when the page mounts', async () => {
    const { page, errors, release } = await openHeld(lab, '?locale=zh', { viewport: { width: 1280, height: 800 } });
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN', null, { timeout: 15_000 });
    await staticShown(page);
    const title = await page.locator('[data-first-paint] h1').textContent();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    const before = await boxes(page);
    await release();
    assert.equal(await page.locator('h1').first().textContent(), title, 'the static title is the page\'s Chinese title');
    assert.match(title, /[\u4e00-\u9fff]/);
    const after = await boxes(page);
    for (const part of [...PARTS, ...COLUMNS]) assert.deepEqual(after[part], before[part], `${part} moved in Chinese`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('in the projector profile (contrast=high), the static layout has its looks and sizes from the start', async () => {
    const { page, errors, release } = await openHeld(lab, '?contrast=high', { viewport: { width: 1280, height: 800 } });
    await staticShown(page);
    assert.equal(await page.evaluate(() => document.body.classList.contains('projector')), true);
    const before = await boxes(page);
    await release();
    const after = await boxes(page);
    for (const part of [...PARTS, ...COLUMNS]) assert.deepEqual(after[part], before[part], `${part} moved in the projector profile`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a visitor who dismissed "Start here" never sees it in the static layout either', async () => {
    const key = await (async () => {
      const { page, release } = await openHeld(lab, '', { viewport: { width: 1280, height: 800 } });
      await release();
      const k = await page.locator(tid('start-here')).getAttribute('data-dismissed-key');
      await page.close();
      return k;
    })();
    assert.ok(key, 'the section names its storage key');
    const { page, errors, release } = await openHeld(lab, '', {
      viewport: { width: 1280, height: 800 },
      init: `localStorage.setItem(${JSON.stringify(key)}, '1')`,
    });
    await staticShown(page);
    assert.equal(await page.locator('[data-first-paint] .start-here').count(), 0);
    const before = await boxes(page);
    await release();
    assert.equal(await page.locator(tid('start-here')).isVisible(), false);
    const after = await boxes(page);
    for (const part of [...PARTS, ...COLUMNS]) assert.deepEqual(after[part], before[part], `${part} moved for a returning visitor`);
    assert.deepEqual(errors, []);
    await page.evaluate((k) => localStorage.removeItem(k), key);
    await page.close();
  });

  test('embedded, the page paints no static layout (it mounts another one)', async () => {
    const { page, errors, release } = await openHeld(lab, '?embed=1', { viewport: { width: 640, height: 400 } });
    await page.waitForLoadState('domcontentloaded');
    assert.equal(await page.locator('[data-first-paint]').count(), 0);
    await release();
    assert.equal(await page.evaluate(() => document.body.classList.contains('embed')), true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an address the first-frame module leaves to the page (a preset) still paints the static layout and mounts', async () => {
    const { page, errors, release } = await openHeld(lab, '?preset=chat-latency-first', { viewport: { width: 1280, height: 800 } });
    await staticShown(page);
    await release();
    assert.equal(await page.evaluate(() => window.labFirst), undefined, 'the first-frame module declined');
    const s = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_stats()));
    assert.ok(s.sim_time_s < 5, `the preset's run started at t = 0 (${s.sim_time_s} s)`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
