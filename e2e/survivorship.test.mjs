import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { artifact, parseShown, selectPreset, sleep, tid, useLab } from './lib.mjs';

describe('honest live numbers', { timeout: 180_000 }, () => {
  const lab = useLab({
    ready: async (page) => {
      await page.locator('h1', { hasText: 'LLM Serving Lab' }).waitFor({ timeout: 15_000 });
      await page.locator(tid('stage')).first().waitFor();
    },
  });

  test('survivorship: static batching at 30 req/s with a queue timeout shows "over N of M", a red ≥ lower bound and its CDF', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    await selectPreset(page, 'static-batching');
    const rate = page.locator(tid('field-classes[0].arrival.rate_per_s'));
    await rate.fill('30');
    await rate.press('Enter');
    // the queue timeout switched on: its default, 2 s
    await page.locator(tid('toggle-scheduler.queue_timeout_ms')).check();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="field-scheduler.queue_timeout_ms"]')?.value === '2000',
    );
    await page.locator(tid('speed-10')).click();
    // wait until requests have timed out
    await page.waitForFunction(
      () => Number((document.querySelector('[data-testid="count-timed-out"]')?.textContent ?? '0').replace(/,/g, '')) >= 30,
      null,
      { timeout: 60_000 },
    );
    await page.locator(tid('speed-1')).click();
    // pause, so that the numbers read and the screenshot are the same moment
    await page.locator(tid('play')).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state !== 'playing');
    await sleep(400);
    // one reading of the panel (a calm tick can land between two locator reads)
    const seen = await page.evaluate(() => {
      const panel = document.querySelector('[data-testid="metrics-a"]');
      const el = (id) => panel.querySelector(`[data-testid="${id}"]`);
      const num = (id) => Number((el(id)?.textContent ?? '').replace(/,/g, ''));
      return {
        over: el('metric-ttft-over').textContent,
        all: el('metric-ttft-censored-over').textContent,
        p99: el('metric-ttft-p99').textContent,
        p50: el('metric-ttft-p50').textContent,
        boundP50: el('metric-ttft-censored-p50').textContent,
        p99Red: el('metric-ttft-p99').classList.contains('over'),
        bound: el('metric-ttft-censored-p99').textContent,
        boundRed: el('metric-ttft-censored-p99').classList.contains('over'),
        boundColour: getComputedStyle(el('metric-ttft-censored-p99')).color,
        sloMissed: el('metric-ttft-slo').classList.contains('missed'),
        completed: num('count-completed'),
        timedOut: num('count-timed-out'),
        rejected: num('count-rejected'),
        failed: num('count-failed'),
        inFlight: num('count-in-flight'),
      };
    });
    const detail = JSON.stringify(seen);
    const over = seen.over.replace(/,/g, '').match(/over (\d+) of (\d+) ended/);
    assert.ok(over, `the TTFT row says how many requests it is over: ${detail}`);
    const [n, m] = [Number(over[1]), Number(over[2])];
    assert.equal(n, seen.completed, `over the completed ones: ${detail}`);
    assert.equal(m, seen.completed + seen.timedOut + seen.rejected + seen.failed, `of the ended ones: ${detail}`);
    assert.ok(seen.timedOut > n, `most ended requests timed out: ${detail}`);
    const all = seen.all.replace(/,/g, '').match(/all (\d+) arrived · (\d+) at a lower bound/);
    assert.ok(all, `the censored row says what it counts: ${detail}`);
    assert.equal(Number(all[1]), m + seen.inFlight, detail);
    assert.ok(Number(all[2]) >= seen.timedOut, detail);
    // the lower bound: "≥", at least the 2 s timeout, red against the 500 ms SLO
    assert.match(seen.bound, /^≥ /, detail);
    assert.ok(parseShown(seen.bound) >= 1999, detail);
    assert.ok(seen.boundRed, `the lower bound misses the SLO and is red: ${detail}`);
    assert.equal(seen.boundColour, await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--danger)';
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    }), `shown in the danger colour: ${detail}`);
    assert.ok(seen.sloMissed, `the row's SLO tag is marked missed: ${detail}`);
    // the completed-only p99 is red only if it misses by itself
    assert.equal(seen.p99Red, parseShown(seen.p99) > 500, detail);

    // the TTFT CDF draws every arrival too: its data table has an "all arrivals (≥)" column of
    // lower bounds beside the answered-only one
    const btn = page.locator(tid('chart-ttft-data-btn'));
    await btn.scrollIntoViewIfNeeded();
    await btn.click();
    const table = page.locator(tid('chart-ttft-table'));
    await table.waitFor({ state: 'visible' });
    const cdf = await table.evaluate((t) => ({
      head: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent.trim())),
    }));
    const col = cdf.head.findIndex((h) => h.includes('all arrivals'));
    assert.ok(col > 0, `an every-arrival column: ${JSON.stringify(cdf.head)}`);
    assert.ok(cdf.rows.every((r) => r[col].startsWith('≥ ')), `its figures are lower bounds: ${JSON.stringify(cdf.rows)}`);
    // its 50 % row is the panel's p50 of each view (the same buckets, the same rank)
    const at50 = cdf.rows.find((r) => r[0].startsWith('50'));
    assert.ok(at50, `a 50 % row: ${JSON.stringify(cdf.rows)}`);
    assert.equal(at50[col], seen.boundP50, `the curve's 50 % is the panel's p50 lower bound: ${JSON.stringify(cdf)}`);
    assert.equal(at50[1], seen.p50, JSON.stringify(cdf));
    const summary = await page.evaluate(() => {
      const c = document.getElementById('chart-ttft');
      return document.getElementById(c.getAttribute('aria-describedby') ?? '')?.textContent ?? '';
    });
    assert.match(summary, /all arrivals \(≥\)[^;]*≥ /, `the chart's summary names the bound curve: ${summary}`);
    await page.locator('#chart-ttft').screenshot({ path: await artifact('survivorship-cdf-1280x720.png') });

    // the definition is one focus away and says it is a lower bound
    const term = page.locator(`${tid('metrics-a')} tr.censored .term`).first();
    await term.focus();
    const def = term.locator('.def');
    await def.waitFor({ state: 'visible' });
    assert.match(await def.textContent(), /lower bound/);
    assert.match(await def.textContent(), /survivorship/);
    // the extra rows do not widen the page past a 1280-px screen
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 1280, `the page is ${width} px wide at 1280`);
    await page.locator(tid('metrics-a')).screenshot({ path: await artifact('survivorship-metrics-1280x720.png') });
    await page.screenshot({ path: await artifact('survivorship-1280x720.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a memory setting that does not fit suggests the smallest value that fits, beside the field', async () => {
    const { page, errors } = await lab.open('', { viewport: { width: 1280, height: 720 } });
    const field = page.locator(tid('field-gpu_memory_utilization'));
    await field.fill('0.2');
    await field.press('Enter');
    const hint = page.locator(tid('fix-gpu_memory_utilization'));
    await hint.waitFor({ timeout: 10_000 });
    const text = await hint.textContent();
    const m = text.match(/least that fits is (0\.\d+)/);
    assert.ok(m, `the hint names the least utilisation that fits: ${text}`);
    const least = Number(m[1]);
    assert.ok(least > 0.2 && least < 0.3, `not 0.95: ${text}`);
    // beside the field: just under it, in the same column, both on screen
    await field.scrollIntoViewIfNeeded();
    const [f, h] = [await field.boundingBox(), await hint.boundingBox()];
    const detail = JSON.stringify({ field: f, hint: h });
    assert.ok(h.y >= f.y && h.y - (f.y + f.height) < 40, `the hint sits right under the field: ${detail}`);
    assert.ok(h.x < f.x + f.width && h.x + h.width > f.x - 200, `in the field's column: ${detail}`);
    assert.ok(h.y + h.height <= 720 && f.y >= 0, `both on screen: ${detail}`);
    await page.screenshot({ path: await artifact('fix-beside-field-1280x720.png') });
    // using it makes the configuration run
    await page.locator(tid('apply-fix-gpu_memory_utilization')).click();
    await page.locator(tid('config-error')).waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await field.inputValue(), String(least));
    assert.equal(await hint.count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
