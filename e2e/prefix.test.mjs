// Prefix caching and engine profiles on the page: the prefix-caching preset shows its hit rate in
// the metrics and the cached-but-unreferenced prefix blocks as their own part of the HBM gauge; a
// scenario without prefix caching shows neither. The engine select sets its engine's scheduler
// defaults, and the prefix caching switch turns the cache (and its figures) off.
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

  test('choosing an engine sets its scheduler defaults; switching prefix caching off removes its figures', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const engine = page.locator(tid('field-engine_profile'));
    assert.equal(await engine.inputValue(), 'vllm');
    const options = await engine.locator('option').allTextContents();
    assert.deepEqual(options, ['vLLM', 'SGLang', 'TensorRT-LLM']);
    const chunked = page.locator(tid('field-scheduler.chunked_prefill'));
    assert.equal(await chunked.isChecked(), true);
    // the opening scenario sets its own budget (2,048 tokens, not vLLM's 8,192 on an H100): a
    // limit the scenario set stays when the engine changes; what it left at vLLM's defaults
    // takes the new engine's
    const number = async (id) => Number((await page.locator(tid(id)).inputValue()).replace(/,/g, ''));
    assert.equal(await number('field-scheduler.max_num_batched_tokens'), 2048);
    // SGLang: prompts first in prefill-only steps; a whole prompt must fit the scenario's budget,
    // so the context limit it left at the default follows it; SGLang's memory share on an H100
    await engine.selectOption('sglang');
    await page.waitForFunction(() => document.querySelector('[data-testid="field-scheduler.chunked_prefill"]')?.checked === false);
    assert.equal(await number('field-scheduler.max_num_batched_tokens'), 2048);
    assert.equal(await number('field-scheduler.max_model_len'), 2048);
    assert.equal(await number('field-gpu_memory_utilization'), 0.836);
    assert.equal(await page.locator(tid('field-scheduler.prefix_caching')).isChecked(), true);
    // TensorRT-LLM: whole prompts (no chunks) inside the decode steps, KV blocks of 32 tokens,
    // the scenario's budget kept
    await engine.selectOption('trtllm');
    await page.waitForFunction(() => document.querySelector('[data-testid="field-scheduler.block_size"]')?.value === '32');
    assert.equal(await chunked.isChecked(), false);
    assert.equal(await number('field-scheduler.max_num_batched_tokens'), 2048);
    assert.equal(await page.locator(tid('config-error')).count(), 0, 'every profile runs');

    await selectPreset(page, 'prefix-caching');
    await runToEnd(page);
    await page.locator(`${tid('metrics-a')} ${tid('metric-prefix-cache')}`).waitFor();
    await page.locator(tid('field-scheduler.prefix_caching')).uncheck();
    await runToEnd(page);
    await sleep(300);
    const shown = await page.evaluate(
      (s) => !!document.querySelector(s)?.closest('li')?.getClientRects().length,
      `${tid('metrics-a')} ${tid('metric-prefix-cache')}`,
    );
    assert.equal(shown, false, 'no hit rate without the cache');
    assert.equal(await page.locator(tid('config-error')).count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
