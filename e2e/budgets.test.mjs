// Budgets, measured and reported (timings are reported, not asserted): wasm size, time to the
// first animated frame (on this machine, and on a phone's network and processor, with the bytes
// it waited for), frame time with 2,000 requests in flight (on one replica and on eight), and
// the same sim-core run natively (llmsim) and in the browser's wasm, which must print the same
// summary.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, test } from 'node:test';
import { DIST, ROOT, artifact, collectErrors, serveDir, sleep, tid, useLab } from './lib.mjs';

/**
 * A phone as Lighthouse's mobile profile has it: 150 ms for each request's round trip, 1.6 Mbit/s
 * down, 750 kbit/s up (Lighthouse's "slow 4G"), the processor 4× slower, a 390×844 screen.
 */
export const PHONE = {
  network: { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 },
  cpu_slowdown: 4,
  viewport: { width: 390, height: 844 },
};

/** Ceiling of the bytes a phone load transfers before the first animated frame: it only goes down.
 * 640 KiB while the first frame waited for the page's whole module; 250 KiB (the issue's target)
 * since the first-frame module draws it (243.1 KiB measured: the page, its style sheet, the first
 * module's loader and wasm). */
const PHONE_BYTES_CEILING = 250 * 1024;

/** Performance marks: the first animated frame (by the first-frame module, or the page without
 * it: lab_canvas::FIRST_FRAME_MARK) and the page's module mounted (app/src/lib.rs). */
const FIRST_FRAME_MARK = 'lab:first-animated-frame';
const MOUNTED_MARK = 'lab:page-mounted';

/**
 * What the page observes of its own load, from its first script on: largest contentful paint,
 * layout shifts (CLS, shifts after input excluded) and long tasks (for the blocking time).
 */
function observeVitals() {
  const v = { lcp: null, cls: 0, long_tasks: [], shifts: [] };
  window.__vitals = v;
  const watch = (type, f) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(f)).observe({ type, buffered: true });
    } catch {
      // not measured by this browser
    }
  };
  watch('largest-contentful-paint', (e) => (v.lcp = e.startTime));
  watch('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    v.cls += e.value;
    // what moved, for the report: when (ms), how much, and each source's element and its top and
    // height before and after
    const name = (n) => (n ? `${n.nodeName.toLowerCase()}${typeof n.className === 'string' && n.className ? `.${n.className.split(' ').join('.')}` : ''}` : '?');
    const at = (r) => [Math.round(r.y), Math.round(r.height)];
    v.shifts.push([Math.round(e.startTime), +e.value.toFixed(4), e.sources.map((x) => `${name(x.node)} ${at(x.previousRect)}→${at(x.currentRect)}`)]);
  });
  watch('longtask', (e) => v.long_tasks.push([e.startTime, e.duration]));
}

/**
 * One load of `url` on a phone (PHONE) in a fresh browser with nothing cached: the first
 * animated frame, FCP, LCP, CLS, TBT (the part over 50 ms of each long task from FCP to the
 * first frame and 2 s after it), the main thread's busy time before the first frame, and the
 * bytes transferred before the first frame.
 */
async function phoneLoad(lab, url) {
  const { context, close } = await lab.launch();
  try {
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.setViewportSize(PHONE.viewport);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', PHONE.network);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PHONE.cpu_slowdown });
    await cdp.send('Performance.enable');
    await page.addInitScript(observeVitals);
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, FIRST_FRAME_MARK, {
      timeout: 90_000,
      polling: 50,
    });
    const busy = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    await sleep(2000);
    // the page's own module mounts after the first frame: wait for it (the load is not over)
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, MOUNTED_MARK, {
      timeout: 90_000,
      polling: 50,
    });
    const load = await page.evaluate(([firstMark, mountedMark]) => {
      const first = performance.getEntriesByName(firstMark)[0].startTime;
      const mounted = performance.getEntriesByName(mountedMark)[0].startTime;
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
      const nav = performance.getEntriesByType('navigation')[0];
      const before = performance.getEntriesByType('resource').filter((e) => e.responseEnd <= first);
      const v = window.__vitals;
      const tbt = v.long_tasks
        .filter(([start]) => fcp != null && start >= fcp && start <= first + 2000)
        .reduce((n, [, d]) => n + Math.max(0, d - 50), 0);
      return {
        first_animated_frame_ms: first,
        page_mounted_ms: mounted,
        fcp_ms: fcp,
        lcp_ms: v.lcp,
        cls: v.cls,
        shifts: v.shifts,
        tbt_ms: tbt,
        bytes_before_first_frame: nav.transferSize + before.reduce((n, e) => n + e.transferSize, 0),
        requests_before_first_frame: 1 + before.length,
        encodings: [...new Set(before.map((e) => e.encodedBodySize < e.decodedBodySize))],
      };
    }, [FIRST_FRAME_MARK, MOUNTED_MARK]);
    // the main thread's task time until just after the first frame was seen (CDP's TaskDuration, s)
    load.main_thread_ms_before_first_frame = Math.round(busy.TaskDuration * 1000);
    assert.deepEqual(errors, []);
    return load;
  } finally {
    await close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const report = {};

async function stats(page) {
  return JSON.parse(await page.evaluate(() => window.wasmBindings.lab_stats()));
}

/** The names of the wasm modules `page` has fetched so far, in order. */
function wasmFetched(page) {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => new URL(e.name).pathname.split('/').pop())
      .filter((f) => f.endsWith('.wasm')),
  );
}

