// Predict before you see, and links that open what they name: a lesson keeps its claim and its
// numbers hidden until the learner predicts (the stage holds its set-up at t = 0); `?lesson=` and
// `?exercise=` open the lesson's runs and the exercise's scenario, also embedded; a teacher's
// locks hold when the student stops the exercise, and the link can hide the solutions and teacher
// mode; lesson progress survives a reload; "edited" means edited.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { artifact, readSimTime, ROOT, runToEnd, sleep, tid, useLab } from './lib.mjs';

const table = (name) => JSON.parse(readFileSync(join(ROOT, 'app', 'i18n', name), 'utf8'));
const LESSONS = table('lessons.en.json');
const FEATURES = table('features.en.json');
const UI = table('ui.en.json');
const lessonIds = [...new Set(Object.keys(LESSONS).filter((k) => k.endsWith('.claim')).map((k) => k.split('.')[1]))];

/** The first sentence of a lesson's claim: enough to find it on a page. */
const claimStart = (id) => LESSONS[`lesson.${id}.claim`].split(/[.:;—]/)[0].trim();

describe('predict before you see; links and teacher links open what they name', { timeout: 300_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
      await page.waitForFunction(() => window.wasmBindings?.lab_lesson_outcome, null, { timeout: 15_000 });
    },
  });
  const open = (url = '', opts = {}) => lab.open(url, { viewport: { width: 1280, height: 900 }, ...opts });

  test('no claim and no moving stage before the prediction; the claim comes with the outcome', async () => {
    const { page, errors } = await open();
    await page.locator(tid('wb-tab-lessons')).click();
    // the list asks the questions; no card states a lesson's answer
    const list = await page.locator(tid('lessons')).innerText();
    for (const id of lessonIds) {
      assert.ok(!list.includes(claimStart(id)), `the list gives ${id}'s claim away: ${claimStart(id)}`);
      assert.ok(list.includes(LESSONS[`lesson.${id}.question`].slice(0, 40)), `the list asks ${id}'s question`);
    }
    await page.locator(tid('lesson-open-mean-hides-tail')).click();
    for (const step of ['0', '1']) {
      await page.waitForFunction((s) => document.querySelector('[data-testid="lesson"]')?.dataset.step === s, step);
      assert.equal(await page.locator(tid('lesson-claim')).count(), 0, `no claim at step ${step}`);
      assert.ok(!(await page.locator(tid('lesson')).innerText()).includes(claimStart('mean-hides-tail')));
      // the stage holds the set-up: play, step and run-to-end are off, Space does nothing
      assert.equal(await readSimTime(page), 0);
      for (const b of ['play', 'step', 'run-to-end']) assert.equal(await page.locator(tid(b)).isDisabled(), true, b);
      await page.locator('body').press(' ');
      await sleep(1200);
      assert.equal(await readSimTime(page), 0, `the stage is still at step ${step}`);
      assert.equal(await page.locator(tid('play')).getAttribute('title'), UI['toolbar.held']);
      assert.equal(await page.locator(tid('run-state')).getAttribute('data-state'), 'held');
      assert.match(await page.locator(tid('play')).innerText(), new RegExp(UI['toolbar.play']), 'the held button offers Play, not Pause');
      assert.equal(await page.locator(tid('run-state')).innerText(), UI['toolbar.state.held']);
      // the preset box names the lesson whose runs are on the stage
      assert.equal(await page.$eval('#f-preset', (e) => e.selectedOptions[0].textContent), `Lesson: ${LESSONS['lesson.mean-hides-tail.title']}`);
      if (step === '0') await page.locator(tid('lesson-next')).click();
    }
    await page.locator(tid('lesson-choice-0')).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click();
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 30_000 });
    assert.match(await page.locator(tid('lesson-claim')).innerText(), new RegExp(claimStart('mean-hides-tail')));
    assert.equal(await page.locator(tid('play')).isDisabled(), false, 'the lab plays again after the prediction');
    // the stage's accessible label says what the picture shows now, and follows it
    const label = () => page.locator('canvas#stage').getAttribute('aria-label');
    await page.locator(tid('reset')).click();
    await sleep(300);
    const first = await label();
    assert.match(first, /At [\d.]+ s: \d+ waiting, \d+ running, \d+ completed/);
    await page.waitForFunction((l) => document.querySelector('canvas#stage').getAttribute('aria-label') !== l, first, { timeout: 10_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const embed of [false, true]) {
    test(`?lesson= opens the lesson's runs on the stage${embed ? ', embedded' : ''}`, async () => {
      const id = 'context-too-large';
      const { page, errors } = await open(`?${embed ? 'embed=1&' : ''}lesson=${id}`, embed ? { viewport: { width: 800, height: 500 } } : {});
      const outcome = JSON.parse(await page.evaluate((l) => window.wasmBindings.lab_lesson_outcome(l), id));
      await page.waitForFunction((l) => document.querySelector('[data-testid="lesson"]')?.dataset.lesson === l, id);
      assert.equal(await page.locator(tid('lesson')).getAttribute('data-step'), '0');
      // the stage shows the runs the lesson watches (A and B), named as the lesson names them
      const a = LESSONS[`lesson.${id}.variant.${outcome.runs[0].variant}`];
      const b = LESSONS[`lesson.${id}.variant.${outcome.runs[1].variant}`];
      await page.waitForFunction((want) => document.querySelector('[data-testid="stage-a"] h2')?.textContent.includes(want), a);
      assert.equal(await page.locator(`${tid('stage-b')} .stage-head h2`).innerText(), `B · ${b}`);
      assert.equal(await readSimTime(page), 0, 'held at the set-up until the prediction');
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('?exercise= opens the exercise: its scenario, its locks, a first run counted as an unchanged attempt', async () => {
    const { page, errors } = await open('?exercise=chat-cheapest');
    await page.locator(tid('exercise-chat-cheapest')).waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => document.querySelector('#f-preset')?.selectedOptions[0]?.dataset.testid === 'preset-exercise');
    assert.equal(await page.locator(tid('field-scheduler.kv_layout')).isDisabled(), true, 'the exercise locks what it does not allow');
    assert.equal(await page.locator(tid('field-dtype')).isDisabled(), false, 'and leaves what it allows');
    await runToEnd(page);
    const card = page.locator(tid('exercise-chat-cheapest'));
    await card.locator('.attempts tbody tr').first().waitFor({ timeout: 15_000 });
    assert.equal(await card.locator('.attempts tbody tr').count(), 1);
    const values = await card.locator('.attempts tbody tr li').evaluateAll((lis) => lis.map((li) => li.dataset.value));
    assert.ok(values.length > 0 && values.every((v) => v !== '' && v !== 'null'), `every goal measured: ${values}`);
    const settings = await card.locator('.attempts tbody tr td').nth(5).innerText();
    assert.ok(settings.startsWith(FEATURES['features.ex.as_given']), `no setting changed: ${settings}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a teacher link’s locks survive "Stop the exercise"; it can hide the solutions and teacher mode', async () => {
    const { page, errors } = await open();
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('exercise-start-chat-cheapest')).click();
    await page.locator(tid('teacher-mode')).check();
    await page.locator(`${tid('teacher')} summary`).click();
    await page.locator(tid('teacher'), { hasText: FEATURES['features.teacher.all'] }).getByRole('button', { name: FEATURES['features.teacher.all'] }).click();
    await page.locator(tid('teacher-hide-solutions')).check();
    await page.locator(tid('teacher-hide-teacher')).check();
    await page.locator(tid('teacher-make')).click();
    const link = await page.locator(tid('teacher-link')).inputValue();
    assert.deepEqual(errors, []);
    await page.close();

    const other = await lab.launch();
    const student = await open(link, { context: other.context });
    const s = student.page;
    // the link opens the exercise, and with it its tab
    await s.locator(tid('exercise-chat-cheapest')).waitFor();
    const lockedFields = () => s.locator('[data-testid^="field-"]:disabled').count();
    const before = await lockedFields();
    assert.ok(before > 20, `the teacher locked every control: ${before}`);
    assert.equal(await s.locator(tid('teacher-mode')).isVisible(), false, 'teacher mode is hidden');
    await runToEnd(s);
    await s.locator(`${tid('exercise-chat-cheapest')} .attempts tbody tr`).first().waitFor({ timeout: 15_000 });
    assert.equal(await s.locator(tid('exercise-solution')).count(), 0, 'no solution offered');
    await s.locator(tid('exercise-stop')).click();
    await sleep(300);
    assert.equal(await lockedFields(), before, 'stopping the exercise lifts none of the teacher’s locks');
    assert.equal(await s.locator(tid('preset')).isDisabled(), true, 'the preset menu stays locked');
    // opening a lesson keeps them too
    await s.locator(tid('wb-tab-lessons')).click();
    await s.locator(tid('lesson-open-mean-hides-tail')).click();
    await sleep(300);
    assert.equal(await s.locator(tid('preset')).isDisabled(), true);
    assert.deepEqual(student.errors, []);
    await s.close();
    await other.close();
  });

  test('Back and Forward step through the lab’s states; a setting is no new entry', async () => {
    const { page, errors } = await open();
    const step = () => page.locator(tid('lesson')).getAttribute('data-step');
    const addressMoves = async (from) => page.waitForFunction((u) => location.href !== u, from, { timeout: 5000 });
    await page.locator(tid('wb-tab-lessons')).click();
    const start = page.url();
    await page.locator(tid('lesson-open-mean-hides-tail')).click();
    await addressMoves(start);
    const atSetup = page.url();
    await page.locator(tid('lesson-next')).click();
    await addressMoves(atSetup);
    assert.equal(await step(), '1');
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.step === '0');
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.lesson === '');
    assert.equal(new URL(page.url()).origin + new URL(page.url()).pathname, new URL(start).origin + new URL(start).pathname, 'still the lab');
    await page.goForward();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.dataset.lesson === 'mean-hides-tail');
    assert.equal(await step(), '0');
    // a setting replaces the entry: Back from it goes to the state before the lesson
    const before = await page.evaluate(() => history.length);
    await page.locator(tid('lesson-all')).click();
    await sleep(600);
    const listed = await page.evaluate(() => history.length);
    await page.locator(tid('seed')).fill('8');
    await page.locator(tid('seed')).press('Enter');
    await sleep(800);
    assert.equal(await page.evaluate(() => history.length), listed, 'a new seed is no new entry');
    assert.ok(listed >= before, `${before} → ${listed}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a named result code; a class’s codes pasted at once make a verified, sortable table with CSV out', async () => {
    const other = await lab.launch();
    const { page, errors } = await open('', { context: other.context });
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('student-name')).fill('Wang Fang');
    await page.locator(tid('student-name')).press('Enter');
    await page.locator(tid('exercise-start-chat-cheapest')).click();
    await page.locator(tid('exercise-run-to-end')).click();
    const attempt = page.locator(tid('exercise-attempt')).first();
    await attempt.waitFor({ timeout: 90_000 });
    const code = await attempt.locator(tid('result-code')).inputValue();
    const payload = JSON.parse(Buffer.from(code.split('.')[1], 'base64url').toString('utf8'));
    assert.equal(payload.at(-1), 'Wang Fang', 'the code carries the name');
    // the name is remembered
    await page.reload();
    await page.locator(tid('stage')).first().waitFor();
    // the address reopens the exercise, and with it its tab
    await page.locator(tid('student-name')).waitFor();
    assert.equal(await page.locator(tid('student-name')).inputValue(), 'Wang Fang');
    // the teacher pastes a CSV export's lines, a bare code and a damaged one
    const damaged = code.slice(0, -8) + '00000000';
    await page.locator(tid('teacher-mode')).check();
    await page.locator(tid('code-input')).fill(`attempt,result_code\n1,"${code}"\n${damaged}\n${code}\n`);
    await page.locator(`button${tid('code-check')}`).click();
    const tableEl = page.locator(tid('class-table'));
    await tableEl.waitFor({ timeout: 90_000 });
    const verdicts = () => tableEl.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.verdict));
    assert.deepEqual((await verdicts()).sort(), ['refused', 'verified'], 'each code once');
    assert.deepEqual(await tableEl.locator(tid('class-name')).allInnerTexts(), ['Wang Fang', '—']);
    await page.locator(tid('class-sort-verdict')).click();
    assert.deepEqual(await verdicts(), ['verified', 'refused']);
    await page.locator(tid('class-sort-verdict')).click();
    assert.deepEqual(await verdicts(), ['refused', 'verified'], 'a second click reverses');
    assert.equal(await page.locator('th', { has: page.locator(tid('class-sort-verdict')) }).getAttribute('aria-sort'), 'descending');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(tid('class-csv')).click()]);
    const csv = readFileSync(await dl.path(), 'utf8').trim().split('\n');
    assert.equal(csv[0], 'name,exercise,verdict,disagrees_on,pass,score,code');
    assert.ok(csv.some((l) => l.startsWith('Wang Fang,chat-cheapest,verified,') && l.endsWith(code)), csv.join('\n'));
    assert.equal(csv.length, 3);
    // the same codes as files: opened (two at once), or dropped on the box
    const asFiles = [
      { name: 'wang.txt', mimeType: 'text/plain', buffer: Buffer.from(`${code}\n`) },
      { name: 'export.csv', mimeType: 'text/csv', buffer: Buffer.from(`attempt,result_code\n1,"${damaged}"\n`) },
    ];
    const clearTable = async () => {
      await page.locator(tid('code-input')).fill('not a code');
      await page.locator(`button${tid('code-check')}`).click();
      await tableEl.waitFor({ state: 'detached' });
    };
    await clearTable();
    await page.locator(tid('code-files')).setInputFiles(asFiles);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="class-table"] tbody tr').length === 2, null, { timeout: 90_000 });
    assert.ok((await page.locator(tid('code-input')).inputValue()).includes(damaged), 'the files\' texts are in the box');
    assert.deepEqual((await verdicts()).sort(), ['refused', 'verified']);
    await clearTable();
    await page.locator(tid('code-input')).evaluate((box, texts) => {
      const dt = new DataTransfer();
      texts.forEach((t, i) => dt.items.add(new File([t], `code-${i}.txt`, { type: 'text/plain' })));
      box.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, [code, damaged]);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="class-table"] tbody tr').length === 2, null, { timeout: 90_000 });
    assert.deepEqual((await verdicts()).sort(), ['refused', 'verified']);
    await page.locator(tid('code-check')).first().scrollIntoViewIfNeeded();
    assert.equal(await page.locator(tid('code-files-error')).isVisible(), false);
    await page.screenshot({ path: await artifact('teacher-class-table.png') });
    assert.deepEqual(errors, []);
    await page.close();
    await other.close();
  });

  test('lesson progress survives a reload; "edited" appears only after an edit', async () => {
    const other = await lab.launch();
    const { page, errors } = await open('', { context: other.context });
    await page.locator(tid('wb-tab-lessons')).click();
    await page.locator(tid('lesson-open-kv-arithmetic')).click();
    // a lesson's runs are what was loaded, not an edit
    assert.doesNotMatch(await page.locator(tid('preset-summary')).first().innerText(), /edited/);
    const expected = JSON.parse(await page.evaluate(() => window.wasmBindings.lab_lesson_outcome('kv-arithmetic')));
    await page.locator(tid('lesson-next')).click();
    await page.locator(tid(`lesson-choice-${expected.answer}`)).click();
    await page.locator(tid('lesson-run')).click();
    await page.locator(tid('lesson-skip')).click();
    await page.locator(tid('lesson-explanation')).waitFor({ timeout: 30_000 });
    const inLesson = page.url();
    await page.locator(tid('lesson-all')).click();
    assert.equal(await page.locator(tid('lesson-mark-kv-arithmetic')).getAttribute('data-mark'), 'right');
    // the address follows (a moment later): a reload then opens the list, not the lesson
    await page.waitForFunction((u) => location.href !== u, inLesson);
    await page.reload();
    await page.locator(tid('stage')).first().waitFor();
    await page.locator(tid('wb-tab-lessons')).click();
    assert.equal(await page.locator(tid('lesson-mark-kv-arithmetic')).getAttribute('data-mark'), 'right', 'kept across the reload');
    assert.equal(await page.locator(tid('lesson-mark-mean-hides-tail')).count(), 0);
    assert.match(await page.locator(tid('lesson-progress-count')).innerText(), new RegExp(`1 of ${lessonIds.length}`));
    // an edit is an edit
    assert.doesNotMatch(await page.locator(tid('preset-summary')).first().innerText(), /edited/);
    await page.locator(tid('field-scheduler.max_num_seqs')).fill('48');
    await page.locator(tid('field-scheduler.max_num_seqs')).press('Enter');
    await page.waitForFunction(() => /edited/.test(document.querySelector('[data-testid="preset-summary"]')?.textContent ?? ''));
    assert.deepEqual(errors, []);
    await page.close();
    await other.close();
  });
});
