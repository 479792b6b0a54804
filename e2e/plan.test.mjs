// The Plan tab: the contract being edited (the contract tab's) planned in a Web Worker — live
// progress and the best so far, cancel, the answer (the best's cost, launch commands and slack,
// the cheaper configurations and the constraint that bound each, the Pareto chart), the stage
// animating all the while, "open on the stage" and the link; by keyboard alone; in Chinese.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, canvasStats, readSimTime, sleep, tid, useLab } from './lib.mjs';

/** Presses Tab until the focus is on `selector`. */
async function tabTo(page, selector, max = 250) {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The contract's own workload (as `llmsim plan --example chat` plans it), then the Plan tab. */
async function openPlan(page) {
  await page.locator(tid('wb-tab-contract')).click();
  const useLab = page.locator(tid('contract-use-lab'));
  await useLab.waitFor({ timeout: 15_000 });
  if (await useLab.isChecked()) await useLab.uncheck();
  await page.locator(tid('wb-tab-plan')).click();
  await page.locator(tid('plan-run')).waitFor({ timeout: 15_000 });
}

/** Leaves two GPUs (the cheapest that meets the chat contract, and a cheaper one that does not) and one engine to search, without splits. */
async function smallSearch(page) {
  const keep = new Set(['plan-gpu-rtx-pro-6000', 'plan-gpu-mi300x', 'plan-engine-vllm']);
  for (const box of await page.locator('.plan-choices input[type=checkbox]').all()) {
    const id = await box.getAttribute('data-testid');
    if ((await box.isChecked()) !== keep.has(id)) await box.click();
  }
}

/** Counts animation frames from now on (`window.planFrames`). */
const countFrames = (page) =>
  page.evaluate(() => {
    window.planFrames = 0;
    window.planGaps = [];
    let last = performance.now();
    const tick = (t) => {
      window.planFrames += 1;
      window.planGaps.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });

const phase = (page) => page.locator(tid('plan-state')).getAttribute('data-phase');

async function waitDone(page, timeout = 120_000) {
  await page.waitForFunction(() => document.querySelector('[data-testid="plan-state"]')?.dataset.phase === 'done', null, { timeout });
}

describe('the Plan tab', { timeout: 300_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
    },
  });

  test('plans the chat contract in a worker: progress, the best improving, the answer, the stage animating', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await openPlan(page);
    assert.match(await page.locator(tid('plan-contract')).textContent(), /Chat assistant on one H100/);
    // no worker before a plan starts; then one, of the planner's script
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    assert.deepEqual(workers, []);
    await countFrames(page);
    const simBefore = await readSimTime(page);
    const started = Date.now();
    // what the progress line says as it goes
    await page.evaluate(() => {
      window.planSeen = [];
      const el = document.querySelector('[data-testid="plan-state"]');
      new MutationObserver(() => window.planSeen.push({ tried: +el.dataset.tried, best: el.dataset.best, phase: el.dataset.phase }))
        .observe(el, { attributes: true, childList: true, subtree: true, characterData: true });
    });
    await page.locator(tid('plan-run')).click();
    assert.equal(await phase(page), 'running');
    await page.locator(tid('plan-progress')).waitFor();
    await waitDone(page);
    const ms = Date.now() - started;
    const { frames, gaps } = await page.evaluate(() => ({ frames: window.planFrames, gaps: window.planGaps }));
    const seen = await page.evaluate(() => window.planSeen);
    // one worker per core but the page's own (at least one, at most eight)
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.equal(workers.length, Math.min(8, Math.max(1, cores - 1)), `${cores} cores`);
    for (const w of workers) assert.match(w, /\/plan-[0-9a-f]{16}\/worker\.js$/);
    // progress came in steps, and a best was known before the end
    const tried = [...new Set(seen.map((s) => s.tried))];
    assert.ok(tried.length >= 5, `progress seen at ${tried.length} counts`);
    assert.ok(seen.some((s) => s.phase === 'running' && s.best !== ''), 'a best so far while running');
    // the stage kept animating while the worker searched: frames came and simulated time moved
    // (the frame rate is reported below, not asserted: it depends on the machine)
    const seconds = ms / 1000;
    assert.ok(frames > 0, 'animation frames while the search ran');
    assert.ok((await readSimTime(page)) > simBefore);
    gaps.sort((a, b) => a - b);
    console.log(
      `plan (chat, every GPU and engine): ${seconds.toFixed(1)} s in Chromium; ${frames} frames, ` +
        `${(frames / seconds).toFixed(0)} fps, frame gap p50 ${gaps[gaps.length >> 1].toFixed(1)} ms, max ${gaps.at(-1).toFixed(1)} ms`,
    );

    // the answer: the best, its launch commands and slack, the cheaper ones and why, the chart
    const best = page.locator(tid('plan-best'));
    assert.ok(Number(await best.getAttribute('data-usd')) > 0);
    assert.match(await page.locator(tid('plan-best-cost')).textContent(), /^\$[\d.,]+ per hour$/);
    assert.match(await page.locator(tid('plan-launch')).textContent(), /vllm serve|python3 -m sglang|trtllm-serve/);
    assert.ok((await page.locator(tid('plan-slack-row')).count()) >= 5);
    const rows = page.locator(tid('plan-rejected-row'));
    assert.ok((await rows.count()) >= 1);
    assert.match(await rows.first().textContent(), /Scheduling caps|KV memory|Queueing|Prefill compute|Decode bandwidth|interference|Cost/);
    const chart = await canvasStats(page, '#plan-chart');
    assert.ok(chart.colours > 3, `the chart is drawn: ${JSON.stringify(chart)}`);
    await page.addStyleTag({ content: '.toolbar { position: static !important; }' });
    await page.locator('.workbench').screenshot({ path: await artifact('plan-1440.png') });

    // open on the stage: run A becomes the best configuration
    const label = await page.locator(tid('plan-best-label')).textContent();
    const gpu = label.match(/× (\S+) tp\d/)[1];
    await page.locator(tid('plan-open')).click();
    await page.waitForFunction((g) => document.querySelector('[data-testid="field-gpu"]')?.value === g, gpu, { timeout: 10_000 });
    // the link carries it: opened elsewhere, the same GPU is on the stage
    const link = await page.locator(tid('plan-share')).getAttribute('href');
    assert.match(link, /\?lab=2\./);
    const other = await lab.open(link, { viewport: { width: 1280, height: 800 } });
    await other.page.waitForFunction((g) => document.querySelector('[data-testid="field-gpu"]')?.value === g, gpu, { timeout: 15_000 });
    assert.deepEqual(other.errors, []);
    await other.page.close();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a four-core machine three workers share the search and find what one worker finds', async () => {
    /** Plans the chat contract with `cores` reported; returns the workers started and the answer. */
    const planWith = async (cores) => {
      const other = await lab.launch();
      await other.context.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), cores);
      const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 800 }, context: other.context });
      await openPlan(page);
      const workers = [];
      page.on('worker', (w) => workers.push(w.url()));
      await countFrames(page);
      const started = Date.now();
      await page.locator(tid('plan-run')).click();
      await waitDone(page);
      const seconds = (Date.now() - started) / 1000;
      const frames = await page.evaluate(() => window.planFrames);
      const answer = {
        best: await page.locator(tid('plan-best-label')).textContent(),
        usd: await page.locator(tid('plan-best')).getAttribute('data-usd'),
        rejected: await page.locator(tid('plan-rejected-row')).allTextContents(),
      };
      assert.deepEqual(errors, []);
      await other.close();
      return { workers: workers.length, answer, seconds, frames };
    };
    const three = await planWith(4);
    const one = await planWith(2);
    assert.equal(three.workers, 3);
    assert.equal(one.workers, 1);
    assert.deepEqual(three.answer, one.answer);
    console.log(
      `plan (chat): 3 workers ${three.seconds.toFixed(1)} s (${(three.frames / three.seconds).toFixed(0)} fps), ` +
        `1 worker ${one.seconds.toFixed(1)} s on this machine's cores`,
    );
  });

  test('cancel stops the search; a changed contract marks the answer stale', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    await openPlan(page);
    await page.locator(tid('plan-run')).click();
    await page.waitForFunction(() => +document.querySelector('[data-testid="plan-state"]')?.dataset.tried >= 2, null, { timeout: 60_000 });
    await page.locator(tid('plan-cancel')).click();
    assert.equal(await phase(page), 'cancelled');
    const tried = await page.locator(tid('plan-state')).getAttribute('data-tried');
    await sleep(1500);
    assert.equal(await page.locator(tid('plan-state')).getAttribute('data-tried'), tried, 'no progress after cancel');
    assert.equal(await page.locator(tid('plan-cancel')).count(), 0);
    assert.equal(await page.locator(tid('plan-run')).isDisabled(), false);
    // a small search to the end, then the contract changes in its tab
    await smallSearch(page);
    await page.locator(tid('plan-run')).click();
    await waitDone(page);
    await page.locator(tid('wb-tab-contract')).click();
    await page.locator(tid('contract-field-slo.ttft_p99_ms')).fill('900');
    await page.locator(tid('contract-field-slo.ttft_p99_ms')).press('Tab');
    await page.locator(tid('wb-tab-plan')).click();
    await page.locator(tid('plan-stale')).waitFor({ timeout: 5000 });
    // nothing to choose from: the button waits and says why
    await page.locator(tid('plan-engine-vllm')).click();
    assert.equal(await page.locator(tid('plan-run')).isDisabled(), true);
    assert.match(await page.locator(tid('plan-choice-error')).textContent(), /at least one engine/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the keyboard alone opens the tab, plans and reaches the answer; at 390 px nothing is wider than the page', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 390, height: 844 } });
    await openPlan(page);
    await smallSearch(page);
    await page.locator(tid('wb-tab-lessons')).click();
    // from the top of the page: Tab to the tab bar, arrows to the Plan tab, Tab to the button
    await page.evaluate(() => document.activeElement?.blur());
    await tabTo(page, tid('wb-tab-lessons'));
    for (const next of ['sweep', 'contract', 'plan']) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((id) => document.activeElement?.dataset.testid === `wb-tab-${id}`, next);
    }
    await tabTo(page, tid('plan-run'));
    await page.keyboard.press('Enter');
    await waitDone(page);
    await tabTo(page, tid('plan-open'));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `page ${width} px wide`);
    await page.addStyleTag({ content: '.toolbar, .phone-bar { position: static !important; }' });
    await page.locator('.workbench').screenshot({ path: await artifact('plan-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('in Chinese: the tab, the progress and the binding constraints in its words', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 800 }, locale: 'zh' });
    await openPlan(page);
    assert.equal((await page.locator(tid('wb-tab-plan')).textContent()).trim(), '容量规划');
    await smallSearch(page);
    await page.locator(tid('plan-run')).click();
    await waitDone(page);
    assert.match(await page.locator(tid('plan-state')).textContent(), /规划用时/);
    assert.match(await page.locator(tid('plan-best-cost')).textContent(), /每小时/);
    assert.match(await page.locator(tid('plan-rejected')).textContent(), /约束因素/);
    const why = await page.locator(tid('plan-rejected-row')).first().textContent();
    assert.match(why, /[\u4e00-\u9fff]/);
    await page.addStyleTag({ content: '.toolbar { position: static !important; }' });
    await page.locator('.workbench').screenshot({ path: await artifact('plan-zh-1280.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
