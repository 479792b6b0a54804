// The workbench under the toolbar: a guided lesson end to end, a sweep (cancel and a finished
// one), the resource contract's acceptance test, and a classroom exercise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, canvasStats, readMetric, readSimTime, selectPreset, sleep, tid, useLab } from './lib.mjs';

/** A number of milliseconds as a lesson's explanation writes it: "3,289", "13.8", "9.21". */
function lessonMs(v) {
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  return v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** The lab state a page's address carries (`lab=1.<base64url JSON>`), or null. */
function stateOf(url) {
  const code = new URL(url).searchParams.get('lab');
  return code ? JSON.parse(Buffer.from(code.split('.')[1], 'base64url').toString('utf8')) : null;
}

/** Waits until the page's address carries a state that satisfies `ok`; returns the address. */
async function addressWith(page, ok, timeout = 5000) {
  const end = Date.now() + timeout;
  for (;;) {
    const state = stateOf(page.url());
    if (state && ok(state)) return page.url();
    if (Date.now() > end) throw new Error(`the address never carried the expected state: ${JSON.stringify(state)}`);
    await sleep(100);
  }
}

/** Screenshots the workbench (the sticky toolbar would cover its top otherwise). */
async function shoot(page, name) {
  await page.addStyleTag({ content: '.toolbar { position: static !important; }' });
  await page.locator('.workbench').screenshot({ path: await artifact(name) });
}

describe('workbench: lessons, sweep, contract, exercises', { timeout: 240_000 }, () => {
  // mounted: the stage is drawn and the wasm bindings the tests call are there
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
      await page.waitForFunction(() => window.wasmBindings?.lab_lesson_outcome, null, { timeout: 15_000 });
    },
  });
  const mounted = (url = '') => lab.open(url, { viewport: { width: 1280, height: 900 } });

  test('a lesson: predict first, run, explanation quotes this run’s numbers, highlight, kind feedback', async () => {
    const { page, errors } = await mounted();
    // computed independently: Lesson::run in one go
    const expected = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_lesson_outcome('mean-hides-tail')));
    assert.equal(expected.id, 'mean-hides-tail');

    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-mean-hides-tail')).click();
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '0');
    await page.locator(tid('lesson-next')).click();
    // no run before a prediction
    assert.equal(await page.locator(tid('lesson-run')).isDisabled(), true);
    const wrong = (expected.answer + 1) % 3;
    await page.locator(tid(`lesson-choice-${wrong}`)).click();
    assert.equal(await page.locator(tid(`lesson-choice-${wrong}`)).getAttribute('aria-pressed'), 'true');
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click(); // the run plays on the stage; the text is what this test checks

    const explanation = page.locator(tid('lesson-explanation'));
    await explanation.waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '3');
    const text = await explanation.textContent();
    const n = expected.numbers;
    for (const shown of [`${lessonMs(n.ttft_p99_ms)} ms`, `${lessonMs(n.ttft_mean_ms)} ms`, `${lessonMs(n.ttft_p50_ms)} ms`, `${n.ratio.toFixed(1)}×`]) {
      assert.ok(text.includes(shown), `the explanation should quote ${shown}: ${text}`);
    }
    assert.doesNotMatch(text, /\{[a-z0-9_]+\}/, 'every placeholder is filled');
    assert.equal(await page.locator(tid('lesson-answer')).getAttribute('data-answer'), String(expected.answer));
    // the prediction was not what the runs showed: said kindly
    const feedback = page.locator(tid('lesson-feedback'));
    assert.equal(await feedback.getAttribute('data-correct'), 'false');
    assert.match(await feedback.textContent(), /which is exactly what experiments are for/);

    // the metric the lesson is about is highlighted in the lab, and the lab catches up to the same run
    await page.waitForFunction(
      () => document.querySelector('[data-testid="metrics-a"] [data-testid="metric-ttft-p99"]')?.classList.contains('lesson-highlight'),
      null,
      { timeout: 5000 },
    );
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'finished', null, { timeout: 30_000 });
    const labP99 = await readMetric(page, 'metric-ttft-p99', tid('metrics-a'));
    assert.ok(Math.abs(labP99 - n.ttft_p99_ms) / n.ttft_p99_ms < 0.01, `lab p99 TTFT ${labP99} ms vs lesson ${n.ttft_p99_ms} ms`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: await artifact('lesson-explained.png'), fullPage: true });

    // predicting again, and right this time
    await page.locator(tid('lesson-again')).click();
    await page.locator(tid(`lesson-choice-${expected.answer}`)).click();
    await page.locator(tid('lesson-run')).click();
    // the runs are known by now: the explanation may come at once, or after a playback to skip
    await page.waitForFunction(
      () => document.querySelector('[data-testid="lesson-skip"]') || document.querySelector('[data-testid="lesson-feedback"]')?.dataset.correct === 'true',
      null,
      { timeout: 30_000 },
    );
    if (await page.locator(tid('lesson-skip')).count()) await page.locator(tid('lesson-skip')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson-feedback"]')?.dataset.correct === 'true', null, { timeout: 30_000 });
    assert.match(await page.locator(tid('lesson-feedback')).textContent(), /Your prediction matches/);

    // play freely keeps the scenario and shows what to try
    await page.locator(tid('lesson-play')).click();
    assert.match(await page.locator(tid('lesson-try')).textContent(), /Burstiness/);

    // the address carries lesson and step: opening it resumes there
    const shared = await addressWith(page, (s) => s.lesson === 'mean-hides-tail' && s.step === 4);
    const again = await mounted(shared);
    await again.page.locator(tid('lesson-try')).waitFor({ timeout: 10_000 });
    assert.equal(await again.page.locator(tid('lesson')).getAttribute('data-lesson'), 'mean-hides-tail');
    assert.equal(await again.page.locator(tid('lesson')).getAttribute('data-step'), '4');
    assert.deepEqual(again.errors, []);
    await again.page.close();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a two-run lesson puts A and B on the stage and shows both runs side by side', async () => {
    const { page, errors } = await mounted();
    const expected = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_lesson_outcome('kv-arithmetic')));
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-kv-arithmetic')).click();
    await page.locator('#stage-b').waitFor();
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid(`lesson-choice-${expected.answer}`)).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click(); // the run plays on the stage; the text is what this test checks
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(tid('lesson-feedback')).getAttribute('data-correct'), 'true');
    const text = await page.locator(tid('lesson-explanation')).textContent();
    assert.ok(text.includes(`${expected.numbers.kv_gqa_gib.toFixed(1)} GiB`), text);
    assert.ok(text.includes(`${expected.numbers.kv_kib_per_token_gqa} KiB`), text);
    const heads = await page.locator(`${tid('lesson-runs')} thead th`).allTextContents();
    assert.deepEqual(heads.slice(1), ['A · Llama-3-8B (GQA)', 'B · Llama-2-7B (no GQA)']);
    // the HBM gauges of both runs are highlighted
    await page.waitForFunction(() => document.querySelectorAll('[data-testid^="hbm-gauge"] .gauge.lesson-highlight').length === 2, null, { timeout: 5000 });
    // after the fast-forward the pool is empty again, and each gauge still marks how full it got
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'finished', null, { timeout: 30_000 });
    for (const [gauge, run] of [['hbm-gauge', 0], ['hbm-gauge-b', 1]]) {
      const peak = page.locator(`${tid(gauge)} ${tid('hbm-peak')}`);
      assert.equal(await peak.isVisible(), true, `${gauge} shows its peak`);
      const gib = expected.runs[run].kv_peak_bytes / 2 ** 30;
      assert.match(await peak.textContent(), new RegExp(`${gib.toFixed(1).replace('.', '\\.')} GiB`));
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the prefix-caching lesson runs its four runs and quotes the hit rates, the evictions and both TTFTs', async () => {
    const { page, errors } = await mounted();
    const expected = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_lesson_outcome('prefix-caching')));
    assert.equal(expected.answer, 1, 'caching still cuts TTFT, far less, on the default seed');
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-prefix-caching')).click();
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid('lesson-choice-1')).click();
    const start = Date.now();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click(); // the run plays on the stage; the text is what this test checks
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 60_000 });
    console.log(`prefix-caching lesson: four runs and the explanation in ${Date.now() - start} ms`);
    assert.equal(await page.locator(tid('lesson-feedback')).getAttribute('data-correct'), 'true');
    const n = expected.numbers;
    const text = await page.locator(tid('lesson-explanation')).textContent();
    const pct = (v) => `${(v * 100).toFixed(1)} %`;
    for (const shown of [
      pct(n.hit_rate_one), pct(n.hit_rate_many), Math.round(n.evicted_many).toLocaleString('en-US'),
      `${lessonMs(n.ttft_p99_one_ms)} → ${lessonMs(n.ttft_p99_one_cached_ms)} ms`,
      `${lessonMs(n.ttft_p99_many_ms)} → ${lessonMs(n.ttft_p99_many_cached_ms)} ms`,
      `${lessonMs(n.ttft_mean_many_ms)} → ${lessonMs(n.ttft_mean_many_cached_ms)} ms; p99`,
    ]) {
      assert.ok(text.includes(shown), `the explanation quotes ${shown}: ${text}`);
    }
    assert.doesNotMatch(text, /\{[a-z0-9_]+\}/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the disaggregation lesson runs its six runs and quotes goodput, both p99s and the KV transfer', async () => {
    const { page, errors } = await mounted();
    const expected = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_lesson_outcome('disaggregation')));
    assert.equal(expected.answer, 2, '2P2D delivers the most goodput on the default seed');
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-disaggregation')).click();
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid('lesson-choice-2')).click();
    const start = Date.now();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click(); // the run plays on the stage; the text is what this test checks
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 60_000 });
    console.log(`disaggregation lesson: six runs and the explanation in ${Date.now() - start} ms`);
    assert.equal(await page.locator(tid('lesson-feedback')).getAttribute('data-correct'), 'true');
    const n = expected.numbers;
    const text = await page.locator(tid('lesson-explanation')).textContent();
    const pct = (v) => `${(v * 100).toFixed(1)} %`;
    const int = (v) => Math.round(v).toLocaleString('en-US');
    for (const shown of [
      `${int(n.goodput_2p2d)} tokens/s`, int(n.goodput_colocated),
      `p99 TPOT was ${lessonMs(n.tpot_p99_colocated_ms)} ms`, pct(n.attainment_colocated),
      `p99 TTFT ${lessonMs(n.ttft_p99_2p2d_ms)} ms`, `p99 TPOT ${lessonMs(n.tpot_p99_2p2d_ms)} ms`,
      `${lessonMs(n.kv_transfer_mean_ms)} ms on average`,
      `p99 TTFT reached ${lessonMs(n.ttft_p99_1p3d_ms)} ms`, `p99 TPOT ${lessonMs(n.tpot_p99_3p1d_ms)} ms`,
      `${lessonMs(n.ttft_p50_light_colocated_ms)} ms against ${lessonMs(n.ttft_p50_light_2p2d_ms)} ms`,
    ]) {
      assert.ok(text.includes(shown), `the explanation quotes ${shown}: ${text}`);
    }
    assert.doesNotMatch(text, /\{[a-z0-9_]+\}/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the page seed drives the open lesson: a new seed runs it again and the text quotes the panels', async () => {
    const { page, errors } = await mounted();
    const outcome = async (seed) => JSON.parse(await page.evaluate((s) => window.wasmBindings.lab_lesson_outcome('mean-hides-tail', s), seed));
    const [at3, at4] = [await outcome(3), await outcome(4)];
    assert.equal(at3.seed, 3);
    assert.notEqual(at3.runs[0].ttft_p99_ms, at4.runs[0].ttft_p99_ms, 'the seed changes the runs');
    const setSeed = async (v) => {
      await page.locator(tid('seed')).fill(String(v));
      await page.locator(tid('seed')).press('Enter');
      await page.locator(tid('seed')).blur();
    };
    await setSeed(3);
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-mean-hides-tail')).click();
    assert.equal(await page.locator(tid('seed')).inputValue(), '3', 'opening a lesson keeps the page seed');
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid('lesson-choice-0')).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click(); // the run plays on the stage; the text is what this test checks
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 30_000 });
    const finished = () => page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'finished', null, { timeout: 30_000 });
    const check = async (want) => {
      await page.waitForFunction((a) => document.querySelector('[data-testid="lesson-answer"]')?.dataset.answer === String(a), want.answer, { timeout: 30_000 });
      await finished();
      const lab = await readMetric(page, 'metric-ttft-p99', tid('metrics-a'));
      const runP99 = want.runs[0].ttft_p99_ms;
      assert.ok(Math.abs(lab - runP99) / runP99 < 0.01, `seed ${want.seed}: lab p99 TTFT ${lab} ms vs the lesson's run ${runP99} ms`);
      const text = await page.locator(tid('lesson-explanation')).textContent();
      assert.doesNotMatch(text, /\{[a-z0-9_]+\}/);
    };
    await check(at3);
    // the learner changes the seed while reading: the lesson runs again on it
    await setSeed(4);
    await check(at4);
    // a wrong prediction names the misconception behind it when the lesson has one written
    const why = page.locator(tid('lesson-why'));
    if (await why.count()) assert.ok((await why.textContent()).trim().length > 20);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a sweep runs in slices: the page stays live, cancel stops it, 3 points finish with a CSV', async () => {
    const { page, errors } = await mounted();
    await page.locator(tid('wb-tab-sweep')).click();
    const progress = () => page.locator(tid('sweep-progress')).getAttribute('data-value').then(Number);
    const phase = () => page.locator(tid('sweep-state')).getAttribute('data-phase');

    // inputs are checked before anything runs
    await page.locator(tid('sweep-steps')).fill('two');
    await page.locator(tid('sweep-run')).click();
    assert.match(await page.locator(tid('sweep-steps-error')).textContent(), /whole number of points from 2 to 100/);
    assert.equal(await phase(), 'idle');

    // a long sweep: the stage keeps animating while it runs, and cancel stops it
    await page.locator(tid('sweep-from')).fill('1');
    await page.locator(tid('sweep-to')).fill('40');
    await page.locator(tid('sweep-steps')).fill('100');
    const t0 = await readSimTime(page);
    await page.locator(tid('sweep-run')).click();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="sweep-progress"]')?.dataset.value) > 0.02, null, { timeout: 30_000 });
    assert.equal(await phase(), 'running');
    assert.ok((await readSimTime(page)) > t0, 'the stage keeps playing during a sweep');
    await page.locator(tid('sweep-cancel')).click();
    assert.equal(await phase(), 'cancelled');
    const stopped = await progress();
    await sleep(800);
    assert.equal(await progress(), stopped, 'progress does not move after cancel');
    assert.ok(stopped < 1, `cancelled at ${stopped}`);
    assert.ok((await page.locator(tid('sweep-point')).count()) < 100);

    // three points, to the end
    await page.locator(tid('sweep-from')).fill('4');
    await page.locator(tid('sweep-to')).fill('12');
    await page.locator(tid('sweep-steps')).fill('3');
    await page.locator(tid('sweep-run')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="sweep-state"]')?.dataset.phase === 'done', null, { timeout: 60_000 });
    assert.equal(await progress(), 1);
    const rows = page.locator(tid('sweep-point'));
    assert.equal(await rows.count(), 3);
    assert.deepEqual(await rows.locator('th').allTextContents().then((a) => a.map((s) => s.replace(/knee/, '').trim())), ['4', '8', '12']);
    await sleep(300);
    for (const id of ['#sweep-chart-good', '#sweep-chart-ttft']) {
      const c = await canvasStats(page, id);
      assert.ok(c.colours > 6, `${id} has only ${c.colours} colours`);
    }
    const href = await page.locator(tid('sweep-csv')).getAttribute('href');
    const csv = decodeURIComponent(href.slice(href.indexOf(',') + 1)).trim().split('\n');
    assert.equal(csv.length, 4, csv.join('\n'));
    assert.match(csv[0], /^rate_per_s,completed,/);
    assert.match(csv[2], /^8,\d+,/);
    // the knee is the point with the most goodput, and only when a point past it was run
    const col = csv[0].split(',').findIndex((h) => /goodput/.test(h));
    const good = csv.slice(1).map((l) => Number(l.split(',')[col]));
    const best = good.indexOf(Math.max(...good));
    if (best < good.length - 1) {
      assert.match(await page.locator(tid('sweep-knee')).textContent(), new RegExp(`goodput peaks at [\\d,]+ tok/s at ${[4, 8, 12][best]} req/s`));
    } else {
      assert.equal(await page.locator(tid('sweep-knee')).count(), 0, 'the last point run is no knee');
      assert.equal(await page.locator(tid('sweep-no-knee')).count(), 1);
    }
    await shoot(page, 'sweep.png');

    // the replica count: 1 to 3 replicas, each point paying for its GPUs
    await page.locator(tid('sweep-param')).selectOption('replicas');
    await page.locator(tid('sweep-from')).fill('1');
    await page.locator(tid('sweep-to')).fill('3');
    await page.locator(tid('sweep-steps')).fill('3');
    await page.locator(tid('sweep-run')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="sweep-state"]')?.dataset.phase === 'done', null, { timeout: 60_000 });
    assert.deepEqual(await rows.locator('th').allTextContents().then((a) => a.map((s) => s.replace(/knee/, '').trim())), ['1', '2', '3']);
    const href2 = await page.locator(tid('sweep-csv')).getAttribute('href');
    const csv2 = decodeURIComponent(href2.slice(href2.indexOf(',') + 1)).trim().split('\n');
    assert.match(csv2[0], /^replicas,completed,/);
    assert.match(csv2[3], /^3,\d+,/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the resource contract: the example passes every line; an impossible target fails its line', async () => {
    const { page, errors } = await mounted();
    // the contract runs the lab's workload: the preset's, not the busier first-visit opening
    await selectPreset(page, 'chat-latency-first');
    await page.locator(tid('wb-tab-contract')).click();
    await page.locator(tid('contract-run')).click();
    const verdict = page.locator(tid('contract-verdict'));
    await verdict.waitFor({ timeout: 30_000 });
    assert.equal(await verdict.getAttribute('data-pass'), 'true');
    const lines = page.locator(tid('contract-line'));
    assert.equal(await lines.count(), 11);
    for (const row of await lines.all()) {
      assert.equal(await row.getAttribute('data-pass'), 'true', await row.textContent());
      assert.match(await row.locator('td.verdict').textContent(), /✓\s*PASS/);
    }

    // p99 TTFT within 1 ms cannot be met
    const field = page.locator(tid('contract-field-slo.ttft_p99_ms'));
    await field.fill('1');
    await field.press('Tab');
    await page.locator(tid('contract-stale')).waitFor({ timeout: 5000 });
    await page.locator(tid('contract-run')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="contract-verdict"]')?.dataset.pass === 'false', null, { timeout: 30_000 });
    const bad = page.locator(`${tid('contract-line')}[data-field="slo.ttft_p99_ms"]`);
    assert.equal(await bad.getAttribute('data-pass'), 'false');
    assert.match(await bad.locator('td.verdict').textContent(), /✗\s*FAIL/);
    assert.match(await bad.textContent(), /≤ 1\.00 ms/);
    assert.equal(await page.locator(`${tid('contract-line')}[data-pass="false"]`).count(), 1);
    assert.match(await verdict.textContent(), /1 of 11 checks fail/);
    await shoot(page, 'contract.png');

    // out of range: sim-core's message beside the field, and the test cannot run
    const conc = page.locator(tid('contract-field-request_limits.max_concurrency'));
    await conc.fill('0');
    await conc.press('Tab');
    await page.locator(tid('contract-errors')).waitFor({ timeout: 5000 });
    assert.match(await page.locator(tid('contract-errors')).textContent(), /Max concurrency \(requests\) must be between 1 and 4,096, got 0/);
    assert.match(await page.locator('[data-err-for="request_limits.max_concurrency"]').textContent(), /must be between 1 and 4,096/);
    assert.equal(await page.locator(tid('contract-run')).isDisabled(), true);

    // import: a broken contract names its field; the exported one comes back
    await page.locator('.contract-import summary').click();
    await page.locator(tid('contract-import-text')).fill('{"version": 1, "model": {"id": "llama-3-8b"}}');
    await page.locator(tid('contract-import')).click();
    assert.match(await page.locator(tid('contract-import-errors')).textContent(), /model.*dtype/i);
    await page.locator(tid('contract-reset')).click();
    const exported = await page.locator(tid('contract-export')).getAttribute('href');
    const json = decodeURIComponent(exported.slice(exported.indexOf(',') + 1));
    assert.equal(JSON.parse(json).slo.ttft_p99_ms, 1000);
    await page.locator(tid('contract-import-text')).fill(json);
    await page.locator(tid('contract-import')).click();
    await page.locator(tid('contract-import-errors')).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await page.locator(tid('contract-use-lab')).isChecked(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an exercise locks the other controls, checks every finished run and keeps the attempts', async () => {
    const { page, errors } = await mounted();
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('exercise-start-chat-cheapest')).click();
    // allowed: the GPU; locked: the KV layout
    await page.waitForFunction(() => document.querySelector('[data-testid="field-scheduler.kv_layout"]')?.disabled === true, null, { timeout: 5000 });
    assert.equal(await page.locator(tid('field-gpu')).isDisabled(), false);
    // the reference solution is offered only after an attempt
    const card = page.locator(tid('exercise-chat-cheapest'));
    assert.equal(await card.locator(tid('exercise-solution')).count(), 0);
    await page.locator(tid('exercise-run-to-end')).click();
    const attempt = page.locator(tid('exercise-attempt'));
    await attempt.first().waitFor({ timeout: 60_000 });
    // as given, the attainment goal is missed
    assert.equal(await attempt.count(), 1);
    assert.equal(await attempt.first().getAttribute('data-pass'), 'false');
    assert.match(await attempt.first().textContent(), /✗ SLO attainment: \d+\.\d %/);
    assert.match(await attempt.first().textContent(), /as given/);
    const solution = card.locator(tid('exercise-solution'));
    await solution.locator('summary').click();
    assert.match(await solution.textContent(), /gpu = mi300x/);
    assert.match(await solution.textContent(), /dtype = fp8/);
    await shoot(page, 'exercise.png');

    // attempts survive a reload (local storage); the link reopens the exercise with its locks
    await addressWith(page, (s) => s.exercise === 'chat-cheapest' && s.locked?.includes('scheduler.kv_layout'));
    await page.reload({ waitUntil: 'load' });
    await page.locator(tid('exercise-attempt')).first().waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(tid('exercise-attempt')).count(), 1);
    assert.equal(await page.locator(tid('field-scheduler.kv_layout')).isDisabled(), true);

    // a teacher's link locks the ticked controls
    await page.locator(tid('teacher-mode')).check();
    await page.locator(`${tid('teacher')} summary`).click();
    await page.locator(tid('teacher-lock-gpu')).check();
    await page.locator(tid('teacher-make')).click();
    const state = stateOf(await page.locator(tid('teacher-link')).inputValue());
    assert.ok(state.locked.includes('gpu'), JSON.stringify(state.locked));
    assert.equal(state.exercise, 'chat-cheapest');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
