// Layouts that fit: no cut text at 1280×720 and 390 px (default page, A/B, the workbench tabs),
// A/B side by side at 1440×900 with a B-vs-A column whose arrows follow the numbers, and the
// A/B difference named by its control label in English and Chinese; a one-row header, the live
// metrics inside the screen with every definition shown, a phone bar that keeps p99 beside the
// setting being changed, and the Share dialog's labels whole in Chinese.
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

  for (const [w, h, locale] of [[1440, 900, 'en'], [1280, 720, 'en'], [1280, 720, 'zh']]) {
    test(`${w} px ${locale}: the header is one row, and with Definitions on the live metrics stay on screen`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h }, locale });
      const row = await page.evaluate(() => {
        const r = (s) => document.querySelector(s).getBoundingClientRect();
        return { h1: r('header.top h1'), tools: r('header.top .top-tools'), header: r('header.top') };
      });
      // the language and Definitions buttons sit beside the title, not on a row of their own
      assert.ok(row.tools.top < row.h1.bottom, `tools at ${row.tools.top}, title ends at ${row.h1.bottom}`);
      assert.ok(row.header.height <= 70, `header ${row.header.height} px tall`);
      await page.locator(tid('defs-toggle')).click();
      await sleep(400);
      const fit = await page.evaluate(() => {
        const panel = document.querySelector('[data-testid="metrics-a"]').getBoundingClientRect();
        const table = document.querySelector('[data-testid="metrics-a"] table.lat').getBoundingClientRect();
        const caption = document.querySelector('[data-testid="metrics-a"] .defs-caption');
        return {
          panel: panel.right, table: table.right, vw: window.innerWidth, sw: document.documentElement.scrollWidth,
          caption: caption.getBoundingClientRect().height, captionText: caption.textContent,
        };
      });
      assert.ok(fit.panel <= fit.vw, `the metrics panel ends at ${fit.panel} px on a ${fit.vw} px screen`);
      assert.ok(fit.table <= fit.panel, `the latency table ends at ${fit.table}, its panel at ${fit.panel}`);
      assert.ok(fit.sw <= fit.vw + 1, `page ${fit.sw} px wide`);
      // the columns' definitions stand above the table, one each
      assert.ok(fit.caption > 40, `definitions caption ${fit.caption} px`);
      const p99 = await page.evaluate(() => document.querySelector('[data-testid="metrics-a"] thead .term .def')?.textContent ?? '');
      assert.ok(p99 && fit.captionText.includes(p99), 'the p50 definition is in the caption');
      await page.screenshot({ path: await artifact(`layout-defs-${w}-${locale}.png`) });
      assert.deepEqual(await cutText(page, { scope: '.metrics-col' }), []);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('390 px: while a setting far down the page changes, a one-row bar at the top shows its p99', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 390, height: 844 } });
    const rate = page.locator(tid('field-classes[0].arrival.rate_per_s'));
    await rate.scrollIntoViewIfNeeded();
    await rate.fill('24');
    await rate.press('Enter');
    await sleep(2500);
    const seen = await page.evaluate(() => {
      const bar = document.querySelector('[data-testid="phone-bar"]').getBoundingClientRect();
      const input = document.querySelector('[data-testid="field-classes[0].arrival.rate_per_s"]').getBoundingClientRect();
      const toolbar = document.querySelector('.toolbar').getBoundingClientRect();
      const ttft = document.querySelector('[data-testid="phone-bar"] [data-testid="key-ttft"]').getBoundingClientRect();
      return { bar: { top: bar.top, bottom: bar.bottom, height: bar.height }, input: input.top, toolbar: toolbar.bottom, ttft: ttft.height, vh: window.innerHeight };
    });
    assert.ok(seen.input > seen.bar.bottom && seen.input < seen.vh, `the setting is on screen below the bar: ${JSON.stringify(seen)}`);
    assert.equal(Math.round(seen.bar.top), 0, 'the bar stays at the top');
    assert.ok(seen.bar.height <= 0.08 * seen.vh, `the bar takes ${seen.bar.height} of ${seen.vh} px`);
    assert.ok(seen.toolbar <= 0, 'the full toolbar has scrolled away');
    assert.ok(seen.ttft > 0, 'p99 TTFT shows in the bar');
    // the bar's numbers are the panel's
    await page.locator(`${tid('phone-bar')} ${tid('phone-play')}`).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'paused');
    await sleep(400);
    const text = async (sel) => (await page.locator(sel).first().textContent())?.trim();
    assert.equal(await text(`${tid('phone-bar')} ${tid('key-ttft')} .key-value`), await text(tid('metric-ttft-p99')));
    assert.equal(await text(`${tid('phone-bar')} ${tid('key-tpot')} .key-value`), await text(tid('metric-tpot-p99')));
    await page.screenshot({ path: await artifact('layout-phone-bar-390.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('1280 px: wider screens have no phone bar', async () => {
    const { page } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    assert.equal(await page.locator(tid('phone-bar')).isVisible(), false);
    await page.close();
  });

  for (const w of [1440, 390]) {
    test(`${w} px zh: the Share dialog's embed parts keep their labels on one line`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: 844 }, locale: 'zh' });
      await page.locator(tid('share')).click();
      await page.locator(tid('embed-part-stage')).waitFor();
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('.embed-parts .check-line')].map((l) => {
          const fs = parseFloat(getComputedStyle(l).fontSize);
          return { text: l.textContent.trim(), lines: Math.round(l.getBoundingClientRect().height / (fs * 1.6)) };
        }),
      );
      assert.ok(lines.length >= 4, JSON.stringify(lines));
      assert.deepEqual(lines.filter((l) => l.lines > 1), [], 'labels broken over lines');
      await page.locator('.share-pop').screenshot({ path: await artifact(`layout-share-zh-${w}.png`) });
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
