// Lessons you watch: after the prediction the lesson's runs play on the stage at a watchable
// speed with callouts pinned to what happens, "Skip to the explanation" (by keyboard) shows the
// explanation quoting the panels; choosing a preset mid-lesson closes it, and changing a setting
// pauses it without leaving its text about other runs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, readMetric, readSimTime, selectPreset, sleep, tid, useLab } from './lib.mjs';

/** A number of milliseconds as a lesson's explanation writes it: "3,289", "13.8", "9.21". */
function lessonMs(v) {
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  return v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

const LESSON = 'goodput-vs-throughput';

describe('lessons you watch', { timeout: 240_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
      await page.waitForFunction(() => window.wasmBindings?.lab_lesson_outcome, null, { timeout: 15_000 });
    },
  });

  /** Opens `id`, predicts `choice` and presses Run: the lesson's runs start playing. */
  async function startWatching(page, id, choice) {
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid(`lesson-open-${id}`)).click();
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid(`lesson-choice-${choice}`)).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).waitFor({ timeout: 20_000 });
  }

  test('the run plays with callouts, skip by keyboard, then the explanation quotes the panels', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    const expected = JSON.parse(await page.evaluate((id) => window.wasmBindings.lab_lesson_outcome(id), LESSON));
    await startWatching(page, LESSON, 2);

    // the play step: A and B on the stage, sim time advancing, no explanation yet
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '2');
    await page.locator('#stage-b').waitFor();
    const t0 = await readSimTime(page);
    await sleep(1500);
    const t1 = await readSimTime(page);
    assert.ok(t1 > t0, `sim time advances while the lesson plays: ${t0} → ${t1}`);
    assert.equal(await page.locator(tid('run-state')).getAttribute('data-state'), 'playing');
    assert.equal(await page.locator(tid('lesson-explanation')).count(), 0, 'the explanation waits for the run');
    const note = await page.locator('.lesson-watch-note').textContent();
    const seconds = Number(note.match(/about (\d+) s/)?.[1]);
    assert.ok(seconds >= 15 && seconds <= 40, `the run plays in 15–40 s: ${note}`);

    // run C (B on the stage) turns its first request away: a callout says so under B's stage
    const callout = page.locator(`${tid('stage-b')} ${tid('lesson-callouts')} li[data-kind="first_timed_out"]`);
    await callout.waitFor({ timeout: 30_000 });
    assert.match(await callout.textContent(), /gives up/);
    const shownAt = Number.parseFloat(await callout.locator('.callout-time').textContent());
    assert.ok(shownAt <= (await readSimTime(page)) + 0.5, 'a callout shows once playback passed its time');
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '2', 'still playing');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: await artifact('watch-playing-1440.png') });
    await page.locator(tid('stage-b')).screenshot({ path: await artifact('watch-callouts-1440.png') });

    // skip, by keyboard
    await page.locator(tid('lesson-skip')).focus();
    await page.keyboard.press('Enter');
    const explanation = page.locator(tid('lesson-explanation'));
    await explanation.waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '3');
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'finished', null, { timeout: 30_000 });

    // the explanation's numbers are the panels' at the end: run C is B on the stage
    const n = expected.numbers;
    const text = await explanation.textContent();
    for (const shown of [`${lessonMs(n.ttft_p99_c_ms)} ms`, `≥ ${lessonMs(n.ttft_p99_all_c_ms)} ms`, `${n.unanswered_c}`]) {
      assert.ok(text.includes(shown), `the explanation should quote ${shown}: ${text}`);
    }
    const p99 = await readMetric(page, 'metric-ttft-p99', tid('metrics-b'));
    assert.ok(Math.abs(p99 - n.ttft_p99_c_ms) / n.ttft_p99_c_ms < 0.01, `panel p99 TTFT ${p99} vs text ${n.ttft_p99_c_ms}`);
    const bound = await readMetric(page, 'metric-ttft-censored-p99', tid('metrics-b'));
    assert.ok(Math.abs(bound - n.ttft_p99_all_c_ms) / n.ttft_p99_all_c_ms < 0.01, `panel ≥ p99 ${bound} vs text ${n.ttft_p99_all_c_ms}`);
    // every moment stays listed with the explanation, and the stage keeps its callouts
    assert.ok(await page.locator(`${tid('lesson-moments')} li[data-kind="first_timed_out"]`).count() === 1);
    assert.ok(await page.locator(`${tid('stage-b')} ${tid('lesson-callouts')} li`).count() >= 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone the callouts sit under the stage while the run plays', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 390, height: 844 } });
    await startWatching(page, LESSON, 2);
    const callout = page.locator(`${tid('stage-b')} ${tid('lesson-callouts')} li`).first();
    await callout.waitFor({ timeout: 30_000 });
    const box = await callout.boundingBox();
    assert.ok(box && box.width <= 390, `the callout fits the phone: ${JSON.stringify(box)}`);
    await page.locator(tid('lesson')).screenshot({ path: await artifact('watch-panel-390.png') });
    await page.locator(tid('stage-b')).screenshot({ path: await artifact('watch-callouts-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a preset chosen mid-lesson closes it and says so; a changed setting pauses it', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await startWatching(page, 'mean-hides-tail', 1);
    await selectPreset(page, 'batch-throughput-first');
    const closed = page.locator(tid('lesson-closed'));
    await closed.waitFor({ timeout: 5000 });
    assert.match(await closed.textContent(), /Mean and tail latency/);
    assert.equal(await page.locator(`${tid('lesson')}.hidden`).count(), 1, 'the lesson is closed');
    assert.equal(await page.locator(tid('lesson-explanation')).count(), 0);
    assert.equal(await page.locator(tid('lesson-callouts')).count(), 0, 'no callout about the lesson’s run');
    // it can be reopened from the notice
    await page.locator(tid('lesson-reopen')).click();
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-lesson'), 'mean-hides-tail');
    assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '0');

    // a setting changed while the explanation shows: paused, its text hidden, and put back
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid('lesson-choice-1')).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click();
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 10_000 });
    const seqs = page.locator(tid('field-scheduler.max_num_seqs'));
    await seqs.fill('8');
    await seqs.press('Enter');
    await page.locator(tid('lesson-paused')).waitFor({ timeout: 5000 });
    assert.equal(await page.locator(tid('lesson-explanation')).count(), 0, 'no text about runs the stage does not show');
    await page.locator(tid('lesson-restore')).click();
    await page.locator(tid('lesson-skip')).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(tid('lesson-paused')).count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
