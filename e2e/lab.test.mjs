import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  artifact,
  canvasStats,
  readMetric,
  readSimTime,
  runToEnd,
  selectPreset,
  sleep,
  tid,
  useLab,
} from './lib.mjs';

describe('lab page', { timeout: 180_000 }, () => {
  // mounted: the header and the stage are on the page
  const lab = useLab({
    ready: async (page) => {
      await page.locator('h1', { hasText: 'LLM Serving Lab' }).waitFor({ timeout: 15_000 });
      await page.locator(tid('stage')).first().waitFor();
    },
  });
  const mounted = (query = '') => lab.open(query);

  test('loads without console errors and the stage animates', async () => {
    const { page, errors } = await mounted();
    // opens on the default scenario, already playing
    assert.equal(await page.locator(tid('run-state')).textContent(), 'playing');
    const t0 = await readSimTime(page);
    const a = await canvasStats(page, '#stage');
    assert.ok(a.colours > 8, `stage has only ${a.colours} colours`);
    await sleep(1500);
    const t1 = await readSimTime(page);
    assert.ok(t1 > t0, `simulated time went from ${t0} to ${t1}`);
    const b = await canvasStats(page, '#stage');
    assert.notEqual(a.hash, b.hash, 'the stage did not change in 1.5 s');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('after a few seconds of play the metrics show non-zero TTFT and TPOT', async () => {
    const { page, errors } = await mounted();
    await page.waitForFunction(
      () => {
        const v = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
        return /\d/.test(v('metric-ttft-p50')) && /\d/.test(v('metric-tpot-p50'));
      },
      null,
      { timeout: 30_000 },
    );
    for (const id of ['metric-ttft-p50', 'metric-ttft-p99', 'metric-ttft-mean', 'metric-tpot-p50', 'metric-tpot-p99']) {
      const ms = await readMetric(page, id);
      assert.ok(ms > 0, `${id} = ${ms}`);
    }
    assert.ok((await readMetric(page, 'metric-throughput')) > 0, 'throughput is zero');
    // every metric label carries its definition
    const defs = await page.locator(`${tid('metrics-a')} .term .def`).count();
    assert.ok(defs >= 15, `only ${defs} definitions in the metrics panel`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('static → continuous batching: goodput up, p99 TTFT far down, throughput not lower', async () => {
    const { page, errors } = await mounted();
    await selectPreset(page, 'static-batching');
    await runToEnd(page);
    const stat = {
      throughput: await readMetric(page, 'metric-throughput'),
      goodput: await readMetric(page, 'metric-goodput'),
      ttftP99: await readMetric(page, 'metric-ttft-p99'),
    };
    await selectPreset(page, 'continuous-batching');
    await runToEnd(page);
    const cont = {
      throughput: await readMetric(page, 'metric-throughput'),
      goodput: await readMetric(page, 'metric-goodput'),
      ttftP99: await readMetric(page, 'metric-ttft-p99'),
    };
    const detail = JSON.stringify({ static: stat, continuous: cont });
    assert.ok(cont.goodput > stat.goodput, `goodput should rise: ${detail}`);
    assert.ok(cont.ttftP99 * 10 < stat.ttftP99, `p99 TTFT should fall by more than 10×: ${detail}`);
    assert.ok(cont.throughput >= stat.throughput * 0.99, `throughput should not fall: ${detail}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the HBM gauge follows the model: Llama-2-70B fp16 is refused on one 80 GB GPU and runs on two', async () => {
    const { page, errors } = await mounted();
    await page.selectOption(tid('field-model'), 'llama-2-70b');
    await page.selectOption(tid('field-dtype'), 'fp16');
    await page.selectOption(tid('field-num_gpus'), '1');
    const banner = page.locator(tid('config-error'));
    await banner.waitFor({ timeout: 5000 });
    const message = await page.locator(tid('config-error-message')).textContent();
    assert.match(message, /Does not fit in memory/);
    assert.match(message, /llama-2-70b/);
    assert.match(message, /GPUs \(tensor parallel\) = 2 GPUs/, 'the message should say what would fit, by its label');
    // the last good run stays on screen and keeps running
    assert.match(await page.locator(tid('hbm-capacity')).textContent(), /80\.0 GiB on 1 ×/);
    const t0 = await readSimTime(page);
    await sleep(600);
    assert.ok((await readSimTime(page)) > t0, 'the last good run should keep playing');

    await page.selectOption(tid('field-num_gpus'), '2');
    await banner.waitFor({ state: 'detached', timeout: 5000 });
    await page.waitForFunction(
      () => /on 2 ×/.test(document.querySelector('[data-testid="hbm-capacity"]')?.textContent ?? ''),
      null,
      { timeout: 5000 },
    );
    assert.match(await page.locator(tid('hbm-capacity')).textContent(), /160 GiB on 2 ×/);
    await page.waitForFunction(
      () => Number.parseFloat(document.querySelector('[data-testid="hbm-weights"]')?.textContent) > 100,
      null,
      { timeout: 5000 },
    );
    const weights = Number.parseFloat(await page.locator(tid('hbm-weights')).textContent());
    assert.ok(Math.abs(weights - 128.5) < 1, `weights ${weights} GiB, expected about 128.5`);
    assert.match(
      await page.locator(tid('kv-formula-lab')).textContent(),
      /80 layers × 8 KV heads × 128 head dim × 2 B \(fp16\) = 327,680 B/,
    );
    assert.match(await page.locator(tid('kv-formula-article')).textContent(), /2 × 80 layers × 8,192 hidden = 1,310,720 values/);
    const t1 = await readSimTime(page);
    await sleep(800);
    assert.ok((await readSimTime(page)) > t1, 'Llama-2-70B on two GPUs should run');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a typed value out of range is refused beside the field with the allowed range; nothing is clipped', async () => {
    const { page, errors } = await mounted();
    const field = page.locator(tid('field-scheduler.max_num_seqs'));
    const slider = page.locator(tid('slider-scheduler.max_num_seqs'));
    const before = await slider.inputValue();
    await field.fill('99999');
    await field.press('Enter');
    const msg = page.locator(tid('error-scheduler.max_num_seqs'));
    await page.waitForFunction(() => document.querySelector('[data-testid="error-scheduler.max_num_seqs"]')?.textContent !== '');
    assert.match(await msg.textContent(), /must be between 1 and 4,096 seqs, got 99,999/);
    // refused, not applied or clipped: no banner, the slider where it was
    assert.equal(await page.locator(tid('config-error')).count(), 0);
    assert.equal(await slider.inputValue(), before);
    // not a number: a local message, nothing applied
    const rate = page.locator(tid('field-classes[0].arrival.rate_per_s'));
    await rate.fill('fast');
    await rate.press('Enter');
    assert.match(await page.locator(tid('error-classes[0].arrival.rate_per_s')).textContent(), /“fast” is not a number/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('step advances one iteration while paused; reset restarts from t = 0', async () => {
    const { page, errors } = await mounted();
    await sleep(500);
    await page.locator(tid('play')).click(); // pause
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.textContent === 'paused');
    await sleep(200);
    const t0 = await readSimTime(page);
    const us = () => page.locator(tid('sim-time')).getAttribute('data-us').then(Number);
    const us0 = await us();
    await sleep(400);
    assert.equal(await readSimTime(page), t0, 'paused time should not move');
    assert.equal(await us(), us0, 'paused time should not move');
    assert.ok(Math.abs(us0 / 1e6 - t0) < 0.0006, `the exact time ${us0} µs is the one shown, ${t0} s`);
    await page.locator(tid('step')).click();
    // the iteration under way may end within the shown millisecond: the exact time tells
    await page.waitForFunction((t) => Number(document.querySelector('[data-testid="sim-time"]').dataset.us) > t, us0);
    assert.equal(await page.locator(tid('run-state')).textContent(), 'paused');
    await page.locator(tid('reset')).click();
    await page.waitForFunction(() => Number.parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) < 0.5);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('speculative decoding from the controls: on, a draft model in memory, off', async () => {
    const { page, errors } = await lab.open('?preset=speculative', { viewport: { width: 1440, height: 900 } });
    await page.locator(tid('stage')).first().waitFor();
    const field = (id) => page.locator(tid(`field-${id}`));
    assert.equal(await field('speculative.draft_tokens').inputValue(), '4');
    assert.equal(await field('speculative.acceptance_rate').inputValue(), '0.8');
    assert.equal(await field('speculative.draft_model').inputValue(), '');
    const weights = async () => Number.parseFloat((await page.locator(tid('hbm-weights')).first().textContent()).replace(/,/g, ''));
    const alone = await weights();
    // Llama-3.1-8B drafting for Llama-3.1-8B: twice the weights in the HBM gauge
    await field('speculative.draft_model').selectOption('llama-3.1-8b');
    await page.waitForFunction((w) => Number.parseFloat(document.querySelector('[data-testid="hbm-weights"]').textContent) > 1.9 * w, alone, { timeout: 20_000 });
    assert.equal(await page.locator(tid('config-error')).count(), 0);
    // off: the draft's settings leave the editor and the weights are the target's again
    await page.locator(tid('toggle-speculative.draft_tokens')).uncheck();
    await field('speculative.acceptance_rate').waitFor({ state: 'detached', timeout: 20_000 });
    assert.equal(await field('speculative.draft_model').count(), 0);
    await page.waitForFunction((w) => Number.parseFloat(document.querySelector('[data-testid="hbm-weights"]').textContent) === w, alone, { timeout: 20_000 });
    // on again: a draft head of four tokens accepted at 0.8
    await page.locator(tid('toggle-speculative.draft_tokens')).check();
    await field('speculative.acceptance_rate').waitFor({ timeout: 20_000 });
    assert.equal(await field('speculative.draft_tokens').inputValue(), '4');
    assert.equal(await field('speculative.acceptance_rate').inputValue(), '0.8');
    assert.equal(await field('speculative.draft_model').inputValue(), '');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('speed spans 0.1× to 100× of simulated time', async () => {
    const { page, errors } = await mounted();
    const slider = page.locator(tid('speed'));
    await slider.fill('0');
    assert.equal(await page.locator(tid('speed-value')).textContent(), '0.1×');
    await slider.fill(await slider.getAttribute('max'));
    assert.equal(await page.locator(tid('speed-value')).textContent(), '100×');
    const t0 = await readSimTime(page);
    await sleep(1000);
    const t1 = await readSimTime(page);
    // 100× advances ~100 simulated seconds per second on an idle machine; the bound only tells
    // 100× apart from 1× with a wide margin for a busy CI machine (the engine may fall behind).
    assert.ok(t1 - t0 > 3, `at 100× one second should advance several simulated seconds, got ${t1 - t0}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('A/B mode compares two configurations on the same arrivals', async () => {
    const { page, errors } = await mounted();
    await page.locator(tid('pair-static-batching')).click();
    await page.locator('#stage-b').waitFor();
    await page.locator(tid('metrics-b')).waitFor();
    assert.match(await page.locator(tid('ab-diff')).last().textContent(), /Batching/);
    await runToEnd(page);
    const count = (panel, id) => readMetric(page, id, tid(panel));
    // the same requests arrived in both: the same two are too long for max_model_len
    for (const id of ['count-rejected', 'count-completed']) {
      assert.equal(await count('metrics-a', id), await count('metrics-b', id), id);
    }
    assert.ok(
      (await count('metrics-b', 'metric-goodput')) > (await count('metrics-a', 'metric-goodput')),
      'continuous (B) should have the higher goodput',
    );
    await page.screenshot({ path: await artifact('ab.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('screenshot', async () => {
    const { page } = await mounted();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator(tid('speed-10')).click();
    await sleep(3000);
    await page.screenshot({ path: await artifact('lab.png'), fullPage: true });
    await page.screenshot({ path: await artifact('lab-1280x800.png') });
    await page.setViewportSize({ width: 700, height: 900 });
    await sleep(500);
    await page.screenshot({ path: await artifact('lab-700.png') });
    await page.close();
  });

  test('a panic shows the error view with a reset action', async () => {
    // The app panics right after mounting, so the header never stays: no mounted() here.
    const { page, errors } = await lab.open('?panic', { ready: null });
    const view = page.locator(tid('panic'));
    await view.waitFor({ timeout: 15_000 });
    assert.match(await view.textContent(), /panic requested by the \?panic query parameter/);
    assert.equal(await page.locator('canvas#stage').count(), 0);
    assert.ok(errors.length > 0, 'the panic should be logged to the console');
    await page.screenshot({ path: await artifact('panic.png') });
    await page.locator(tid('panic-reset')).click();
    await page.locator('h1', { hasText: 'LLM Serving Lab' }).waitFor({ timeout: 15_000 });
    await page.locator('canvas#stage').waitFor();
    await page.close();
  });
});
