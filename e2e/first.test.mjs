// A first visit: the bottleneck badge on the stage names what limits the run and follows the
// binding setting; the default opening builds a queue; "Start here" opens lesson 1 and its
// dismissal is remembered.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, tid, useLab } from './lib.mjs';

const ready = async (page) => {
  await page.locator('h1').first().waitFor({ timeout: 15_000 });
  await page.locator(tid('stage')).first().waitFor();
};

/** Waits until run A's badge names the limit `kind`; resolves to its head and detail text. */
async function badgeShows(page, kind, timeout = 30_000) {
  const badge = page.locator(`${tid('stage-a')} ${tid('limit-badge')}`);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="stage-a"] [data-testid="limit-badge"]')?.dataset.limit === want,
    kind,
    { timeout },
  );
  return {
    head: (await badge.locator(tid('limit-head')).textContent()).trim(),
    detail: (await badge.locator(tid('limit-detail')).textContent()).trim(),
  };
}

async function setField(page, id, value) {
  const field = page.locator(tid(`field-${id}`));
  await field.fill(String(value));
  await field.press('Enter');
}

describe('a first visit that invites', { timeout: 180_000 }, () => {
  const lab = useLab({ ready });

  test('the default opening builds a queue behind max batch 32 while most KV is free', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const badge = page.locator(`${tid('stage-a')} ${tid('limit-badge')}`);
    await badge.waitFor();
    assert.equal(await badge.locator(tid('limit-head')).getAttribute('aria-live'), 'polite');
    assert.equal(await badge.locator(tid('limit-detail')).getAttribute('aria-live'), null, 'the numbers are not announced');
    await page.locator(tid('speed-10')).click();
    const { head, detail } = await badgeShows(page, 'max_batch');
    assert.match(head, /^Limited by max batch 32$/);
    assert.match(detail, /^not memory: \d+(\.\d)? GiB KV free$/);
    assert.ok(Number(detail.match(/[\d.]+/)[0]) > 30, detail);
    assert.deepEqual(await cutText(page, { scope: '[data-testid="stage-a"] .stage-head' }), []);
    await page.screenshot({ path: await artifact('first-default-1440.png') });
    assert.deepEqual(errors, []);
  });

  test('the badge follows the binding setting: max batch 4, then tight KV memory', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    await page.locator(tid('speed-10')).click();
    await setField(page, 'scheduler.max_num_seqs', 4);
    assert.equal((await badgeShows(page, 'max_batch')).head, 'Limited by max batch 4');
    await setField(page, 'scheduler.max_num_seqs', 32);
    await setField(page, 'gpu_memory_utilization', 0.22);
    const kv = await badgeShows(page, 'kv_memory');
    assert.equal(kv.head, 'Limited by KV memory');
    assert.match(kv.detail, /needs [\d.]+ [KMG]iB/);
    assert.deepEqual(errors, []);
  });

  test('in Chinese the badge speaks Chinese', async () => {
    const { page, errors } = await lab.open('', { locale: 'zh', viewport: { width: 1440, height: 900 } });
    await page.locator(tid('speed-10')).click();
    const { head, detail } = await badgeShows(page, 'max_batch');
    assert.match(head, /受最大批大小 32 限制/);
    assert.match(detail, /[\u4e00-\u9fff]/);
    assert.doesNotMatch(head + detail, /Limited|memory|free/);
    assert.match(await page.locator(tid('start-here')).textContent(), /从这里开始/);
    assert.deepEqual(errors, []);
  });

  test('"Start here" opens lesson 1 and hides while the lesson is open', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    const start = page.locator(tid('start-here'));
    assert.equal(await start.isVisible(), true, 'a first visit sees it');
    // by keyboard: the focus follows into the lesson (not to the page's body), and the run is
    // a few key presses away
    await page.locator(tid('start-here-open')).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.lesson === 'mean-hides-tail');
    assert.equal(await start.isVisible(), false);
    await page.waitForFunction(() => document.activeElement?.classList.contains('lesson-step'));
    let presses = 1;
    const pressUntil = async (testid, key = 'Tab') => {
      for (let i = 0; i < 12; i++) {
        if (await page.evaluate((t) => document.activeElement?.dataset.testid === t, testid)) return;
        await page.keyboard.press(key);
        presses += 1;
      }
      throw new Error(`${testid} is not reached by ${key}`);
    };
    await pressUntil('lesson-next');
    await page.keyboard.press('Enter');
    presses += 1;
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.step === '1');
    await pressUntil('lesson-choice-0');
    await page.keyboard.press('Enter');
    await pressUntil('lesson-run');
    await page.keyboard.press('Enter');
    presses += 2;
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.step === '2');
    assert.ok(presses <= 12, `lesson 1's run took ${presses} key presses`);
    assert.deepEqual(errors, []);
  });

  test('dismissing "Start here" is remembered', async () => {
    const fresh = await lab.launch();
    const { page, errors } = await lab.open('', { context: fresh.context, viewport: { width: 390, height: 844 } });
    await page.screenshot({ path: await artifact('first-start-here-390.png') });
    const start = page.locator(tid('start-here'));
    assert.equal(await start.isVisible(), true);
    assert.deepEqual(await cutText(page, { scope: '[data-testid="start-here"]' }), []);
    await page.locator(tid('start-here-dismiss')).click();
    assert.equal(await start.isVisible(), false);
    await page.reload();
    await ready(page);
    await page.locator(tid('limit-badge')).first().waitFor();
    assert.equal(await page.locator(tid('start-here')).isVisible(), false, 'still dismissed after a reload');
    assert.deepEqual(errors, []);
    await fresh.close();
  });
});
