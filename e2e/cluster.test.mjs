// A cluster on the page: the cluster preset shows a tile per replica under the stage, each with
// its load, KV fill, requests routed to it and prefix cache hits, and the router's imbalance;
// the stage counts every replica's batch; a one-replica scenario shows no tiles. In Chinese too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, runToEnd, selectPreset, sleep, tid, useLab } from './lib.mjs';

describe('replicas', { timeout: 180_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
    },
  });

  test('the cluster preset shows each replica and the router; one replica shows none', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    assert.equal(await page.locator(tid('replicas')).count(), 0, 'no replica tiles with one replica');
    await selectPreset(page, 'cluster-prefix-affinity');
    await runToEnd(page);
    await sleep(500);
    const tiles = page.locator(tid('replica'));
    assert.equal(await tiles.count(), 4);
    const texts = await tiles.allTextContents();
    let routed = 0;
    for (const [i, text] of texts.entries()) {
      assert.match(text, new RegExp(`Replica ${i}`));
      const m = text.match(/([\d,]+) routed here/);
      assert.ok(m, text);
      routed += Number(m[1].replace(/,/g, ''));
      // prefix affinity keeps each document's blocks on one replica: most prompt tokens hit
      const hits = text.match(/prefix cache hits ([\d.]+) %/);
      assert.ok(hits && Number(hits[1]) > 50, text);
    }
    assert.equal(routed, 4000, 'every request went to one replica');
    const imbalance = Number(await page.locator(tid('router-imbalance')).textContent());
    assert.ok(imbalance >= 1 && imbalance < 1.2, `imbalance ${imbalance}`);
    assert.match(await page.locator(tid('replicas')).textContent(), /4 replicas behind a prefix-affinity router/);
    assert.deepEqual(await cutText(page, { scope: tid('replicas') }), []);
    await page.locator(tid('replicas')).screenshot({ path: await artifact('replicas.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the replicas control makes a cluster; the router and its load cap show only where they apply', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const field = (id) => page.locator(tid(`field-${id}`));
    assert.equal(await field('router.policy').count(), 0, 'no router with one replica');
    await field('replicas').fill('3');
    await field('replicas').press('Enter');
    await page.locator(tid('replica')).nth(2).waitFor({ timeout: 20_000 });
    assert.equal(await page.locator(tid('replica')).count(), 3);
    const policy = field('router.policy');
    assert.equal(await policy.inputValue(), 'round_robin');
    assert.deepEqual(await policy.locator('option').allTextContents(), [
      'Round robin', 'Random', 'Least outstanding requests', 'Least KV cache in use', 'Prefix affinity (cache-aware)',
    ]);
    assert.equal(await field('router.load_cap').count(), 0, 'the load cap only with prefix affinity');
    await policy.selectOption('prefix_affinity');
    await field('router.load_cap').waitFor({ timeout: 10_000 });
    assert.match(await page.locator(tid('replicas')).textContent(), /3 replicas behind a prefix-affinity router/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a disaggregated cluster shows its prefill and decode pools and the KV transfers', async () => {
    const { page, errors } = await lab.open('?preset=disaggregated', { viewport: { width: 1280, height: 720 } });
    await runToEnd(page);
    await sleep(500);
    const tiles = page.locator(tid('replica'));
    assert.equal(await tiles.count(), 4);
    const pools = [];
    for (let i = 0; i < 4; i++) pools.push(await tiles.nth(i).getAttribute('data-pool'));
    assert.deepEqual(pools, ['prefill', 'prefill', 'decode', 'decode']);
    const texts = await tiles.allTextContents();
    const routed = texts.map((t) => Number(t.match(/([\d,]+) routed here/)[1].replace(/,/g, '')));
    // every request was prefilled on one prefill replica and decoded on one decode replica
    assert.equal(routed[0] + routed[1], 1500);
    assert.equal(routed[2] + routed[3], 1500);
    assert.match(await page.locator(tid('replicas')).textContent(), /2 prefill \+ 2 decode replicas/);
    const transfer = await page.locator(tid('metric-kv-transfer')).textContent();
    const m = transfer.match(/mean ([\d.]+) ms · p99 ([\d.]+) ms · ([\d,]+) transfers/);
    assert.ok(m, transfer);
    assert.ok(Number(m[1]) > 0 && Number(m[2]) >= Number(m[1]), transfer);
    assert.equal(Number(m[3].replace(/,/g, '')), 1500);
    assert.deepEqual(await cutText(page, { scope: tid('replicas') }), []);
    await page.locator(tid('replicas')).screenshot({ path: await artifact('replicas-disaggregated.png') });
    // the split's controls: the pools and the link, no colocated replica count; switched off,
    // the same four GPUs are four colocated replicas
    const field = (id) => page.locator(tid(`field-${id}`));
    assert.equal(await field('disaggregation.prefill_replicas').inputValue(), '2');
    assert.equal(await field('disaggregation.decode_replicas').inputValue(), '2');
    assert.equal(await field('disaggregation.kv_link_gbps').inputValue(), '50');
    assert.equal(await field('replicas').count(), 0);
    await page.locator(tid('toggle-disaggregation.prefill_replicas')).uncheck();
    await field('replicas').waitFor({ timeout: 20_000 });
    assert.equal(await field('replicas').inputValue(), '4');
    assert.equal(await field('disaggregation.decode_replicas').count(), 0);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="replica"]').length === 4
      && !document.querySelector('[data-testid="replica"][data-pool]'), null, { timeout: 20_000 });
    // and on again: one prefill replica, the other three decode
    await page.locator(tid('toggle-disaggregation.prefill_replicas')).check();
    await field('disaggregation.decode_replicas').waitFor({ timeout: 20_000 });
    assert.equal(await field('disaggregation.prefill_replicas').inputValue(), '1');
    assert.equal(await field('disaggregation.decode_replicas').inputValue(), '3');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('in Chinese, on a phone', async () => {
    const { page, errors } = await lab.open('?locale=zh&preset=cluster-prefix-affinity', { viewport: { width: 390, height: 844 } });
    await page.locator(tid('replica')).first().waitFor({ timeout: 20_000 });
    const text = await page.locator(tid('replicas')).textContent();
    assert.match(text, /4 个副本，前置前缀亲和路由器/);
    assert.match(text, /副本 3/);
    assert.deepEqual(await cutText(page, { scope: tid('replicas') }), []);
    await page.locator(tid('replicas')).screenshot({ path: await artifact('replicas-zh-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
