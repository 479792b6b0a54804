// The screenshots in docs/teaching.md's "Teacher tools", taken from the release build:
//   node scripts/teaching-screens.mjs        (after `bash scripts/build-web.sh`; writes docs/img/)
// It serves dist/ itself on a free port and stops the server when done.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, ROOT, launchBrowser, serveDir, tid } from '../e2e/lib.mjs';

const OUT = join(ROOT, 'docs', 'img');
mkdirSync(OUT, { recursive: true });
const server = await serveDir(DIST);
const base = server.url;
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(base);
  await page.locator(tid('stage')).first().waitFor();
  await page.locator(tid('wb-tab-exercises')).click();
  // a student: a name on the codes, one finished attempt
  await page.locator(tid('student-name')).fill('Wang Fang');
  await page.locator(tid('student-name')).press('Enter');
  await page.locator(tid('exercise-start-chat-cheapest')).click();
  await page.locator(tid('exercise-run-to-end')).click();
  const attempt = page.locator(tid('exercise-attempt')).first();
  await attempt.waitFor({ timeout: 120_000 });
  const code = await attempt.locator(tid('result-code')).inputValue();
  await page.locator(tid('exercise-chat-cheapest')).screenshot({ path: join(OUT, 'teaching-attempt.png') });
  // the teacher: the link maker with its locks and what to hide
  await page.locator(tid('teacher-mode')).check();
  await page.locator(`${tid('teacher')} summary`).click();
  await page.locator(tid('teacher-hide-solutions')).check();
  await page.locator(tid('teacher-make')).click();
  await page.locator(tid('teacher-link')).waitFor();
  await page.locator(tid('teacher')).screenshot({ path: join(OUT, 'teaching-link.png') });
  // a class's codes at once: the table
  const damaged = code.slice(0, -8) + '00000000';
  await page.locator(tid('code-input')).fill(`name,result_code\nWang Fang,"${code}"\n${damaged}\n`);
  await page.locator(`button${tid('code-check')}`).click();
  await page.locator(tid('class-table')).waitFor({ timeout: 120_000 });
  await page.locator(tid('code-check')).first().screenshot({ path: join(OUT, 'teaching-class-table.png') });
  console.log(`teaching-screens: wrote ${OUT}/teaching-{attempt,link,class-table}.png`);
} finally {
  await browser.close();
  await server.close();
}
