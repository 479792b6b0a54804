// Embedding in a docs page: ?embed=1 fits frames of 640×400 and 800×500 with the stage and the
// key numbers in view without scrolling (in English and Chinese, on a preset whose badge takes two
// lines); the key numbers are the metrics panel's; view=, controls= and autoplay=0 choose what
// shows and whether it plays; controls= puts the stage and the named controls (and nothing else of
// the editor) in the frame together, and they restart the run; view=stage is no taller than the
// frame; a lesson embed brings the stage into view when its runs start; an address value the page
// cannot use is named; the Share dialog's embed code and its preview, which loads only when asked
// for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, cutText, readSimTime, runToEnd, sleep, tid, useLab } from './lib.mjs';

const ready = async (page) => {
  await page.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state);
};

/** Where an element lies, and whether all of it is inside the viewport (scrolled to the top). */
function placed(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el || !el.getClientRects().length) return { shown: false };
    const r = el.getBoundingClientRect();
    const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
    return { shown: r.width > 0 && r.height > 0, inside, box, width: r.width, view: [innerWidth, innerHeight] };
  }, selector);
}

describe('embedding', { timeout: 300_000 }, () => {
  const lab = useLab({ ready });

  const cases = [
    [640, 400, {}],
    [800, 500, {}],
    [640, 400, { locale: 'zh' }],
    [640, 400, { preset: 'static-batching' }],
  ];
  for (const [w, h, extra] of cases) {
    const name = `${w}x${h}${Object.entries(extra).map(([k, v]) => `-${k}-${v}`).join('')}`;
    test(`embed=1 at ${name}: stage and key numbers in view, nothing cut, no sideways scroll`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h }, query: { embed: 1, ...extra } });
      await page.locator(tid('key-numbers-a')).waitFor();
      await sleep(1500);
      await page.evaluate(() => window.scrollTo(0, 0));
      await sleep(200);
      const stage = await placed(page, '#stage');
      const keys = await placed(page, tid('key-numbers-a'));
      const toolbar = await placed(page, '.toolbar');
      await page.screenshot({ path: await artifact(`embed-${name}.png`) });
      assert.ok(stage.shown && stage.inside, `stage ${JSON.stringify(stage)}`);
      assert.ok(stage.width >= 0.9 * w, `the stage spans the frame: ${JSON.stringify(stage)}`);
      assert.ok(keys.shown && keys.inside, `key numbers ${JSON.stringify(keys)}`);
      assert.ok(toolbar.inside, `toolbar ${JSON.stringify(toolbar)}`);
      // the four key numbers each show a value
      for (const id of ['key-ttft', 'key-tpot', 'key-goodput', 'key-kv']) {
        const text = (await page.locator(`${tid('key-numbers-a')} ${tid(id)} .key-value`).textContent())?.trim();
        assert.ok(text, `${id} is empty`);
      }
      const cut = [];
      for (const scope of ['.toolbar', tid('key-numbers-a'), '.stage-head']) cut.push(...(await cutText(page, { scope })));
      assert.deepEqual(cut, [], `cut text: ${JSON.stringify(cut, null, 1)}`);
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1),
        'the frame does not scroll sideways',
      );
      // the rest of the lab is below the fold, not gone
      assert.ok((await placed(page, tid('metrics-a'))).shown, 'the metrics panel follows below');
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('the key numbers are the metrics panel\'s, red where the panel is', async () => {
    // static batching with a queue timeout at 30 req/s: most requests time out, the answered few are fast
    const { page, errors } = await lab.open('', { viewport: { width: 640, height: 400 }, query: { embed: 1, preset: 'static-batching' } });
    await page.locator(tid('key-numbers-a')).waitFor();
    await sleep(2500);
    await page.locator(tid('play')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'paused');
    await sleep(400);
    const text = async (sel) => (await page.locator(sel).first().textContent())?.trim();
    const key = (id) => text(`${tid('key-numbers-a')} ${tid(id)} .key-value`);
    assert.equal(await key('key-ttft'), await text(tid('metric-ttft-p99')));
    assert.equal(await key('key-tpot'), await text(tid('metric-tpot-p99')));
    assert.equal(await key('key-goodput'), await text(tid('metric-goodput')));
    // the lower bound over every arrival, as the panel's censored row gives it
    const censored = await text(tid('metric-ttft-censored-p99'));
    if (censored.startsWith('≥')) assert.ok((await text(tid('key-ttft-sub'))).includes(censored), 'the key TTFT names the all-arrivals bound');
    // red exactly when the panel's SLO tag is red
    const keyRed = await page.locator(`${tid('key-numbers-a')} ${tid('key-ttft')}`).evaluate((e) => e.classList.contains('over'));
    const panelRed = await page.locator(tid('metric-ttft-slo')).evaluate((e) => e.classList.contains('missed'));
    assert.equal(keyRed, panelRed);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('in A/B each run has its key numbers, tagged, above its own stage', async () => {
    // an A/B comparison is embedded through its share link: B admits four sequences at a time,
    // so its numbers differ from A's
    let code;
    {
      const { page, errors } = await lab.open('', { viewport: { width: 1440, height: 900 } });
      await page.locator(tid('ab-toggle')).click();
      await page.locator(tid('edit-b')).click();
      const seqs = page.locator(tid('field-scheduler.max_num_seqs'));
      await seqs.fill('4');
      await seqs.press('Enter');
      await sleep(300);
      await page.locator(tid('share')).click();
      code = new URL(await page.locator(tid('share-url')).inputValue()).searchParams.get('lab');
      assert.deepEqual(errors, []);
      await page.close();
    }
    const { page, errors } = await lab.open('', { viewport: { width: 800, height: 500 }, query: { embed: 1, lab: code } });
    await page.locator(tid('key-numbers-b')).waitFor();
    await runToEnd(page);
    await sleep(400);
    const text = async (sel) => (await page.locator(sel).first().textContent())?.trim();
    const row = {};
    for (const run of ['a', 'b']) {
      const key = (id) => text(`${tid(`key-numbers-${run}`)} ${tid(id)} .key-value`);
      const panel = (id) => text(`${tid(`metrics-${run}`)} ${tid(id)}`);
      assert.equal(await key('key-ttft'), await panel('metric-ttft-p99'), `run ${run}: TTFT p99`);
      assert.equal(await key('key-goodput'), await panel('metric-goodput'), `run ${run}: goodput`);
      assert.equal(await text(`${tid(`key-numbers-${run}`)} .key-run`), run.toUpperCase());
      row[run] = [await key('key-ttft'), await key('key-goodput')];
    }
    // (both runs' completed requests waited at most the preset's queue timeout, so their TTFT
    // p99 can meet near it; B's four sequences at a time serve far fewer within the SLO)
    assert.notDeepEqual(row.a, row.b, 'A and B show their own numbers');
    // B's key numbers sit right above B's stage
    const order = await page.evaluate(() => {
      const keys = document.querySelector('[data-testid="key-numbers-b"]').getBoundingClientRect();
      const stages = [...document.querySelectorAll('[data-testid="stage"]')].map((e) => e.getBoundingClientRect());
      return { keysBottom: keys.bottom, stageTops: stages.map((r) => r.top) };
    });
    assert.ok(order.stageTops.length === 2 && order.stageTops[0] < order.keysBottom && order.keysBottom <= order.stageTops[1] + 1, JSON.stringify(order));
    await page.screenshot({ path: await artifact('embed-ab-800x500.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('view= shows only the parts named; controls= only the controls named', async () => {
    // the stage may be hidden: wait for the toolbar's state only
    const started = (page) => page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state);
    const displayed = (page, sel) =>
      page.evaluate((s) => {
        const el = document.querySelector(s);
        return !!el && el.getClientRects().length > 0;
      }, sel);
    {
      const { page, errors } = await lab.open('', { viewport: { width: 800, height: 500 }, query: { embed: 1, view: 'metrics' }, ready: started });
      await page.locator(tid('metrics-a')).waitFor();
      await sleep(500);
      assert.equal(await displayed(page, '#stage'), false, 'no stage');
      assert.equal(await displayed(page, tid('hbm-gauge')), false, 'no memory gauge');
      assert.equal(await displayed(page, tid('metrics-a')), true, 'the metrics panel');
      assert.equal(await displayed(page, tid('key-numbers-a')), false, 'no key numbers without the stage beside them');
      assert.deepEqual(errors, []);
      await page.close();
    }
    {
      const { page, errors } = await lab.open('', { viewport: { width: 800, height: 500 }, query: { embed: 1, view: 'stage,controls', controls: 'gpu_memory_utilization' }, ready: started });
      await sleep(800);
      assert.equal(await displayed(page, '#stage'), true);
      assert.equal(await displayed(page, tid('metrics-a')), false, 'no metrics panel');
      assert.equal(await displayed(page, tid('key-numbers-a')), false, 'no key numbers');
      assert.equal(await displayed(page, tid('field-gpu_memory_utilization')), true, 'the named control');
      const fields = await page.evaluate(() => [...document.querySelectorAll('.controls-col [data-testid^="field-"]')]
        .filter((e) => e.getClientRects().length).map((e) => e.dataset.testid));
      assert.deepEqual([...new Set(fields)], ['field-gpu_memory_utilization'], 'only that control');
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  // controls= in an embed: the stage and the named controls fit the frame together, nothing else
  // of the editor shows, and the controls still restart the run
  const TWO = 'classes.arrival.rate_per_s,scheduler.max_num_seqs';
  const controlCases = [
    [640, 400, {}],
    [800, 500, {}],
    [640, 400, { view: 'stage,controls' }],
    [800, 500, { locale: 'zh' }],
  ];
  for (const [w, h, extra] of controlCases) {
    const name = `${w}x${h}${Object.entries(extra).map(([k, v]) => `-${k}-${v.replace(',', '+')}`).join('')}`;
    test(`controls= with two controls at ${name}: the stage and both controls in view, no other editor parts`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h }, query: { embed: 1, controls: TWO, ...extra } });
      await sleep(1500);
      await page.evaluate(() => window.scrollTo(0, 0));
      await sleep(200);
      await page.screenshot({ path: await artifact(`embed-controls-${name}.png`) });
      const stage = await placed(page, '#stage');
      assert.ok(stage.shown && stage.inside, `stage ${JSON.stringify(stage)}`);
      for (const id of ['classes[0].arrival.rate_per_s', 'scheduler.max_num_seqs']) {
        for (const part of ['field', 'slider']) {
          const at = await placed(page, tid(`${part}-${id}`));
          assert.ok(at.shown && at.inside, `${part} ${id}: ${JSON.stringify(at)}`);
        }
      }
      // each keeps its label and unit
      assert.ok(await page.locator('label[for="f-scheduler-max-num-seqs"]').isVisible(), 'the label');
      assert.ok(await page.locator(`${tid('editor-a')} .unit`).first().isVisible(), 'the unit');
      for (const sel of [tid('preset'), tid('field-classes[0].name'), tid('add-class'), '.controls-col .ab-bar', '.workbench', '.rule']) {
        assert.equal(await page.locator(sel).first().isVisible(), false, `${sel} is not shown`);
      }
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1),
        'the frame does not scroll sideways',
      );
      if (!extra.view) {
        const keys = await placed(page, tid('key-numbers-a'));
        assert.ok(keys.shown && keys.inside, `key numbers ${JSON.stringify(keys)}`);
      }
      // a changed control restarts the run with it: an invalid value is named beside it, a valid
      // one starts the run again from t = 0 (two sequences at a time: the queue, and TTFT, grow)
      const ttft = () => page.locator(`${tid('key-numbers-a')} ${tid('key-ttft')} .key-value`).textContent();
      const before = extra.view ? null : await ttft();
      const seqs = page.locator(tid('field-scheduler.max_num_seqs'));
      await seqs.fill('0');
      await seqs.press('Enter');
      await page.locator(`${tid('error-scheduler.max_num_seqs')}:not(:empty)`).waitFor();
      const error = await placed(page, tid('error-scheduler.max_num_seqs'));
      assert.ok(error.shown && error.inside, `the error message shows beside the control: ${JSON.stringify(error)}`);
      const t0 = await readSimTime(page);
      await seqs.fill('2');
      await seqs.press('Enter');
      await page.waitForFunction((t) => {
        const now = Number.parseFloat(document.querySelector('[data-testid="sim-time"]')?.textContent ?? '');
        return now < t && document.querySelector('[data-testid="run-state"]')?.dataset.state === 'playing';
      }, t0);
      assert.equal(await page.locator(`${tid('error-scheduler.max_num_seqs')}:not(:empty)`).count(), 0, 'the error is gone');
      if (before !== null) {
        await page.waitForFunction(
          ([sel, was]) => { const v = document.querySelector(sel)?.textContent; return v && v !== '—' && v !== was; },
          [`${tid('key-numbers-a')} ${tid('key-ttft')} .key-value`, before],
          { timeout: 20_000 },
        );
        assert.notEqual(await ttft(), before, 'the key numbers are the new run\'s');
      }
      // the keyboard reaches the slider
      await page.locator(tid('slider-scheduler.max_num_seqs')).focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'slider-scheduler.max_num_seqs');
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('view=stage: the page is no taller than the frame', async () => {
    for (const [w, h] of [[640, 400], [800, 500]]) {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h }, query: { embed: 1, view: 'stage' } });
      await sleep(1500);
      const size = await page.evaluate(() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth]);
      // measured: 403 px in a 400 px frame, 500 in a 500 px one (the stage ends at the frame's edge)
      assert.ok(size[0] <= h + 8, `${w}×${h}: the page is ${size[0]} px tall`);
      assert.ok(size[1] <= w + 1, `${w}×${h}: no sideways scroll (${size[1]} px wide)`);
      assert.ok((await placed(page, '#stage')).inside, 'the stage is in view');
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  for (const [w, h, locale] of [[800, 500, 'en'], [640, 400, 'en'], [800, 500, 'zh']]) {
    test(`a lesson embed at ${w}x${h} (${locale}): the stage comes into view when the lesson's runs start`, async () => {
      const { page, errors } = await lab.open('', { viewport: { width: w, height: h }, query: { embed: 1, lesson: 'ttft-vs-tpot', locale } });
      await sleep(800);
      // the lesson's text first, the stage below it
      assert.equal((await placed(page, '#stage')).inside, false, 'the stage starts below the lesson');
      await page.locator(tid('lesson-next')).click();
      await page.locator(tid('lesson-choice-0')).click();
      await page.locator(tid('lesson-run')).click();
      await page.locator(tid('lesson-skip')).waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'playing');
      await sleep(1200);
      await page.screenshot({ path: await artifact(`embed-lesson-${w}x${h}-${locale}.png`) });
      const stage = await placed(page, '#stage');
      assert.ok(stage.shown && stage.inside, `the stage is in view while the lesson's runs play: ${JSON.stringify(stage)}`);
      // with its key numbers at the frame's top (the scroll may leave a fraction of a pixel)
      const keys = await placed(page, tid('key-numbers-a'));
      assert.ok(keys.shown && keys.box[1] >= -1 && keys.box[3] <= h, `key numbers ${JSON.stringify(keys)}`);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('autoplay=0 starts paused; a bad view= value is named with what it may be', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 640, height: 400 }, query: { embed: 1, autoplay: 0, view: 'stage,bogus' } });
    await sleep(1200);
    assert.equal(await page.locator(tid('run-state')).getAttribute('data-state'), 'paused');
    assert.equal((await page.locator(tid('sim-time')).textContent()).trim(), '0.000');
    const problem = await page.locator(tid('query-problem')).first().textContent();
    assert.match(problem, /view/);
    assert.match(problem, /bogus/);
    assert.match(problem, /stage, metrics, hbm, charts, controls/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Share gives the embed code for the chosen size; the preview loads only when asked for', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 900 } });
    await page.locator(tid('share')).click();
    await page.locator(tid('embed-code-section')).waitFor();
    const code = () => page.locator(tid('embed-code')).inputValue();
    let html = await code();
    assert.match(html, /<iframe[^>]*\swidth="640"[^>]*\sheight="400"/);
    const src = html.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
    assert.equal(new URL(src).searchParams.get('embed'), '1');
    assert.ok(new URL(src).searchParams.get('lab'), 'the code carries the lab state');
    // no second lab until the preview is asked for
    assert.equal(await page.locator(tid('embed-preview')).count(), 0, 'no preview frame yet');
    assert.equal(page.frames().length, 1);
    await page.locator(tid('embed-size')).selectOption('1');
    html = await code();
    assert.match(html, /\swidth="800"[^>]*\sheight="500"/);
    await page.locator(tid('embed-preview-toggle')).click();
    assert.equal(await page.locator(tid('embed-preview-toggle')).getAttribute('aria-expanded'), 'true');
    const frameEl = page.locator(tid('embed-preview'));
    await frameEl.waitFor();
    assert.equal(await frameEl.getAttribute('width'), '800');
    assert.equal(await frameEl.getAttribute('height'), '500');
    assert.equal((await frameEl.getAttribute('src')).replaceAll('&amp;', '&'), html.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&'));
    const frame = await (await frameEl.elementHandle()).contentFrame();
    await frame.locator(tid('key-numbers-a')).waitFor({ timeout: 20_000 });
    assert.ok(await frame.evaluate(() => document.body.classList.contains('embed')));
    await page.screenshot({ path: await artifact('embed-share-preview.png') });
    // hiding it removes the frame
    await page.locator(tid('embed-preview-toggle')).click();
    assert.equal(await page.locator(tid('embed-preview')).count(), 0);
    await page.locator(tid('share-close')).click();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
