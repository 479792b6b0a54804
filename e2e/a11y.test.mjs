// Accessibility: skip links and a short tab order, definitions without a tab stop each, the
// workbench tabs by keyboard (WAI-ARIA tabs), charts in words and as tables, reduced motion.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, collectErrors, cutText, readSimTime, sleep, tid, useLab } from './lib.mjs';

/** Presses Tab until the focused element matches `selector`; resolves to the presses it took. */
async function tabTo(page, selector, max = 150) {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return i + 1;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Where the focus is: inside which test id (the closest one), and its own test id. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return { own: el?.dataset?.testid ?? '', tag: el?.tagName ?? '', within: el?.closest('[data-testid]')?.dataset.testid ?? '' };
  });

/** How far the sticky toolbar covers the focused element's top (≤ 0: not at all). */
const underToolbar = (page) =>
  page.evaluate(() => {
    const bar = document.querySelector('.toolbar').getBoundingClientRect();
    const el = document.activeElement.getBoundingClientRect();
    return Math.round(bar.bottom - el.top);
  });

const CHARTS = ['chart-ttft', 'chart-tpot', 'chart-queue', 'chart-batch', 'chart-kv', 'chart-goodput'];

describe('accessibility', { timeout: 300_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator('h1', { hasText: 'LLM Serving Lab' }).waitFor({ timeout: 15_000 });
      await page.locator(tid('stage')).first().waitFor();
    },
  });

  test('a skip link is the first tab stop and reaches the live metrics in a handful of presses', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    // press 1: the skip link, visible while focused
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).own, 'skip-metrics');
    const box = await page.locator(tid('skip-metrics')).boundingBox();
    assert.ok(box && box.y >= 0 && box.height >= 16 && box.width >= 60, `skip link box ${JSON.stringify(box)}`);
    await page.screenshot({ path: await artifact('a11y-skip-link-1440.png') });
    // press 2: Enter moves the focus into the live metrics
    await page.keyboard.press('Enter');
    const presses = 2;
    const at = await focused(page);
    assert.equal(at.within, 'metrics-a', JSON.stringify(at));
    assert.ok(presses <= 4, `${presses} presses to the live metrics`);
    await page.screenshot({ path: await artifact('a11y-metrics-focus-1440.png') });

    // the second skip link leads to the settings; the next Tab is the preset picker
    await page.reload();
    await page.locator(tid('stage')).first().waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).own, 'skip-settings');
    await page.keyboard.press('Enter');
    assert.ok(await page.evaluate(() => document.activeElement.matches('.controls-col')));
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).own, 'preset');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('definitions are no tab stops, yet reach keyboard and screen-reader users', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    // no term is in the tab order (a tap or a click still focuses one)
    const terms = await page.evaluate(() => [...document.querySelectorAll('.term')].map((t) => t.tabIndex));
    assert.ok(terms.length > 20, `${terms.length} terms`);
    assert.deepEqual([...new Set(terms)], [-1]);
    // tab stops from the skip links to the settings' first control: the toolbar and the tab bar only
    const toPreset = await tabTo(page, tid('preset'));
    assert.ok(toPreset <= 24, `${toPreset} presses to the preset picker`);
    // a control is described by its definition
    const rate = page.locator(tid('field-classes[0].arrival.rate_per_s'));
    const described = await rate.evaluate((el) => {
      const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
      return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
    });
    assert.ok(described.length > 30, `description: ${JSON.stringify(described)}`);
    // keyboard focus on a control shows its definition
    await tabTo(page, tid('field-classes[0].arrival.rate_per_s'));
    const shown = await page.evaluate(() => {
      const def = document.activeElement.closest('.field').querySelector('.term .def');
      const r = def.getBoundingClientRect();
      return { display: getComputedStyle(def).display, w: r.width, h: r.height };
    });
    assert.equal(shown.display, 'block');
    assert.ok(shown.w > 50 && shown.h > 10, JSON.stringify(shown));
    await page.screenshot({ path: await artifact('a11y-field-focus-1440.png') });
    // the "Definitions" switch shows every definition in place
    await page.locator(tid('defs-toggle')).click();
    assert.equal(await page.locator(tid('defs-toggle')).getAttribute('aria-pressed'), 'true');
    const visible = await page.evaluate(
      () => [...document.querySelectorAll('.term .def')].filter((d) => getComputedStyle(d).display !== 'none').length,
    );
    assert.ok(visible > 20, `${visible} definitions shown`);
    await page.locator(tid('defs-toggle')).click();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('workbench tabs: Enter and Space open the focused tab, arrows move between tabs', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    assert.equal(await page.locator('.wb-tabs').getAttribute('role'), 'tablist');
    await tabTo(page, tid('wb-tab-lessons'));
    const state = (id) =>
      page.evaluate((id) => {
        const tab = document.querySelector(`[data-testid="wb-tab-${id}"]`);
        const panel = document.getElementById(tab.getAttribute('aria-controls'));
        return {
          selected: tab.getAttribute('aria-selected'),
          focused: document.activeElement === tab,
          panelShown: !!panel && panel.getAttribute('role') === 'tabpanel' && !panel.classList.contains('hidden'),
        };
      }, id);
    await page.keyboard.press('Enter');
    assert.deepEqual(await state('lessons'), { selected: 'true', focused: true, panelShown: true });
    // Enter again keeps it open (activating the selected tab does not close it)
    await page.keyboard.press('Enter');
    assert.equal((await state('lessons')).panelShown, true);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'wb-tab-sweep');
    assert.deepEqual(await state('sweep'), { selected: 'true', focused: true, panelShown: true });
    assert.equal((await state('lessons')).selected, 'false');
    await page.keyboard.press('Space');
    assert.equal((await state('sweep')).panelShown, true);
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'wb-tab-exercises');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'wb-tab-lessons');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'wb-tab-exercises');
    assert.equal((await state('exercises')).panelShown, true);
    // one tab stop for the whole tab bar
    const stops = await page.evaluate(() => [...document.querySelectorAll('.wb-tab')].filter((t) => t.tabIndex === 0).length);
    assert.equal(stops, 1);
    await page.screenshot({ path: await artifact('a11y-tabs-focus-1440.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('every chart has a summary in words and opens a bounded table of its points', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await sleep(2500);
    for (const id of CHARTS) {
      const summary = await page.waitForFunction(
        (id) => {
          const c = document.getElementById(id);
          const d = document.getElementById(c.getAttribute('aria-describedby') ?? '');
          const text = d?.textContent ?? '';
          return /\d/.test(text) && text.length > 20 ? text : false;
        },
        id,
        { timeout: 15_000 },
      );
      const text = await summary.jsonValue();
      assert.ok(text.length < 400, `${id} summary is ${text.length} characters`);
    }
    // by keyboard: focus a chart's button, Enter opens its table
    for (const id of CHARTS) {
      const btn = page.locator(tid(`${id}-data-btn`));
      assert.equal(await btn.getAttribute('aria-expanded'), 'false');
      await btn.focus();
      await page.keyboard.press('Enter');
      assert.equal(await btn.getAttribute('aria-expanded'), 'true');
      const table = page.locator(tid(`${id}-table`));
      await table.waitFor({ state: 'visible' });
      await page.waitForFunction((id) => document.querySelectorAll(`[data-testid="${id}-table"] tbody tr`).length > 0, id);
      const shape = await table.evaluate((t) => ({
        head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
        rows: t.querySelectorAll('tbody tr').length,
        cells: [...t.querySelectorAll('tbody tr:last-child td')].map((td) => td.textContent),
      }));
      assert.ok(shape.head.length >= 2, `${id} head ${JSON.stringify(shape.head)}`);
      assert.ok(shape.rows >= 1 && shape.rows <= 40, `${id} has ${shape.rows} rows`);
      assert.equal(shape.cells.length, shape.head.length);
      assert.ok(shape.cells.slice(1).every((c) => /\d/.test(c)), `${id} cells ${JSON.stringify(shape.cells)}`);
    }
    await page.locator(tid('chart-ttft-data-btn')).focus();
    await page.screenshot({ path: await artifact('a11y-chart-tables-1440.png'), fullPage: true });
    await page.keyboard.press('Enter');
    assert.equal(await page.locator(tid('chart-ttft-data-btn')).getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator(tid('chart-ttft-table')).isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('prefers-reduced-motion: glyphs jump to their places, nothing slides, the run goes on', async () => {
    const page = await lab.context.newPage();
    const calm = { page, errors: collectErrors(page) };
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(lab.url);
    await page.locator(tid('stage')).first().waitFor();
    await calm.page.waitForFunction(() => document.querySelector('canvas#stage')?.dataset.motion === 'reduced');
    const t0 = await readSimTime(calm.page);
    await sleep(1200);
    assert.ok((await readSimTime(calm.page)) > t0, 'the simulation still runs');
    const transition = await calm.page.evaluate(() => getComputedStyle(document.querySelector('.seg, .bar-good, .wb-progress-fill') ?? document.body).transitionDuration);
    assert.match(transition, /^0s/);
    assert.deepEqual(calm.errors, []);
    await calm.page.close();

    const moving = await lab.open('', { viewport: { width: 1440, height: 900 } });
    await moving.page.waitForFunction(() => document.querySelector('canvas#stage')?.dataset.motion === 'full');
    await moving.page.close();
  });

  test('focus states on a phone (390 px): the skip link and a focused field', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 390, height: 844 } });
    await page.keyboard.press('Tab');
    const box = await page.locator(tid('skip-metrics')).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `skip link box ${JSON.stringify(box)}`);
    await page.screenshot({ path: await artifact('a11y-skip-link-390.png') });
    assert.deepEqual(await cutText(page, { scope: '.skip-links' }), []);
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).within, 'metrics-a');
    // the sticky toolbar does not hide where the focus landed
    assert.ok((await underToolbar(page)) <= 0, `the toolbar covers ${await underToolbar(page)} px of the metrics`);
    await page.screenshot({ path: await artifact('a11y-metrics-focus-390.png') });
    await tabTo(page, tid('field-classes[0].arrival.rate_per_s'));
    assert.ok((await underToolbar(page)) <= 0, `the toolbar covers ${await underToolbar(page)} px of the focused field`);
    await page.screenshot({ path: await artifact('a11y-field-focus-390.png') });
    // a chart's button and its open table fit the phone's width (the table scrolls in its box)
    await page.locator(tid('chart-goodput-data-btn')).focus();
    await page.keyboard.press('Enter');
    await page.locator(tid('chart-goodput-table')).waitFor({ state: 'visible' });
    await page.locator(tid('chart-goodput-data-btn')).scrollIntoViewIfNeeded();
    await page.screenshot({ path: await artifact('a11y-chart-table-390.png') });
    assert.deepEqual(await cutText(page, { scope: '.charts' }), []);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