/**
 * Opens the lab at 1280×800 on the throughput-first documents with `settings` applied (field id →
 * value, in order; `after[id]` waits for what that field brings), plays at 10× until 2,000
 * requests are in flight, then measures 4 s at 1×. Resolves to { page, errors, s, frames }:
 * the lab's frame statistics and the figures both frame-time reports share.
 */
async function flooded(lab, settings, after = {}) {
  const { page, errors } = await lab.open();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator(tid('stage')).first().waitFor();
  await page.selectOption(tid('preset'), 'batch-throughput-first');
  for (const [id, value] of Object.entries(settings)) {
    const f = page.locator(tid(`field-${id}`));
    await f.fill(value);
    await f.press('Enter');
    if (after[id]) await after[id](page);
  }
  await page.locator(tid('speed-10')).click();
  await page.waitForFunction(() => JSON.parse(window.wasmBindings.lab_stats()).live_a >= 2000, null, { timeout: 60_000 });
  await page.locator(tid('speed-1')).click();
  await sleep(300);
  await page.evaluate(() => window.wasmBindings.lab_reset_stats());
  await sleep(4000);
  const s = await stats(page);
  const frames = {
    live_requests: s.live_a,
    frames_measured: s.samples,
    work_ms_p50: s.work_ms_p50,
    work_ms_p95: s.work_ms_p95,
    work_ms_max: s.work_ms_max,
    frame_interval_ms_p50: s.interval_ms_p50,
    frame_interval_ms_p95: s.interval_ms_p95,
  };
  assert.ok(s.live_a >= 2000, `only ${s.live_a} requests in flight`);
  return { page, errors, s, frames };
}

