// Layouts that fit: no cut text at 1280×720 and 390 px (default page, A/B, the workbench tabs),
// A/B side by side at 1440×900 with a B-vs-A column whose arrows follow the numbers, and the
// A/B difference named by its control label in English and Chinese.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, parseShown, runToEnd, sleep, tid, useLab } from './lib.mjs';

const ready = async (page) => {
  await page.locator('h1').first().waitFor({ timeout: 15_000 });
  await page.locator(tid('stage')).first().waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state);
};

describe('layouts', { timeout: 240_000 }, () => {
  const lab = useLab({ ready });

  for (const [w, h] of [[1280, 720], [390, 844]]) {
    test(`${w} px: no cut text on the default page, the workbench tabs and A/B`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h } });
      await sleep(800);
      const report = [];
      report.push(['default', await cutText(page)]);
      for (const tab of ['lessons', 'sweep', 'contract', 'exercises']) {
        const button = page.locator(tid(`wb-tab-${tab}`));
        if (!(await button.count())) continue;
        await button.click();
        await sleep(300);
        report.push([tab, await cutText(page)]);
        await button.click();
      }
      await page.locator(tid('ab-toggle')).click();
      await page.locator(tid('metrics-b')).waitFor();
      await sleep(800);
      report.push(['a/b', await cutText(page)]);
      await page.screenshot({ path: await artifact(`layout-${w}.png`) });
      const cut = report.filter(([, list]) => list.length);
      assert.deepEqual(cut, [], `cut text at ${w} px: ${JSON.stringify(cut, null, 1)}`);
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
        'the page is no wider than the screen',
      );
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('390 px: the toolbar is opaque', async () => {
    const { page } = await lab.open('', { viewport: { width: 390, height: 844 } });
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('.toolbar')).backgroundColor);
    assert.match(bg, /^rgb\(/, `opaque background, got ${bg}`);
    await page.close();
  });

  test('1440×900: A/B shows both stages at once, a B-vs-A column with arrows that match the numbers', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await page.locator(tid('pair-static-batching')).click();
    await page.locator('#stage-b').waitFor();
    // the pair buttons sit low in the settings: back to the top of the page, as a learner sees it
    await page.evaluate(() => window.scrollTo(0, 0));
    await sleep(300);
    const inView = await page.evaluate(() => ['stage', 'stage-b'].map((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 300;
    }));
    if (!inView.every(Boolean)) await page.screenshot({ path: await artifact('layout-ab-1440-failed.png') });
    assert.deepEqual(inView, [true, true], 'both canvases lie inside the viewport');
    await page.screenshot({ path: await artifact('layout-ab-1440.png') });
    await runToEnd(page);
    await sleep(500);
    const b = page.locator(tid('metrics-b'));
    await b.locator(tid('vs-head')).waitFor();
    const read = async (panel, id) => parseShown((await page.locator(`${tid(panel)} ${tid(id)}`).textContent()) ?? '', id);
    // goodput: higher is better
    const [ga, gb] = [await read('metrics-a', 'metric-goodput'), await read('metrics-b', 'metric-goodput')];
    const g = b.locator(tid('vs-goodput'));
    assert.equal(await g.getAttribute('data-arrow'), gb > ga ? 'up' : 'down', `goodput A ${ga} B ${gb}`);
    assert.equal(await g.getAttribute('data-verdict'), gb > ga ? 'better' : 'worse');
    // TTFT p99: lower is better
    const [ta, tb] = [await read('metrics-a', 'metric-ttft-p99'), await read('metrics-b', 'metric-ttft-p99')];
    const v = b.locator(tid('vs-ttft-p99'));
    if (Math.abs(tb - ta) > 0.01 * Math.max(ta, tb)) {
      assert.equal(await v.getAttribute('data-arrow'), tb > ta ? 'up' : 'down', `TTFT p99 A ${ta} B ${tb}`);
      assert.equal(await v.getAttribute('data-verdict'), tb < ta ? 'better' : 'worse');
    }
    // the arrow is a shape, not a character
    assert.equal(await g.locator('svg path').count(), 1);
    assert.deepEqual(await cutText(page, { scope: '.metrics-col' }), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const [locale, label] of [['en', 'Batching'], ['zh', '批处理方式']]) {
    test(`A/B names the difference by its control label (${locale})`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 }, locale });
      await page.locator(tid('pair-static-batching')).click();
      await page.locator('#stage-b').waitFor();
      const diff = page.locator(`${tid('stage-b')} ${tid('ab-diff')}`);
      await page.waitForFunction((want) => document.querySelector('[data-testid="stage-b"] [data-testid="ab-diff"]')?.textContent.includes(want), label);
      const text = await diff.textContent();
      assert.ok(text.includes(label), text);
      assert.ok(!/scheduler\.|\[\d\]/.test(text), `no JSON path: ${text}`);
      if (locale === 'zh') await page.screenshot({ path: await artifact('layout-ab-zh.png') });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
