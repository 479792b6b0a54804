// The classroom package: from teacher mode, the open exercise as a SCORM 1.2 zip (imsmanifest.xml,
// an adapter page, the lab under lab/). The zip is read by Python's zipfile (every file's CRC
// checked); the manifest names every file; then the package runs inside a host page with a minimal
// SCORM 1.2 API object, as an LMS serves it: the learner finishes the exercise's run and the API
// receives the score (the share of goals met) and passed/failed, committed, and LMSFinish when
// the page goes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { artifact, serveDir, sleep, tid, useLab } from './lib.mjs';

const EXERCISE = 'chat-cheapest';

const LMS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="data:,">
<script>
  window.calls = [];
  const data = { 'cmi.core.lesson_status': 'not attempted', 'cmi.core.student_name': 'Learner, A' };
  const log = (name, args, ret) => (window.calls.push([name, ...args]), ret);
  window.API = {
    LMSInitialize: (a) => log('LMSInitialize', [a], 'true'),
    LMSFinish: (a) => log('LMSFinish', [a], 'true'),
    LMSGetValue: (k) => log('LMSGetValue', [k], data[k] ?? ''),
    LMSSetValue: (k, v) => ((data[k] = String(v)), log('LMSSetValue', [k, v], 'true')),
    LMSCommit: (a) => log('LMSCommit', [a], 'true'),
    LMSGetLastError: () => '0',
    LMSGetErrorString: () => '',
    LMSGetDiagnostic: () => '',
  };
  window.lmsData = data;
</script></head><body style="margin:0">
<iframe id="sco" src="pkg/index.html" style="width:1280px;height:900px;border:0"></iframe>
</body></html>`;

describe('the classroom package (SCORM 1.2)', { timeout: 300_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
    },
  });
  let dir;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scorm-'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('teacher mode downloads the open exercise as a package an LMS can run, and the LMS gets the result', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('teacher-mode')).check();
    await page.locator(`${tid('teacher')} summary`).click();
    // nothing to package before an exercise is open
    assert.equal(await page.locator(tid('teacher-scorm')).isDisabled(), true);
    assert.match(await page.locator(tid('teacher-scorm-state')).textContent(), /Open an exercise first/);
    await page.locator(tid(`exercise-start-${EXERCISE}`)).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="teacher-scorm"]').disabled);
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.locator(tid('teacher-scorm')).click()]);
    assert.equal(dl.suggestedFilename(), `llm-serving-lab-${EXERCISE}-scorm12.zip`);
    const zipPath = join(dir, 'package.zip');
    await dl.saveAs(zipPath);
    await page.waitForFunction(() => document.querySelector('[data-testid="teacher-scorm-state"]')?.dataset.state === 'saved');
    await page.locator('.teacher-scorm').screenshot({ path: await artifact('teacher-scorm.png') });
    assert.deepEqual(errors, []);
    await page.close();

    // an independent reader: Python's zipfile checks every file's CRC and extracts it
    const pkg = join(dir, 'pkg');
    const listed = execFileSync(
      'python3',
      ['-c', 'import sys, zipfile, json\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nz.extractall(sys.argv[2])\nprint(json.dumps(z.namelist()))', zipPath, pkg],
      { encoding: 'utf8' },
    );
    const names = JSON.parse(listed);
    assert.equal(names[0], 'imsmanifest.xml');
    assert.ok(names.includes('index.html') && names.includes('lab/index.html'), names.slice(0, 8).join(', '));
    assert.ok(names.some((n) => /^lab\/wasm-[0-9a-f]+\/app_bg\.wasm$/.test(n)), 'the lab\'s main module is in the package');
    assert.ok(!names.some((n) => /\.(gz|br)$/.test(n)), 'no precompressed copies');
    const manifest = await readFile(join(pkg, 'imsmanifest.xml'), 'utf8');
    assert.match(manifest, /<schemaversion>1\.2<\/schemaversion>/);
    assert.match(manifest, /adlcp:scormtype="sco" href="index\.html"/);
    const files = [...manifest.matchAll(/<file href="([^"]+)"\/>/g)].map((m) => m[1]);
    assert.deepEqual(files.sort(), names.filter((n) => n !== 'imsmanifest.xml').sort(), 'the manifest names every file');
    for (const f of files) assert.ok(existsSync(join(pkg, f)), f);

    // the LMS: the package served under a course page that holds the SCORM 1.2 API
    await writeFile(join(dir, 'lms.html'), LMS_PAGE);
    const lms = await serveDir(dir);
    try {
      const host = await lab.context.newPage();
      const hostErrors = [];
      host.on('pageerror', (e) => hostErrors.push(String(e)));
      host.on('console', (m) => m.type() === 'error' && hostErrors.push(m.text()));
      await host.setViewportSize({ width: 1300, height: 950 });
      await host.goto(`${lms.url}lms.html`);
      await host.waitForFunction(() => window.calls.some((c) => c[0] === 'LMSInitialize'));
      assert.equal(await host.evaluate(() => window.lmsData['cmi.core.lesson_status']), 'incomplete');
      let labFrame;
      for (let i = 0; i < 100 && !labFrame; i += 1) {
        labFrame = host.frames().find((f) => /\/pkg\/lab\/index\.html\?lab=/.test(f.url()));
        if (!labFrame) await sleep(100);
      }
      assert.ok(labFrame, 'the lab opens inside the package');
      await labFrame.locator(tid('stage')).first().waitFor({ timeout: 20_000 });
      // the exercise is open at the teacher's state; the learner runs it to the end
      await labFrame.locator(tid('exercise-run-to-end')).click({ timeout: 20_000 });
      const attempt = labFrame.locator(tid('exercise-attempt')).first();
      await attempt.waitFor({ timeout: 90_000 });
      const met = await attempt.locator('li[data-metric]').evaluateAll((lis) => lis.map((li) => li.dataset.met));
      await host.waitForFunction(() => window.calls.some((c) => c[0] === 'LMSSetValue' && c[1] === 'cmi.core.score.raw'), null, {
        timeout: 10_000,
      });
      const data = await host.evaluate(() => window.lmsData);
      const goalsMet = met.filter((m) => m === 'true').length;
      assert.equal(data['cmi.core.score.raw'], String(Math.round((100 * goalsMet) / met.length)));
      assert.equal(data['cmi.core.score.min'], '0');
      assert.equal(data['cmi.core.score.max'], '100');
      assert.equal(data['cmi.core.lesson_status'], goalsMet === met.length ? 'passed' : 'failed');
      const calls = await host.evaluate(() => window.calls.map((c) => c[0]));
      assert.ok(calls.lastIndexOf('LMSCommit') > calls.indexOf('LMSSetValue'), calls.join(' '));
      // leaving the page finishes the session
      await host.evaluate(() => {
        document.getElementById('sco').src = 'about:blank';
      });
      await host.waitForFunction(() => window.calls.some((c) => c[0] === 'LMSFinish'));
      assert.deepEqual(hostErrors, []);
      await host.close();
    } finally {
      await lms.close();
    }
  });
});
