// One language at a time, errors for people: sim-core's problems (the HBM "does not fit"
// banner, field errors) are worded in the page's language with the labels the page shows; what
// is typed and refused ("0,9", "abc", out of range, a seed "abc") gets its own message with the
// control's label, unit and range, and the last good run keeps playing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, readSimTime, sleep, tid, useLab } from './lib.mjs';

const RATE = 'classes[0].arrival.rate_per_s';

/**
 * Latin words a Chinese message may hold: units, numbers' signs, and ids and names of models,
 * GPUs and dtypes (`llama-3-8b`, `H100 SXM`, `bf16`), plus the technical terms the Chinese
 * tables keep (GPU, KV, CUDA, token, Prefill).
 */
const ALLOWED_LATIN =
  /\b(?:GiB|MiB|KiB|ms|s|req\/s|GPU|GPUs|KV|CUDA|token|tokens|Prefill|NVIDIA|SXM\d*|PCIe|\d+GB|[HABL]\d+\w*|bf16|fp16|fp8|[a-z0-9]+(?:[-.][a-z0-9]+)+)\b/g;
const latinLeft = (text) => text.replace(ALLOWED_LATIN, '').match(/[A-Za-z]{2,}/g) ?? [];

describe('messages in the page’s language', { timeout: 240_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
      await page.locator(tid(`field-${RATE}`)).waitFor();
    },
  });

  /** Types `text` into the box `id` and commits it as a learner does (Enter). */
  const type = async (page, id, text) => {
    const box = page.locator(tid(id));
    await box.fill(text);
    await box.press('Enter');
  };

  /** Types `text` into the number box `id` and resolves to the message under it, once it changed. */
  const message = async (page, id, text) => {
    const err = page.locator(tid(`error-${id}`));
    const before = await err.textContent();
    await type(page, `field-${id}`, text);
    await page.waitForFunction(
      ([e, prev]) => {
        const now = document.querySelector(`[data-testid="${e}"]`)?.textContent ?? '';
        return now !== '' && now !== prev;
      },
      [`error-${id}`, before],
    );
    return err.textContent();
  };

  /** The run on screen keeps playing from where it was (a bad input restarts nothing). */
  const keepsPlaying = async (page, before) => {
    await sleep(400);
    const now = await readSimTime(page);
    assert.ok(now > before, `the last good run should keep playing (${before} → ${now})`);
  };

  test('zh: the does-not-fit banner and field errors are in Chinese only, naming the page’s labels', async () => {
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const { page, errors } = await lab.open('', { locale: 'zh', viewport });
      await type(page, 'field-gpu_memory_utilization', '0.2');
      const banner = page.locator(tid('config-error-message'));
      await banner.waitFor({ timeout: 10_000 });
      const text = await banner.textContent();
      assert.match(text, /^显存放不下/, text);
      assert.match(text, /显存利用率 ≥ 0\.2\d/, `the fix names the label the page shows: ${text}`);
      assert.doesNotMatch(text, /gpu_memory_utilization|num_gpus|It would/, text);
      assert.deepEqual(latinLeft(text), [], `only Chinese, units and ids: ${text}`);
      await page.locator(tid('config-error')).screenshot({ path: await artifact(`msg-zh-banner-${viewport.width}.png`) });

      // back to a configuration that runs, then a typed value out of range
      await page.locator(tid('back-to-running')).click();
      await page.locator(tid('config-error')).waitFor({ state: 'detached', timeout: 10_000 });
      const t0 = await readSimTime(page);
      const fieldText = await message(page, RATE, '2000000');
      assert.match(fieldText, /^到达率必须在 0\.000001 到 1,000,000 req\/s 之间（输入为 2,000,000）/, fieldText);
      assert.deepEqual(latinLeft(fieldText), [], `only Chinese, units and ids: ${fieldText}`);
      await keepsPlaying(page, t0);
      const comma = await message(page, RATE, '0,9');
      assert.match(comma, /“0,9”用了逗号作小数点：请写成 0\.9。到达率的取值在 0\.000001 到 1,000,000 req\/s 之间/, comma);
      await page.locator(tid(`error-${RATE}`)).scrollIntoViewIfNeeded();
      await page.screenshot({ path: await artifact(`msg-zh-field-${viewport.width}.png`) });
      await type(page, 'seed', 'abc');
      const seed = await page.locator(tid('seed-error')).textContent();
      assert.match(seed, /^“abc”不是有效的种子：请输入 0 到 18,446,744,073,709,551,615 的整数/, seed);
      await page.locator(tid('seed')).scrollIntoViewIfNeeded();
      await page.screenshot({ path: await artifact(`msg-zh-seed-${viewport.width}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('zh: a sweep whose points do not fit says why in Chinese, point by point', async () => {
    const { page, errors } = await lab.open('', { locale: 'zh', viewport: { width: 1440, height: 900 } });
    await page.locator(tid('wb-tab-sweep')).click();
    await page.locator(tid('sweep-param')).selectOption('gpu_memory_utilization');
    for (const [id, v] of [['sweep-from', '0.1'], ['sweep-to', '0.3'], ['sweep-steps', '3']]) {
      const box = page.locator(tid(id));
      await box.fill(v);
      await box.press('Tab');
    }
    await page.locator(tid('sweep-run')).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="sweep-point"]').length === 3, null, { timeout: 60_000 });
    const failed = await page.locator(`${tid('sweep-point')}.point-error td`).allTextContents();
    assert.ok(failed.length >= 1, 'at 0.1 the weights do not fit');
    for (const text of failed) {
      assert.match(text, /^显存放不下/, text);
      assert.deepEqual(latinLeft(text), [], `only Chinese, units and ids: ${text}`);
    }
    await page.locator(tid('sweep-table')).screenshot({ path: await artifact('msg-zh-sweep.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('en: the same problems in English only; typed input is refused with label, unit and range', async () => {
    const { page, errors } = await lab.open('', { locale: 'en', viewport: { width: 1440, height: 900 } });
    await type(page, 'field-gpu_memory_utilization', '0.2');
    const banner = page.locator(tid('config-error-message'));
    await banner.waitFor({ timeout: 10_000 });
    const text = await banner.textContent();
    assert.match(text, /^Does not fit in memory: /, text);
    assert.match(text, /It would fit with .*Memory utilisation ≥ 0\.2\d/, text);
    assert.doesNotMatch(text, /[\u3400-\u9fff]/, text);
    await page.locator(tid('back-to-running')).click();
    await page.locator(tid('config-error')).waitFor({ state: 'detached', timeout: 10_000 });

    const t0 = await readSimTime(page);
    const said = (typed) => message(page, RATE, typed);
    const span = 'between 0\\.000001 and 1,000,000 req/s';
    assert.match(await said('0,9'), new RegExp(`^“0,9” has a decimal comma: write a point \\(0\\.9\\)\\. Arrival rate takes a value ${span}`));
    assert.match(await said('abc'), new RegExp(`^“abc” is not a number\\. Arrival rate takes a value ${span}`));
    assert.match(await said('1e999'), new RegExp(`^“1e999” is too large\\. Arrival rate takes a value ${span}`));
    assert.match(await said(''), new RegExp(`^Enter a number for Arrival rate: ${span}`));
    assert.match(await said('-1'), new RegExp(`^Arrival rate must be ${span}, got -1`));
    assert.match(await said('2000000'), /The lab keeps the last value that worked\.$/);
    // nothing was applied: no banner, the run on screen keeps playing from where it was
    assert.equal(await page.locator(tid('config-error')).count(), 0);
    await keepsPlaying(page, t0);
    // a good value clears the message and applies
    await type(page, `field-${RATE}`, '0.9');
    await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent === '', `error-${RATE}`);
    assert.equal(await page.locator(tid(`field-${RATE}`)).inputValue(), '0.9');

    // the seed box
    const t1 = await readSimTime(page);
    await type(page, 'seed', 'abc');
    assert.match(
      await page.locator(tid('seed-error')).textContent(),
      /^“abc” is not a seed: enter a whole number from 0 to 18,446,744,073,709,551,615$/,
    );
    await keepsPlaying(page, t1);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
