// Share links, embedding, the language switch, the projector profile and keyboard use.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ROOT, artifact, canvasStats, readSimTime, runToEnd, serveDir, sleep, tid, useLab } from './lib.mjs';

/** The numbers compared between the page that made a link and the page that opened it. */
const SHOWN = [
  'metric-ttft-p50',
  'metric-ttft-p99',
  'metric-ttft-mean',
  'metric-tpot-p99',
  'metric-throughput',
  'metric-goodput',
  'metric-slo-attainment',
  'metric-cost-output',
  'count-completed',
  'count-rejected',
  'count-timed-out',
  'sim-time',
];

async function shownNumbers(page) {
  const out = {};
  for (const id of SHOWN) out[id] = (await page.locator(tid(id)).first().textContent())?.trim();
  return out;
}

/** The state inside a share link, and a link with a changed state. */
function decodeLab(url) {
  const code = new URL(url).searchParams.get('lab');
  const [version, body] = code.split('.');
  return { version, state: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) };
}
function encodeLab(base, state) {
  return `${base}?lab=2.${Buffer.from(JSON.stringify(state), 'utf8').toString('base64url')}`;
}

async function waitState(page, state, timeout = 10_000) {
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="run-state"]')?.dataset.state === want,
    state,
    { timeout },
  );
}

/** Presses Tab until the focused element matches `selector` (at most `max` presses). */
async function tabTo(page, selector, max = 120) {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return i + 1;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The focus ring of the focused element, as computed. */
function focusRing(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const s = getComputedStyle(el);
    return {
      focusVisible: el.matches(':focus-visible'),
      outlineStyle: s.outlineStyle,
      outlineWidth: Number.parseFloat(s.outlineWidth),
      outlineColor: s.outlineColor,
      boxShadow: s.boxShadow,
    };
  });
}

