// The 2026 catalogue on the page: the HBM gauge's KV-per-token panel gives each attention form
// its own formula (latent attention: rank + rope dims per layer; grouped-query: KV heads) beside
// the article's, and says for which layers "KV grows per token" holds (sliding-window layers stop
// at their window, linear-attention layers keep a fixed state).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, sleep, tid, useLab } from './lib.mjs';

describe('the catalogue in the memory gauge', { timeout: 180_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
      await page.locator(tid('kv-formula-lab')).waitFor();
    },
  });

  test('MLA, sliding-window and linear-attention models each get their formula and growth note', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 }, query: { preset: 'deepseek-v3-h200' } });
    const formula = () => page.locator(tid('kv-formula-lab')).textContent();
    const grows = () => page.locator(tid('kv-grows')).allTextContents();
    // DeepSeek-V3: 61 layers × (512 latent + 64 rope) per token, no growth note (every layer grows)
    const mla = await formula();
    assert.match(mla, /61 layers × \(512 latent \+ 64 rope\)/, mla);
    assert.deepEqual(await grows(), []);
    await page.locator(tid('hbm-gauge')).screenshot({ path: await artifact('catalog-hbm-deepseek.png') });

    const pick = async (id) => {
      const before = await formula();
      await page.locator(tid('field-model')).selectOption(id);
      await page.waitForFunction((b) => document.querySelector('[data-testid="kv-formula-lab"]')?.textContent !== b, before);
      await sleep(300);
    };
    await pick('gpt-oss-20b');
    assert.match(await formula(), /KV heads/);
    const window = (await grows()).join(' ');
    assert.match(window, /12 of 24 layers/, window);
    assert.match(window, /128-token window/, window);
    await pick('qwen3.5-397b-a17b');
    const linear = (await grows()).join(' ');
    assert.match(linear, /15 of 60 layers/, linear);
    assert.match(linear, /linear attention/, linear);
    await page.locator(tid('hbm-gauge')).screenshot({ path: await artifact('catalog-hbm-qwen3.5.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('"How far to trust these numbers" lists the benchmark groups and marks the run on screen', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const trust = page.locator(tid('trust'));
    await trust.locator('summary').click();
    const rows = trust.locator(tid('trust-row'));
    // one row per engine × model × precision × GPU × TP degree of sim-core's table (18 today)
    assert.ok((await rows.count()) >= 10, `${await rows.count()} rows`);
    assert.match(await trust.locator(tid('trust-summary')).textContent(), /TensorRT-LLM: TPOT [+−]\d+ % \(median\)/);
    assert.equal(await trust.locator('tr.current').count(), 0, 'the default model is not among the benchmarks');
    // Llama-3.1-8B on 2 GPUs: its TensorRT-LLM row is marked
    await page.locator(tid('field-model')).selectOption('llama-3.1-8b');
    await page.locator(tid('field-num_gpus')).selectOption('2');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="trust"] tr.current').length === 1, null, { timeout: 10_000 });
    const marked = await trust.locator('tr.current td').allTextContents();
    assert.equal(marked[0], 'TensorRT-LLM');
    assert.match(marked[1], /^llama-3\.1-8b · bf16 · h100-sxm$/);
    assert.equal(marked[2], '2');
    await trust.screenshot({ path: await artifact('trust-1440.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
