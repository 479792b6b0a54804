// Classrooms: an attempt at an exercise exports as CSV and JSON with the panel's values, prints
// as a clean summary, and carries a result code that teacher mode verifies by re-running it (a
// tampered or cut code is refused with the part that failed). Teacher controls stay hidden until
// teacher mode; a teacher's lock holds inside the exercise; the lock list shows control labels in
// English and Chinese; the preset box names the exercise's scenario.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { artifact, ROOT, tid, useLab } from './lib.mjs';

const table = (name) => JSON.parse(readFileSync(join(ROOT, 'app', 'i18n', name), 'utf8'));
const UI = { en: table('ui.en.json'), zh: table('ui.zh.json') };
const FEATURES = { en: table('features.en.json'), zh: table('features.zh.json') };

/** FNV-1a over the bytes, as eight hex digits (the result code's checksum). */
function fnv(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
const decodeCode = (code) => JSON.parse(Buffer.from(code.split('.')[1], 'base64url').toString('utf8'));
const encodeCode = (payload) => {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  return `R1.${bytes.toString('base64url')}.${fnv(bytes)}`;
};

/** A small CSV reader (quoted cells with doubled quotes). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else cell += c;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows;
}

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(tid(testid)).click()]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

async function shot(page, name) {
  await page.screenshot({ path: await artifact(name), fullPage: false });
}

describe('classroom: exports, print, result codes, teacher mode, locks', { timeout: 300_000 }, () => {
  const lab = useLab({ ready: (page) => page.locator(tid('stage')).first().waitFor({ timeout: 15_000 }) });
  const viewport = { width: 1440, height: 900 };
  const open = (url = '', opts = {}) => lab.open(url, { viewport, ...opts });

  test('an attempt exports, prints, and its result code verifies; tampered codes are refused', async () => {
    const { page, errors } = await open();
    await page.locator(tid('wb-tab-exercises')).click();
    // teacher controls hidden until teacher mode
    assert.equal(await page.locator(tid('teacher-tools')).isVisible(), false);
    assert.equal(await page.locator(tid('teacher-make')).isVisible(), false);
    assert.equal(await page.locator(tid('code-input')).isVisible(), false);

    await page.locator(tid('exercise-start-chat-cheapest')).click();
    // the preset box names the exercise's scenario, not the preset loaded before
    const title = FEATURES.en['features.ex.chat-cheapest.title'];
    await page.waitForFunction(() => document.querySelector('#f-preset')?.selectedOptions[0]?.dataset.testid === 'preset-exercise');
    assert.equal(await page.$eval('#f-preset', (s) => s.selectedOptions[0].textContent), `Exercise: ${title}`);
    // no teacher locked anything: no card says so (another exercise's locks are not a teacher's)
    assert.equal(await page.locator(tid('teacher-locked')).count(), 0);
    // a control the exercise locks is not editable
    assert.equal(await page.locator(tid('field-scheduler.kv_layout')).isDisabled(), true);

    // the learner changes an allowed setting and lets the run finish
    await page.locator(tid('field-gpu')).selectOption('mi300x');
    await page.waitForFunction(() => document.querySelector('[data-testid="field-gpu"]').value === 'mi300x');
    await page.waitForTimeout(300);
    await page.locator(tid('exercise-run-to-end')).click();
    const attempt = page.locator(tid('exercise-attempt')).first();
    await attempt.waitFor({ timeout: 90_000 });
    const seed = await attempt.getAttribute('data-seed');
    const score = await attempt.getAttribute('data-score');
    const settings = await attempt.locator(tid('attempt-settings')).textContent();
    assert.match(settings, /gpu = mi300x/);
    const goals = await attempt.locator('li[data-metric]').evaluateAll((lis) =>
      lis.map((li) => ({ metric: li.dataset.metric, value: li.dataset.value, met: li.dataset.met })),
    );
    assert.equal(goals.length, 3);
    const code = await attempt.locator(tid('result-code')).inputValue();
    assert.match(code, /^R1\.[A-Za-z0-9_-]+\.[0-9a-f]{8}$/);
    console.log(`result code: ${code.length} characters`);
    await shot(page, 'classroom-attempt.png');

    // CSV: header and the row's values are the panel's
    const csv = await download(page, 'exercise-csv');
    assert.equal(csv.name, 'attempts-chat-cheapest.csv');
    const [head, row, ...rest] = parseCsv(csv.text);
    assert.equal(rest.length, 0);
    assert.deepEqual(head.slice(0, 7), ['exercise', 'attempt', 'when', 'seed', 'changed_settings', 'changed_settings_by_label', 'pass']);
    assert.equal(head.at(-1), 'result_code');
    const cell = (name) => row[head.indexOf(name)];
    assert.equal(cell('exercise'), 'chat-cheapest');
    assert.equal(cell('seed'), seed);
    assert.equal(cell('changed_settings'), 'gpu = mi300x');
    assert.equal(cell('changed_settings_by_label'), `${UI.en['setting.gpu.label']} = mi300x`);
    assert.match(cell('when'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const g of goals) {
      const at = head.findIndex((h) => h.startsWith(`${g.metric} `) && !h.endsWith(' met'));
      assert.ok(at > 0, `a column for ${g.metric}: ${head}`);
      assert.equal(row[at], g.value);
      assert.equal(row[head.indexOf(`${g.metric} met`)], g.met === 'true' ? 'yes' : 'no');
    }
    assert.equal(row[head.findIndex((h) => h.startsWith('score'))], score);
    assert.equal(cell('result_code'), code);

    // JSON parses and says the same
    const json = JSON.parse((await download(page, 'exercise-json')).text);
    assert.equal(json.exercise, 'chat-cheapest');
    assert.equal(json.attempts.length, 1);
    assert.equal(String(json.attempts[0].seed), seed);
    assert.equal(json.attempts[0].result_code, code);
    assert.deepEqual(json.attempts[0].goals.map((g) => String(g.measured)), goals.map((g) => g.value));

    // the print view: only the exercise, its goals, the attempts and the best result
    await page.emulateMedia({ media: 'print' });
    const card = page.locator(tid('exercise-chat-cheapest'));
    assert.equal(await card.isVisible(), true);
    assert.equal(await page.locator(tid('stage')).first().isVisible(), false);
    assert.equal(await page.locator(tid('exercise-mixed-20')).isVisible(), false);
    assert.equal(await page.locator('#f-preset').isVisible(), false);
    assert.equal(await card.locator(tid('exercise-best')).isVisible(), true);
    assert.equal(await card.locator(tid('exercise-attempt')).isVisible(), true);
    assert.equal(await card.locator(tid('exercise-csv')).isVisible(), false);
    await page.screenshot({ path: await artifact('classroom-print.png'), fullPage: true });
    const pdf = await page.pdf({ path: await artifact('classroom-print.pdf'), format: 'A4' });
    assert.ok(pdf.length > 1000);
    await page.emulateMedia({ media: 'screen' });

    // teacher mode shows the tools; the student's code verifies by re-running it
    await page.locator(tid('teacher-mode')).check();
    assert.equal(await page.locator(tid('teacher-tools')).isVisible(), true);
    const verdict = page.locator(tid('code-verdict'));
    const check = async (text) => {
      await page.locator(tid('code-input')).fill(text);
      await page.locator(`button${tid('code-check')}`).click();
      await page.waitForFunction(() => {
        const v = document.querySelector('[data-testid="code-verdict"]');
        return v && v.dataset.state !== 'checking';
      }, null, { timeout: 60_000 });
      return { state: await verdict.getAttribute('data-state'), text: await verdict.textContent() };
    };
    let v = await check(code);
    assert.equal(v.state, 'verified');
    assert.equal(v.text, FEATURES.en['features.class.code.verified']);
    await page.locator(`section${tid('code-check')}`).scrollIntoViewIfNeeded();
    await shot(page, 'classroom-verified.png');

    // a claimed number changed (with a fitting checksum): the re-run disagrees, named
    const payload = decodeCode(code);
    payload[3][0] = payload[3][0] * 0.5;
    v = await check(encodeCode(payload));
    assert.equal(v.state, 'mismatch');
    assert.match(v.text, /^Not verified: .*p99 TTFT/);
    // a setting changed: other numbers
    const other = decodeCode(code);
    other[2] = [['gpu', 'h200']];
    v = await check(encodeCode(other));
    assert.equal(v.state, 'mismatch');
    // a locked setting: refused before running, naming it
    const locked = decodeCode(code);
    locked[2].push(['kv_layout', 'contiguous']);
    v = await check(encodeCode(locked));
    assert.equal(v.state, 'refused');
    assert.match(v.text, /kv_layout.*locked/);
    // cut short or edited by hand: the checksum
    v = await check(code.slice(0, -5));
    assert.equal(v.state, 'refused');
    assert.equal(v.text, FEATURES.en['features.class.code.damaged']);
    const flipped = code.slice(0, 10) + (code[10] === 'A' ? 'B' : 'A') + code.slice(11);
    assert.equal((await check(flipped)).text, FEATURES.en['features.class.code.damaged']);
    assert.equal((await check('hello')).text, FEATURES.en['features.class.code.not_code']);
    await shot(page, 'classroom-refused.png');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a teacher’s lock holds inside an exercise; the lock list shows labels in en and zh', async () => {
    const { page, errors } = await open();
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('teacher-mode')).check();
    await page.locator(`${tid('teacher')} summary`).click();
    // labels, not ids
    const grid = page.locator(`${tid('teacher')} .lock-grid`);
    const isolation = page.locator('label', { has: page.locator(tid('teacher-lock-scheduler.isolation')) });
    assert.equal((await isolation.textContent()).trim(), UI.en['setting.isolation.label']);
    assert.doesNotMatch(await grid.textContent(), /scheduler\.|classes\.|_/);
    // lock the GPU (an exercise allows it) and open the link
    await page.locator(tid('teacher-lock-gpu')).check();
    await page.locator(tid('teacher-make')).click();
    const link = await page.locator(tid('teacher-link')).inputValue();
    await page.close();

    // the student's own browser: no teacher mode, no attempts
    const other = await lab.launch();
    const student = await open(link, { context: other.context });
    const s = student.page;
    await s.locator(tid('wb-tab-exercises')).click();
    assert.equal(await s.locator(tid('teacher-tools')).isVisible(), false);
    await s.locator(tid('exercise-start-chat-cheapest')).click();
    await s.waitForFunction(() => document.querySelector('[data-testid="field-scheduler.kv_layout"]')?.disabled === true);
    assert.equal(await s.locator(tid('field-gpu')).isDisabled(), true, 'the teacher locked the GPU');
    assert.equal(await s.locator(tid('field-dtype')).isDisabled(), false, 'the exercise allows the precision');
    const card = s.locator(tid('exercise-chat-cheapest'));
    const allowed = (await card.locator(tid('exercise-allowed')).textContent()).split(': ')[1].split(' · ');
    assert.ok(!allowed.includes(UI.en['setting.gpu.label']) && allowed.includes(UI.en['setting.dtype.label']), allowed.join('|'));
    assert.match(await card.locator(tid('teacher-locked')).textContent(), new RegExp(UI.en['setting.gpu.label']));
    // closing the exercise keeps the teacher's lock
    await s.locator(tid('exercise-stop')).click();
    assert.equal(await s.locator(tid('field-gpu')).isDisabled(), true);
    assert.equal(await s.locator(tid('field-scheduler.kv_layout')).isDisabled(), false);
    assert.deepEqual(student.errors, []);
    await s.close();
    await other.close();

    // Chinese: the lock list and the preset box in Chinese
    const zh = await open('', { locale: 'zh' });
    const z = zh.page;
    await z.locator(tid('wb-tab-exercises')).click();
    await z.locator(tid('teacher-mode')).check();
    await z.locator(`${tid('teacher')} summary`).click();
    const zIsolation = z.locator('label', { has: z.locator(tid('teacher-lock-scheduler.isolation')) });
    assert.equal((await zIsolation.textContent()).trim(), UI.zh['setting.isolation.label']);
    await z.locator(tid('exercise-start-mixed-20')).click();
    const zTitle = FEATURES.zh['features.ex.mixed-20.title'];
    await z.waitForFunction(() => document.querySelector('#f-preset')?.selectedOptions[0]?.dataset.testid === 'preset-exercise');
    assert.equal(await z.$eval('#f-preset', (e) => e.selectedOptions[0].textContent), `练习：${zTitle}`);
    await z.locator(tid('teacher')).scrollIntoViewIfNeeded();
    await shot(z, 'classroom-zh.png');
    assert.deepEqual(errors, []);
    assert.deepEqual(zh.errors, []);
    await z.close();
  });
});
