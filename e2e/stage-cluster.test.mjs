// The stage with several replicas: a band per replica in the prefill and decode stations (the
// requests leaving the queue go to the replica the router picked), a tile each beyond eight, the
// KV of prefilled prompts moving along the links between the pools with disaggregation, and the
// last step's accepted and rejected draft tokens with speculative decoding. The canvas says what
// it drew in data attributes; the legend names each mark, in English and Chinese.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, selectPreset, sleep, tid, useLab } from './lib.mjs';

const canvas = 'canvas#stage';

/** The stage canvas's data attributes. */
function attrs(page) {
  return page.evaluate((sel) => ({ ...document.querySelector(sel).dataset }), canvas);
}

/** Waits until `check(dataset)` holds for the stage canvas. */
function until(page, check, timeout = 30_000) {
  const expr = `(() => { const d = document.querySelector(${JSON.stringify(canvas)})?.dataset; return !!d && (${check})(d); })()`;
  return page.waitForFunction(expr, null, { timeout });
}

const shown = (page, id) => page.evaluate((s) => !!document.querySelector(s)?.getClientRects().length, tid(id));

describe('the stage with replicas', { timeout: 240_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
    },
  });

  test('one replica: one band and no replica legend', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    await until(page, (d) => d.layout === 'one');
    const d = await attrs(page);
    assert.equal(d.replicas, '1');
    assert.equal(await shown(page, 'legend-bands'), false);
    assert.equal(await shown(page, 'legend-link'), false);
    assert.equal(d.drafts, '', 'no drafts without speculation');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('four replicas: a band each, and requests leave the queue for every one of them', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await selectPreset(page, 'cluster-prefix-affinity');
    await until(page, (d) => d.layout === 'bands' && d.replicas === '4');
    // the router spreads the documents over the replicas: each band receives requests
    await until(page, (d) => d.entered.split(',').length === 4 && d.entered.split(',').every((n) => Number(n) > 0));
    assert.equal(await shown(page, 'legend-bands'), true);
    assert.match(await page.locator(tid('legend-bands')).textContent(), /R0, R1, …: each replica/);
    await page.locator(tid('stage-a')).screenshot({ path: await artifact('stage-replicas-1440.png') });
    assert.deepEqual(await cutText(page, { scope: tid('stage-a') }), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('twelve replicas: a tile each', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    const field = page.locator(tid('field-replicas'));
    await field.fill('12');
    await field.press('Enter');
    await until(page, (d) => d.layout === 'grid' && d.replicas === '12');
    await until(page, (d) => d.entered.split(',').length === 12 && d.entered.split(',').filter((n) => Number(n) > 0).length >= 6);
    assert.equal(await shown(page, 'legend-bands'), false, 'the bands legend only with bands');
    await page.locator(tid('stage-a')).screenshot({ path: await artifact('stage-replicas-grid.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('disaggregation: prefilled prompts move along the KV links from the prefill to the decode pool', async () => {
    const { page, errors } = await lab.open('?preset=disaggregated', { viewport: { width: 1280, height: 720 } });
    await until(page, (d) => d.layout === 'bands' && d.replicas === '4');
    // a slower link (5 GB/s: some 80 ms per 3,000-token prompt) keeps prompts on it for frames
    const gbps = page.locator(tid('field-disaggregation.kv_link_gbps'));
    await gbps.fill('5');
    await gbps.press('Enter');
    await until(page, (d) => Number(d.onLink) > 0 && Number(d.transfersSeen) >= 5);
    const d = await attrs(page);
    // arrivals go to the prefill pool only
    const entered = d.entered.split(',').map(Number);
    assert.ok(entered[0] > 0 && entered[1] > 0, d.entered);
    assert.equal(await shown(page, 'legend-link'), true);
    assert.match(await page.locator(tid('legend-link')).textContent(), /KV on its way to a decode replica/);
    await page.locator(tid('stage-a')).screenshot({ path: await artifact('stage-kv-links.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('speculative decoding: the last step’s drafts, accepted and rejected, in Chinese on a phone', async () => {
    const { page, errors } = await lab.open('?preset=speculative&locale=zh', { viewport: { width: 390, height: 844 } });
    await until(page, (d) => /^\d+\/4$/.test(d.drafts ?? ''));
    const seen = new Set();
    for (let i = 0; i < 20 && seen.size < 2; i++) {
      const [a, k] = (await attrs(page)).drafts.split('/').map(Number);
      assert.equal(k, 4, 'k drafts per step');
      assert.ok(a >= 0 && a <= 4, `${a} accepted`);
      seen.add(a);
      await sleep(300);
    }
    assert.ok(seen.size >= 2, `the accepted count varies from step to step: ${[...seen]}`);
    assert.equal(await shown(page, 'legend-drafts'), true);
    assert.match(await page.locator(tid('legend-drafts')).textContent(), /被接受的草稿/);
    await page.locator(tid('stage-a')).screenshot({ path: await artifact('stage-drafts-zh-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
