// Prefix caching on the page: the prefix-caching preset shows its hit rate in the metrics and
// the cached-but-unreferenced prefix blocks as their own part of the HBM gauge; a scenario
// without prefix caching shows neither.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, parseShown, runToEnd, selectPreset, sleep, tid, useLab } from './lib.mjs';

describe('prefix caching', { timeout: 180_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
    },
  });

  test('the preset shows its hit rate and the cached prefixes in the gauge; others show neither', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const shown = (sel) => page.evaluate((s) => !!document.querySelector(s)?.getClientRects().length, sel);
    assert.equal(await page.locator(tid('metric-prefix-cache')).count(), 0, 'no prefix cache line without it');
    assert.equal(await shown(`${tid('hbm-gauge')} li:has(${tid('hbm-kv-cached')})`), false, 'no cached-prefix legend entry');

    await selectPreset(page, 'prefix-caching');
    await runToEnd(page);
    await sleep(500);
    const line = await page.locator(`${tid('metrics-a')} ${tid('metric-prefix-cache')}`).textContent();
    const m = line.match(/([\d.]+) % of prompt tokens from the cache · ([\d,]+) tokens/);
    assert.ok(m, line);
    // four 2,000-token system prompts shared by every request: most prompt tokens come from the cache
    assert.ok(Number(m[1]) > 50 && Number(m[1]) < 100, line);
    assert.ok(Number(m[2].replace(/,/g, '')) > 0, line);
    // after the run, the prefixes stay cached: their own segment of the gauge, not "free"
    assert.equal(await shown(`${tid('hbm-gauge')} li:has(${tid('hbm-kv-cached')})`), true);
    const cached = parseShown(await page.locator(tid('hbm-kv-cached')).textContent());
    assert.ok(cached > 0, `cached prefixes ${cached} GiB`);
    assert.deepEqual(await cutText(page, { scope: tid('metrics-a') }), []);
    await page.locator(tid('hbm-gauge')).screenshot({ path: await artifact('prefix-hbm.png') });
    await page.locator(tid('metrics-a')).screenshot({ path: await artifact('prefix-metrics.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