describe('share links, embedding, languages, keyboard', { timeout: 300_000 }, () => {
  // mounted: the stage canvas is on the page
  // the mounted page's stage (the static layout's canvas has no test id)
  const lab = useLab({ ready: (page) => page.locator('[data-testid="stage"]').first().waitFor({ timeout: 15_000 }) });
  const mounted = (query = '') => lab.open(query);

  test('a shared link reproduces the same numbers in a fresh browser', async () => {
    const { page, errors } = await mounted();
    // change settings the link must carry: the seed and the batch limit
    const seed = page.locator(tid('seed'));
    await seed.fill('11');
    await seed.press('Enter');
    const seqs = page.locator(tid('field-scheduler.max_num_seqs'));
    await seqs.fill('24');
    await seqs.press('Enter');
    await waitState(page, 'playing');
    await runToEnd(page);
    const made = await shownNumbers(page);

    await page.locator(tid('share')).click();
    const link = await page.locator(tid('share-url')).inputValue();
    assert.match(link, /\?lab=2\.[A-Za-z0-9_-]+$/);
    const { state } = decodeLab(link);
    // a short link: the preset and what differs from it
    assert.equal(state.scenario.preset, 'chat-latency-first');
    assert.equal(state.scenario.diff.seed, 11);
    assert.equal(state.scenario.diff['scheduler.max_num_seqs'], 24);
    assert.equal(state.locale, 'en');
    // the address bar follows the state too (history.replaceState)
    await page.waitForFunction(() => new URL(location.href).searchParams.get('lab')?.startsWith('2.'));
    await page.keyboard.press('Escape');
    await page.locator(tid('share-pop')).waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);

    // a fresh browser (new profile) opens the link
    const other = await lab.launch();
    try {
      const opened = await lab.open(link, { context: other.context });
      assert.equal(await opened.page.locator(tid('seed')).inputValue(), '11');
      assert.equal(await opened.page.locator(tid('field-scheduler.max_num_seqs')).inputValue(), '24');
      assert.equal(await opened.page.locator(tid('link-error')).count(), 0);
      await runToEnd(opened.page);
      const got = await shownNumbers(opened.page);
      assert.deepEqual(got, made);
      assert.deepEqual(opened.errors, []);
    } finally {
      await other.close();
    }
    await page.close();
  });

  test('a garbage or newer link shows the message and a working default lab', async () => {
    for (const [code, message] of [
      ['garbage', /no version/],
      ['9.eyJzY2VuYXJpbyI6e319', /newer version/],
      ['1.@@@', /damaged/],
    ]) {
      const { page, errors } = await mounted(`?lab=${encodeURIComponent(code)}`);
      const banner = page.locator(tid('link-error'));
      await banner.waitFor({ timeout: 5000 });
      assert.match(await banner.locator('h3').textContent(), /could not be opened/);
      assert.match(await page.locator(tid('link-error-message')).textContent(), message);
      // the default scenario runs underneath
      assert.equal(await page.locator(tid('preset')).inputValue(), 'chat-latency-first');
      const t0 = await readSimTime(page);
      await sleep(700);
      assert.ok((await readSimTime(page)) > t0, 'the default lab should play');
      await page.locator(tid('link-error-dismiss')).click();
      await banner.waitFor({ state: 'detached' });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('a teacher’s link locks controls: disabled, with a lock and its reason', async () => {
    const { page } = await mounted();
    await page.locator(tid('share')).click();
    const link = await page.locator(tid('share-url')).inputValue();
    await page.close();
    const { state } = decodeLab(link);
    state.locked = ['scheduler.max_num_seqs', 'classes.arrival.rate_per_s', 'seed'];
    const base = link.slice(0, link.indexOf('?'));
    const { page: locked, errors } = await mounted(encodeLab(base, state));
    const seqs = locked.locator(tid('field-scheduler.max_num_seqs'));
    assert.equal(await seqs.isDisabled(), true);
    assert.equal(await locked.locator(tid('slider-scheduler.max_num_seqs')).isDisabled(), true);
    assert.equal(await locked.locator(tid('field-classes[0].arrival.rate_per_s')).isDisabled(), true);
    assert.equal(await locked.locator(tid('seed')).isDisabled(), true);
    // loading a preset would change the locked values
    assert.equal(await locked.locator(tid('preset')).isDisabled(), true);
    // a control that is not locked still works
    assert.equal(await locked.locator(tid('field-scheduler.max_num_batched_tokens')).isDisabled(), false);
    const lock = locked.locator(`${tid('lock')}:visible`).first();
    assert.equal(await lock.getAttribute('title'), 'Locked by your teacher');
    // a link made from here keeps the locks
    await locked.locator(tid('share')).click();
    const again = decodeLab(await locked.locator(tid('share-url')).inputValue());
    assert.deepEqual(again.state.locked, state.locked);
    assert.deepEqual(errors, []);
    await locked.close();
  });

  test('embedded, the lab posts ready (and error for a bad link) to its parent', async () => {
    // the documented host page, served with the build beside it
    const site = await serveDir(ROOT);
    try {
      const host = await lab.context.newPage();
      await host.setViewportSize({ width: 1200, height: 900 });
      await host.goto(`${site.url}docs/embed-example.html`);
      await host.waitForFunction(() => (window.labEvents ?? []).some((e) => e.type === 'ready'), null, {
        timeout: 20_000,
      });
      const ready = await host.evaluate(() => window.labEvents.find((e) => e.type === 'ready'));
      assert.equal(ready.source, 'llm-serving-lab');
      assert.equal(ready.locale, 'en');
      assert.equal(ready.state_version, 2);
      assert.equal(ready.embed, true);
      assert.match(ready.version, /^\d+\.\d+\.\d+/);
      assert.match(await host.locator('#log').textContent(), /ready/);
      // the compact layout inside the frame
      const frame = host.frames().find((f) => f.url().includes('embed=1'));
      assert.ok(frame, 'no embedded frame');
      await frame.locator('canvas#stage').waitFor();
      const layout = await frame.evaluate(() => ({
        embed: document.body.classList.contains('embed'),
        tagline: getComputedStyle(document.querySelector('.tagline')).display,
        footer: getComputedStyle(document.querySelector('footer.foot')).display,
        base: document.querySelector('base')?.target,
      }));
      assert.deepEqual(layout, { embed: true, tagline: 'none', footer: 'none', base: '_blank' });
      await sleep(1500);
      await host.screenshot({ path: await artifact('embed.png') });
      await host.close();
    } finally {
      await site.close();
    }

    // a bad link in a frame: an error event, then ready on the default scenario
    const page = await lab.context.newPage();
    await page.setContent(`<!doctype html><meta charset="utf-8">
      <script>
        window.labEvents = [];
        addEventListener('message', (e) => { if (e.data && e.data.source === 'llm-serving-lab') window.labEvents.push(e.data); });
      </script>
      <iframe src="${lab.url}?embed=1&locale=zh&lab=1.notbase64!!" width="900" height="600"></iframe>`);
    await page.waitForFunction(() => window.labEvents.some((e) => e.type === 'ready'), null, { timeout: 20_000 });
    const events = await page.evaluate(() => window.labEvents);
    const error = events.find((e) => e.type === 'error');
    assert.ok(error, `no error event in ${JSON.stringify(events)}`);
    assert.equal(error.kind, 'link');
    assert.match(error.message, /damaged/);
    assert.ok(events.indexOf(error) < events.findIndex((e) => e.type === 'ready'), 'error comes before ready');
    assert.equal(events.find((e) => e.type === 'ready').locale, 'zh');
    await page.close();
  });

  test('the language switch changes the text; ?locale=zh opens in Chinese', async () => {
    const { page, errors } = await mounted();
    assert.equal(await page.locator('h1').textContent(), 'LLM Serving Lab');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    await page.locator(tid('locale-zh')).click();
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    assert.equal(await page.locator('h1').textContent(), '大模型推理服务实验室');
    assert.equal(await page.locator('label[for="speed"]').textContent(), '速度');
    assert.equal(await page.locator(tid('locale-zh')).getAttribute('aria-pressed'), 'true');
    assert.match(await page.locator(tid('play')).textContent(), /暂停|播放/);
    assert.match(await page.locator('canvas#stage').getAttribute('aria-label'), /排队/);
    assert.equal(await page.title(), '大模型推理服务实验室');
    // the charts are drawn again in the new language (canvas text): their pixels change
    const before = await canvasStats(page, '#chart-kv');
    await page.locator(tid('locale-en')).click();
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await sleep(400);
    const afterEn = await canvasStats(page, '#chart-kv');
    assert.notEqual(before.hash, afterEn.hash, 'the KV chart was not redrawn in English');
    assert.equal(await page.locator('h1').textContent(), 'LLM Serving Lab');
    assert.deepEqual(errors, []);
    await page.close();

    const zh = await mounted('?locale=zh');
    assert.equal(await zh.page.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await zh.page.locator('h1').textContent(), '大模型推理服务实验室');
    assert.equal(await zh.page.locator('[data-testid="metrics-a"] h2').textContent(), '实时指标');
    await zh.page.setViewportSize({ width: 1280, height: 900 });
    await sleep(2500);
    await zh.page.screenshot({ path: await artifact('lab-zh.png'), fullPage: true });
    assert.deepEqual(zh.errors, []);
    await zh.page.close();

    // even the error view after a panic speaks the page's language
    const panic = await lab.open('?panic', { locale: 'zh', ready: null });
    await panic.page.locator(tid('panic')).waitFor({ timeout: 15_000 });
    assert.equal(await panic.page.locator('[data-testid="panic"] h1').textContent(), '实验室停止运行了');
    assert.equal(await panic.page.locator(tid('panic-reset')).textContent(), '重置实验室');
    assert.match(await panic.page.locator(tid('panic-reset')).getAttribute('href'), /\?locale=zh$/);
    await panic.page.close();
  });

  test('the projector profile: a button and contrast=high', async () => {
    const { page, errors } = await mounted();
    await page.setViewportSize({ width: 1280, height: 900 });
    await sleep(1000);
    const normal = await canvasStats(page, '#chart-batch');
    await page.locator(tid('projector')).click();
    await page.waitForFunction(() => document.body.classList.contains('projector'));
    assert.equal(await page.locator(tid('projector')).getAttribute('aria-pressed'), 'true');
    const text = await page.evaluate(() => getComputedStyle(document.body).color);
    assert.equal(text, 'rgb(0, 0, 0)');
    await sleep(400);
    assert.notEqual((await canvasStats(page, '#chart-batch')).hash, normal.hash, 'the charts keep their palette');
    // the charts' text is larger, and so are the charts, for the room it takes (the title's
    // height in the canvas is measured from its inked rows)
    const inked = (id) => page.evaluate((id) => {
      // how far right the title's ink reaches, over the rows above its baseline (15 px times
      // the profile's chart scale): the same words, so the width follows the font size
      const c = document.getElementById(id);
      const r = devicePixelRatio;
      const projector = document.body.classList.contains('projector');
      const [w, h] = [c.width, Math.round((projector ? 18 : 14) * r)];
      const data = c.getContext('2d').getImageData(0, 0, w, h).data;
      let right = 0;
      for (let y = 0; y < h; y++) {
        for (let x = w - 1; x > right; x--) {
          if (data[(y * w + x) * 4] < 128) {
            right = x;
            break;
          }
        }
      }
      return { css: c.getBoundingClientRect().height, title: right / r - 8 };
    }, id);
    const big = await inked('chart-batch');
    await page.locator(tid('projector')).click();
    await page.waitForFunction(() => !document.body.classList.contains('projector'));
    await sleep(400);
    const small = await inked('chart-batch');
    assert.ok(big.css >= small.css * 1.2, `charts taller in the projector profile: ${JSON.stringify({ big, small })}`);
    assert.ok(big.title >= small.title * 1.15, `chart titles larger: ${JSON.stringify({ big, small })}`);
    await page.locator(tid('projector')).click();
    await page.waitForFunction(() => document.body.classList.contains('projector'));
    await page.locator(tid('projector')).click();
    await page.waitForFunction(() => !document.body.classList.contains('projector'));
    assert.deepEqual(errors, []);
    await page.close();

    const high = await mounted('?contrast=high');
    assert.equal(await high.page.evaluate(() => document.body.classList.contains('projector')), true);
    await high.page.setViewportSize({ width: 1280, height: 900 });
    await sleep(2500);
    await high.page.screenshot({ path: await artifact('lab-projector.png'), fullPage: true });
    assert.deepEqual(high.errors, []);
    await high.page.close();
  });

  test('the main controls work from the keyboard alone, with a visible focus ring', async () => {
    const { page, errors } = await mounted();
    await waitState(page, 'playing');
    // Tab to play/pause; Space pauses, Enter plays again
    await tabTo(page, '[data-testid="play"]');
    const ring = await focusRing(page);
    assert.equal(ring.focusVisible, true);
    assert.notEqual(ring.outlineStyle, 'none');
    assert.ok(ring.outlineWidth >= 2, `outline ${ring.outlineWidth}px`);
    await page.keyboard.press('Space');
    await waitState(page, 'paused');
    await page.keyboard.press('Enter');
    await waitState(page, 'playing');

    // Tab on to the preset drop-down and pick the next preset with the arrow keys
    await tabTo(page, '[data-testid="preset"]');
    assert.equal((await focusRing(page)).focusVisible, true);
    assert.ok((await focusRing(page)).outlineWidth >= 2);
    const summary = await page.locator(tid('preset-summary')).textContent();
    const first = await page.locator(tid('preset')).inputValue();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(
      (was) => document.querySelector('[data-testid="preset"]').value !== was,
      first,
      { timeout: 5000 },
    );
    const second = await page.locator(tid('preset')).inputValue();
    assert.notEqual(second, first);
    await page.waitForFunction(
      (was) => document.querySelector('[data-testid="preset-summary"]').textContent !== was,
      summary,
    );
    // the stage now runs the chosen preset's scenario
    await page.waitForFunction(
      () => document.querySelector('[data-testid="stage-a"] h2')?.textContent.length > 0,
    );

    // the stage is an image with a name, and a live region summarises the run calmly
    assert.equal(await page.locator('canvas#stage').getAttribute('role'), 'img');
    assert.ok((await page.locator('canvas#stage').getAttribute('aria-label')).length > 20);
    const live = page.locator(tid('live-summary'));
    assert.equal(await live.getAttribute('aria-live'), 'polite');
    await page.waitForFunction(
      () => /queue \d+, batch \d+, HBM \d+ %, p99 TTFT/.test(document.querySelector('[data-testid="live-summary"]').textContent),
      null,
      { timeout: 8000 },
    );
    // it stays visually hidden
    const box = await live.boundingBox();
    assert.ok(box.width <= 1 && box.height <= 1, JSON.stringify(box));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