describe('budgets', { timeout: 420_000 }, () => {
  const lab = useLab();

  after(async () => {
    await writeFile(await artifact('budgets.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`budgets: ${JSON.stringify(report, null, 2)}`);
  });

  test('wasm size after wasm-opt, raw and gzip -9: the main module and those loaded on demand (issue target ≤ 400 KB gzip; ceiling 596 KiB)', () => {
    const folders = readdirSync(DIST).filter((f) => /^wasm-[0-9a-f]{16}$/.test(f));
    assert.equal(folders.length, 1, `expected one dist/wasm-<hash>/, found ${folders.join(', ') || 'none'}`);
    const dir = join(DIST, folders[0]);
    const size = (f) => {
      const bytes = readFileSync(join(dir, f));
      return { raw_bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length };
    };
    const modules = readdirSync(dir).filter((f) => f.endsWith('.wasm'));
    assert.ok(modules.includes('app_bg.wasm'), `no app_bg.wasm in ${dir}`);
    const main = size('app_bg.wasm');
    const tabs = modules.filter((f) => f.startsWith('split_')).sort();
    const shared = modules.filter((f) => f.startsWith('chunk_'));
    assert.equal(tabs.length + shared.length + 1, modules.length, `unexpected modules: ${modules.join(', ')}`);
    // one module per workbench tab, named by its wasm_split function (app/src/workbench.rs); the
    // contract's tab and its capacity plan's share one
    assert.deepEqual(tabs, ['contract', 'exercises', 'lessons', 'sweep'].map((t) => `split_${t}_tab.wasm`));
    const sum = (fs) => fs.reduce((n, f) => n + size(f).gzip_bytes, 0);
    report.wasm = {
      folder: folders[0],
      main: { ...main, gzip_kib: +(main.gzip_bytes / 1024).toFixed(1) },
      on_demand: Object.fromEntries(tabs.map((f) => [f, size(f)])),
      shared_on_demand_gzip_bytes: sum(shared),
      all_on_demand_gzip_bytes: sum(tabs) + sum(shared),
    };
    // the capacity planner's worker: its own wasm, fetched only when a plan starts
    const planDir = readdirSync(DIST).find((f) => /^plan-[0-9a-f]{16}$/.test(f));
    assert.ok(planDir, 'no dist/plan-<hash>/ (the planner worker)');
    const worker = readFileSync(join(DIST, planDir, 'plan_worker_bg.wasm'));
    report.wasm.plan_worker = { raw_bytes: worker.length, gzip_bytes: gzipSync(worker, { level: 9 }).length };
    // The page also fetches the tables of the one language it shows (dist/i18n/*.{en,zh}.json).
    const tables = readdirSync(join(DIST, 'i18n'));
    report.i18n_tables_gzip_bytes = Object.fromEntries(
      ['en', 'zh'].map((l) => {
        const parts = tables.filter((f) => f.endsWith(`.${l}.json`));
        assert.ok(parts.length > 0, `no ${l} tables in dist/i18n`);
        return [l, parts.reduce((n, f) => n + gzipSync(readFileSync(join(DIST, 'i18n', f)), { level: 9 }).length, 0)];
      }),
    );
    // The target is 400 KB (400,000 B). docs/wasm-size.md has every step since the issue opened
    // (495 KiB then); as one module the wasm reached 647.7 KiB (663,196 B) with the features of the
    // issues since. The workbench tabs now load on demand: the main module is what the first frame
    // waits for, and the ceiling holds it (544 KiB until links opened lessons and exercises
    // themselves, teacher links held their locks and Back stepped through the states: 552 KiB;
    // 556 KiB with three more lessons, whose runs the page can open from a link, and the phone bar;
    // 564 KiB with the views thinned to views: the stage as a display list, the panels, charts,
    // tabs and controller as app-model types, the page's state as contexts: 575,584 B, 8 KB more;
    // 566 KiB with the first-frame module's handoff (the run's seek, the tables fetched beside
    // the module, the static layout's removal) and the model types the last views read: 577,951 B.
    // The page module now loads after the first frame, which its bytes no longer hold up.
    // The first frame's bytes have their own, lower ceiling (the phone load below).
    // 575 KiB with the engine's serving front end and step jitter, each engine's admission when
    // the KV pool is short, a class's cap at the client and a draft model's sliding windows
    // (588,315 B by Node's gzip -9, 8 KB more); the file dist/ ships beside it (zopfli) is 560,309 B.
    // 587 KiB with conversations after shared prefixes, the contract's per-class attainment, lesson
    // 19 and the exercise meet-contract, which read the RAG contract on the page (the contract's
    // reader was the contract tab's alone), and the Plan tab's hand-off to its worker: 600,094 B by Node's gzip -9.
    // 594 KiB with a tensor parallelism per pool of a prefill/decode split (each replica's own
    // memory plan and step model, their checks) and protocol v1 for embedding hosts (commands
    // read and obeyed, `state` and `resize` messages, `parent=`): 606,812 B by Node's gzip -9.
    // 596 KiB with TensorRT-LLM's batch waiting (two scheduler settings a file may set, their
    // rows, the planner's hold and the replica's count): 608,462 B by Node's gzip -9.
    assert.ok(main.gzip_bytes <= 596 * 1024, `main module gzip ${main.gzip_bytes} B is over the 596 KiB ceiling (target 400,000 B)`);
  });

  test('the page fetches only the first-frame and the main module; a tab fetches its own module when first opened', async () => {
    const { page, errors } = await lab.open();
    await page.waitForFunction(() => window.wasmBindings?.lab_stats && JSON.parse(window.wasmBindings.lab_stats()).first_animated_ms != null, null, { timeout: 20_000 });
    await sleep(500);
    assert.deepEqual(await wasmFetched(page), ['first_bg.wasm', 'app_bg.wasm']);
    await page.locator(tid('wb-tab-sweep')).click();
    await page.locator(tid('sweep-run')).waitFor();
    const tabModules = (await wasmFetched(page)).filter((f) => f.startsWith('split_'));
    assert.equal(tabModules.length, 1, `the sweep tab fetched ${tabModules.join(', ')}`);
    assert.equal(tabModules[0], 'split_sweep_tab.wasm');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('pointing at a tab fetches its module before the click', async () => {
    const { page, errors } = await lab.open();
    await page.locator(tid('stage')).first().waitFor();
    await page.locator(tid('wb-tab-exercises')).hover();
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/split_exercises_tab.wasm')));
    assert.equal(await page.locator(tid('wb-panel-exercises')).isVisible(), false, 'the panel opened without a click');
    assert.deepEqual((await wasmFetched(page)).filter((f) => f.startsWith('split_')), ['split_exercises_tab.wasm']);
    await page.locator(tid('wb-tab-exercises')).click();
    await page.locator(tid('wb-panel-exercises')).locator('button').first().waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a tab whose module cannot be fetched says so, the lab runs on, and it loads when tried again', async () => {
    const { page, errors } = await lab.open();
    await page.locator(tid('stage')).first().waitFor();
    let offline = true;
    await page.route(/\/split_contract_tab\.wasm$/, (route) => (offline ? route.abort('internetdisconnected') : route.continue()));
    await page.locator(tid('wb-tab-contract')).click();
    await page.locator(tid('wb-load-failed')).waitFor();
    assert.equal(await page.locator(tid('panic')).count(), 0, 'the error view took over the lab');
    // the simulation keeps playing
    const t0 = Number(await page.locator(tid('sim-time')).getAttribute('data-us'));
    await page.waitForFunction((t) => Number(document.querySelector('[data-testid="sim-time"]').dataset.us) > t, t0);
    offline = false;
    await page.locator(tid('wb-retry')).focus();
    await page.keyboard.press('Enter');
    await page.locator(tid('contract-use-lab')).waitFor();
    // the keyboard's focus is back on the tab, not lost with the button
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'wb-tab-contract');
    assert.equal(await page.locator(tid('wb-load-failed')).count(), 0);
    // the one failed fetch is all that went wrong
    assert.ok(errors.length > 0, 'the failed fetch was not seen');
    for (const e of errors) assert.match(e, /split_contract_tab\.wasm|Failed to fetch|failed to load/i);
    await page.close();
  });

  test('a tab loads behind a server that sends its module with another type than application/wasm', async () => {
    const { page, errors } = await lab.open();
    await page.locator(tid('stage')).first().waitFor();
    let served = 0;
    await page.route(/\/split_sweep_tab\.wasm$/, async (route) => {
      const response = await route.fetch();
      served += 1;
      await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
    });
    await page.locator(tid('wb-tab-sweep')).click();
    await page.locator(tid('sweep-run')).waitFor();
    assert.equal(served, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('time to the first animated frame (headless Chromium)', async () => {
    const { page, errors } = await lab.open();
    await page.waitForFunction(() => window.wasmBindings?.lab_stats && JSON.parse(window.wasmBindings.lab_stats()).first_animated_ms != null, null, { timeout: 20_000 });
    const marks = await page.evaluate((names) => names.map((n) => performance.getEntriesByName(n)[0]?.startTime ?? null), [FIRST_FRAME_MARK, MOUNTED_MARK]);
    const nav = await page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0];
      return { dom_content_loaded_ms: +n.domContentLoadedEventEnd.toFixed(1), load_ms: +n.loadEventEnd.toFixed(1) };
    });
    report.first_animated_frame_ms = +marks[0].toFixed(1);
    report.page_mounted_ms = +marks[1].toFixed(1);
    report.navigation = nav;
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a first load on a phone: first animated frame, FCP, LCP, TBT, CLS, bytes before the first frame (3 loads, gzip as static hosts serve)', async () => {
    for (const f of ['index.html', ...readdirSync(DIST).filter((f) => f.endsWith('.css'))]) {
      assert.ok(existsSync(join(DIST, `${f}.gz`)), `dist/${f}.gz is missing: scripts/build-web.sh precompresses every asset`);
    }
    const server = await serveDir(DIST, { encodings: ['gzip'] });
    try {
      const loads = [];
      for (let i = 0; i < 3; i += 1) loads.push(await phoneLoad(lab, server.url));
      for (const l of loads) assert.deepEqual(l.encodings, [true], 'every file before the first frame came compressed');
      const med = (k) => median(loads.map((l) => l[k]));
      report.phone = {
        profile: '150 ms per request, 1.6 Mbit/s down, 750 kbit/s up, CPU 4× slower, 390×844; gzip',
        median: {
          first_animated_frame_ms: Math.round(med('first_animated_frame_ms')),
          page_mounted_ms: Math.round(med('page_mounted_ms')),
          fcp_ms: Math.round(med('fcp_ms')),
          lcp_ms: Math.round(med('lcp_ms')),
          tbt_ms: Math.round(med('tbt_ms')),
          cls: +med('cls').toFixed(3),
          main_thread_ms_before_first_frame: med('main_thread_ms_before_first_frame'),
          bytes_before_first_frame: med('bytes_before_first_frame'),
          kib_before_first_frame: +(med('bytes_before_first_frame') / 1024).toFixed(1),
        },
        targets: { first_animated_frame_ms: 1500, fcp_ms: 1000, tbt_ms: 200, cls: 0.02, kib_before_first_frame: 250 },
        loads,
      };
      const most = Math.max(...loads.map((l) => l.bytes_before_first_frame));
      assert.ok(most <= PHONE_BYTES_CEILING, `${most} B before the first frame, over the ceiling of ${PHONE_BYTES_CEILING} B`);
    } finally {
      await server.close();
    }
  });

  test('frame time with 2,000 requests in flight', async () => {
    // Throughput-first documents, flooded: 60 requests/s against a server that serves ~6.
    const { page, errors, s, frames } = await flooded(lab, { 'classes[0].arrival.rate_per_s': '60', 'classes[0].num_requests': '20000' });
    // the same, measured from the page's own requestAnimationFrame
    const raf = await page.evaluate(
      () =>
        new Promise((done) => {
          const gaps = [];
          let last = performance.now();
          const tick = (t) => {
            gaps.push(t - last);
            last = t;
            if (gaps.length < 180) requestAnimationFrame(tick);
            else done(gaps.slice(1).sort((a, b) => a - b));
          };
          requestAnimationFrame(tick);
        }),
    );
    const q = (arr, p) => +arr[Math.min(arr.length - 1, Math.round((arr.length - 1) * p))].toFixed(2);
    report.frames_with_2000_in_flight = {
      ...frames,
      raf_interval_ms_p95: q(raf, 0.95),
      calm_tick_ms_p50: s.calm_tick_ms_p50,
      calm_tick_ms_p95: s.calm_tick_ms_p95,
      charts_ms_p95: s.charts_ms_p95,
    };
    await page.screenshot({ path: await artifact('stage-2000-in-flight.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('frame time with 8 replicas and 2,000 requests in flight', async () => {
    // Throughput-first documents on eight replicas (round robin), flooded: 120 requests/s
    // against some 50 served (a flood no faster, so the count stays near 2,000 while measured).
    const { page, errors, s, frames } = await flooded(
      lab,
      { replicas: '8', 'classes[0].arrival.rate_per_s': '120', 'classes[0].num_requests': '40000' },
      { replicas: (p) => p.locator(tid('replica')).nth(7).waitFor({ timeout: 20_000 }) },
    );
    const stage = await page.evaluate(() => ({ ...document.querySelector('canvas#stage').dataset }));
    report.frames_with_8_replicas_2000_in_flight = {
      replicas: Number(stage.replicas),
      layout: stage.layout,
      ...frames,
      calm_tick_ms_p95: s.calm_tick_ms_p95,
    };
    // the stage draws the eight replicas, each with its own band
    assert.equal(stage.replicas, '8');
    assert.equal(stage.layout, 'bands');
    assert.equal(stage.entered.split(',').length, 8);
    await page.screenshot({ path: await artifact('stage-8-replicas-2000-in-flight.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('sim-core natively (llmsim) and in the browser print the same summary', async () => {
    // build the CLI from the same sources as the wasm (a no-op when it is up to date)
    execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'llmsim'], { cwd: ROOT, stdio: 'inherit' });
    const llmsim = join(ROOT, 'target', 'release', 'llmsim');
    assert.ok(existsSync(llmsim), 'target/release/llmsim is missing');
    const presets = execFileSync(llmsim, ['presets'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0])
      .filter((id) => /^[a-z0-9-]+$/.test(id ?? ''));
    assert.ok(presets.length >= 10, `presets: ${presets}`);
    const { page, errors } = await lab.open();
    await page.waitForFunction(() => window.wasmBindings?.lab_run_preset);
    const results = {};
    for (const id of presets) {
      const native = execFileSync(llmsim, ['run', '--preset', id, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' }).trim();
      const t0 = Date.now();
      const wasm = (await page.evaluate((p) => window.wasmBindings.lab_run_preset(p), id)).trim();
      results[id] = { identical: native === wasm, wasm_run_ms: Date.now() - t0 };
      if (native !== wasm) {
        await writeFile(await artifact(`summary-${id}-native.json`), native);
        await writeFile(await artifact(`summary-${id}-wasm.json`), wasm);
      }
    }
    report.native_vs_wasm = results;
    for (const [id, r] of Object.entries(results)) assert.ok(r.identical, `${id}: native and wasm summaries differ`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
