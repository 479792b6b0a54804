// The docs component: <llm-lab> (dist/llm-lab.js) in a host page served from another origin.
// Three elements on a page load only the one in view; the frame follows the lab's content height
// (up to the element's height, or all of it with height="auto"); the lab's messages (protocol v1)
// arrive as DOM events; the element's commands set the state, pause, play and change speed and
// language; a bad command gets an error reply and the lab carries on; a lab told another parent
// origin neither posts to this page nor obeys it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, before, after } from 'node:test';
import { ROOT, artifact, serveDir, sleep, tid, useLab } from './lib.mjs';

const SPACER = '<div style="height:3000px" aria-hidden="true"></div>';

function hostPage(labUrl, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs page</title><link rel="icon" href="data:,">
<script src="${labUrl}llm-lab.js"></script>
<script>
  window.labEvents = [];
  for (const type of ['ready', 'resize', 'state', 'error', 'lesson-completed', 'exercise-result', 'result']) {
    document.addEventListener('llm-lab:' + type, (e) => window.labEvents.push({ ...e.detail, el: e.target.id, event: e.type }));
  }
  window.rawMessages = [];
  window.addEventListener('message', (e) => window.rawMessages.push(e.data));
</script>
<style>body{font:16px sans-serif;margin:20px;max-width:900px}</style></head><body>
<h1>Continuous batching</h1><p>Watch the tail.</p>
${body}
</body></html>`;
}

/** Events of one element seen by the host page so far. */
const eventsOf = (page, id, type) =>
  page.evaluate(([id, type]) => window.labEvents.filter((e) => e.el === id && (!type || e.type === type)), [id, type]);

async function waitEvent(page, id, type, test = () => true, timeout = 20_000) {
  const start = Date.now();
  for (;;) {
    const found = (await eventsOf(page, id, type)).filter(test);
    if (found.length) return found.at(-1);
    if (Date.now() - start > timeout) throw new Error(`no ${type} from #${id} in ${timeout} ms`);
    await sleep(100);
  }
}

/** The frame of element `#id`. */
async function frameOf(page, id) {
  const handle = await page.locator(`#${id} iframe`).elementHandle();
  return handle.contentFrame();
}

describe('<llm-lab>', { timeout: 300_000 }, () => {
  const lab = useLab();
  let host;
  let dir;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'llm-lab-host-'));
    host = await serveDir(dir);
  });
  after(async () => {
    await host?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the script, its package and the app share one version; the schema is served beside it', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'static/llm-lab/package.json'), 'utf8'));
    const cargo = await readFile(join(ROOT, 'app/Cargo.toml'), 'utf8');
    const appVersion = cargo.match(/^version = "([^"]+)"/m)[1];
    assert.equal(pkg.version, appVersion);
    const script = await readFile(join(ROOT, 'dist/llm-lab.js'), 'utf8');
    assert.equal(script.match(/LlmLab\.version = '([^']+)'/)[1], appVersion);
    assert.ok(script.length < 12_000, `llm-lab.js is ${script.length} bytes`);
    const schema = await (await fetch(`${lab.url}protocol.schema.json`)).json();
    assert.equal(schema.$defs['out-ready'].properties.protocol.const, 1);
  });

  test('three elements: only the one in view loads; it sizes to the lab, speaks protocol 1 and obeys', async () => {
    await writeFile(
      join(dir, 'three.html'),
      hostPage(
        lab.url,
        `<llm-lab id="one" view="stage,metrics" height="460"></llm-lab>${SPACER}
         <llm-lab id="two" preset="static-batching" height="auto" autoplay="0"></llm-lab>${SPACER}
         <llm-lab id="three" locale="zh"></llm-lab>`,
      ),
    );
    const page = await lab.context.newPage();
    await page.setViewportSize({ width: 1000, height: 800 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const labLoads = [];
    page.on('request', (r) => r.url().startsWith(lab.url) && r.resourceType() === 'document' && labLoads.push(r.url()));
    await page.goto(`${host.url}three.html`);

    // ready, from the first only
    const ready = await waitEvent(page, 'one', 'ready');
    assert.equal(ready.protocol, 1);
    assert.equal(ready.state_version, 2);
    assert.equal(ready.locale, 'en');
    assert.match(ready.version, /^\d+\.\d+\.\d+$/);
    await sleep(1500);
    const loaded = await page.evaluate(() => [...document.querySelectorAll('llm-lab')].map((e) => e.hasAttribute('loaded')));
    assert.deepEqual(loaded, [true, false, false], 'only the element in view has a frame');
    assert.equal(labLoads.length, 1, `lab pages loaded: ${labLoads.join(', ')}`);
    const src = new URL(await page.locator('#one iframe').getAttribute('src'));
    assert.equal(src.searchParams.get('embed'), '1');
    assert.equal(src.searchParams.get('view'), 'stage,metrics');
    assert.equal(src.searchParams.get('parent'), new URL(host.url).origin);
    // every message carries the protocol's version
    const raw = await page.evaluate(() => window.rawMessages.filter((m) => m && m.source === 'llm-serving-lab'));
    assert.ok(raw.length >= 2 && raw.every((m) => m.protocol === 1), JSON.stringify(raw.slice(0, 3)));

    // resize: the frame is the lab's content height, at most the element's 460 px
    const resize = await waitEvent(page, 'one', 'resize');
    assert.ok(resize.height > 200, JSON.stringify(resize));
    await sleep(500);
    const last = (await eventsOf(page, 'one', 'resize')).at(-1).height;
    const frameH = await page.locator('#one iframe').evaluate((f) => f.getBoundingClientRect().height);
    assert.equal(Math.round(frameH), Math.min(Math.ceil(last), 460), `frame ${frameH}, content ${last}`);

    // commands: pause, then a state of another preset, then play and a speed
    const frame = await frameOf(page, 'one');
    await frame.locator(tid('stage')).first().waitFor();
    await page.evaluate(() => document.getElementById('one').pause());
    await frame.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'paused');
    const code = await shareCode(lab, 'static-batching');
    await page.evaluate((c) => document.getElementById('one').setState(c), code);
    await frame.waitForFunction(() => document.querySelector('[data-testid="preset"]')?.value === 'static-batching', null, {
      timeout: 10_000,
    });
    const state = await waitEvent(page, 'one', 'state', (e) => /^2\./.test(e.lab));
    assert.match(state.lab, /^2\./);
    await page.evaluate(() => {
      const el = document.getElementById('one');
      el.play();
      el.setSpeed(10);
    });
    await frame.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'playing', null, {
      timeout: 10_000,
    });

    // bad commands: an error reply naming the field; the lab keeps its state and keeps running
    await page.evaluate(() => document.getElementById('one').setSpeed(5000));
    const bad = await waitEvent(page, 'one', 'error', (e) => e.kind === 'command');
    assert.equal(bad.field, 'x');
    assert.equal(bad.command, 'set-speed');
    assert.match(bad.message, /0\.1 to 100/);
    await page.evaluate(() => document.getElementById('one').setState('2.not-a-state'));
    const badState = await waitEvent(page, 'one', 'error', (e) => e.kind === 'command' && e.field === 'lab');
    assert.equal(badState.command, 'set-state');
    await page.evaluate(() => document.getElementById('one').send('explode'));
    await waitEvent(page, 'one', 'error', (e) => e.field === 'type');
    assert.equal(await frame.locator(tid('preset')).inputValue(), 'static-batching', 'the last good state stays');
    const t0 = Number((await frame.locator(tid('sim-time')).textContent()).replace(/[^\d.]/g, ''));
    await sleep(800);
    const t1 = Number((await frame.locator(tid('sim-time')).textContent()).replace(/[^\d.]/g, ''));
    assert.ok(t1 > t0, `still running: ${t0} → ${t1}`);

    // the language
    await page.evaluate(() => document.getElementById('one').setLocale('zh'));
    await frame.waitForFunction(() => document.documentElement.lang.startsWith('zh'), null, { timeout: 10_000 });
    await page.locator('#one').screenshot({ path: await artifact('element-one.png') });

    // scrolled to, the second loads (and only it): its own preset, paused, as tall as its content
    await page.locator('#two').scrollIntoViewIfNeeded();
    await waitEvent(page, 'two', 'ready');
    assert.deepEqual(
      await page.evaluate(() => [...document.querySelectorAll('llm-lab')].map((e) => e.hasAttribute('loaded'))),
      [true, true, false],
    );
    const two = await frameOf(page, 'two');
    await two.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'paused');
    assert.equal(await two.locator(tid('preset')).inputValue(), 'static-batching');
    await sleep(1500);
    const lastTwo = (await eventsOf(page, 'two', 'resize')).at(-1).height;
    const twoH = await page.locator('#two iframe').evaluate((f) => f.getBoundingClientRect().height);
    assert.ok(lastTwo > 600, `the whole lab is taller than a frame: ${lastTwo}`);
    assert.equal(Math.round(twoH), Math.ceil(lastTwo), 'height="auto": the frame is the whole content');
    assert.ok(
      await two.evaluate(() => document.documentElement.scrollHeight <= innerHeight + 1),
      'nothing to scroll inside the frame',
    );
    // moved elsewhere in the page, an element's frame loads anew and speaks again
    await page.evaluate(() => {
      const el = document.getElementById('two');
      document.body.insertBefore(el, document.body.firstChild);
      window.scrollTo(0, 0);
    });
    await page.waitForFunction(() => window.labEvents.filter((e) => e.el === 'two' && e.type === 'ready').length >= 2, null, {
      timeout: 20_000,
    });
    assert.equal(await page.locator('#two iframe').count(), 1, 'one frame, not two');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the Share dialog's <llm-lab> code, pasted into a page, opens the lab as it was shared", async () => {
    const page = await lab.context.newPage();
    await page.goto(lab.href('', { query: { preset: 'static-batching' } }));
    await page.locator(tid('share')).click();
    await page.locator(tid('embed-code-section')).waitFor();
    await page.locator(tid('embed-kind')).selectOption('element');
    const code = await page.locator(tid('embed-code')).inputValue();
    assert.match(code, /^<script src="[^"]+\/llm-lab\.js" defer><\/script>\n<llm-lab lab="2\.[A-Za-z0-9_-]+" height="400"><\/llm-lab>$/);
    await page.close();
    await writeFile(join(dir, 'pasted.html'), `<!doctype html><html><head><meta charset="utf-8"><title>Pasted</title><link rel="icon" href="data:,"></head><body>${code}</body></html>`);
    const docs = await lab.context.newPage();
    const errors = [];
    docs.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await docs.goto(`${host.url}pasted.html`);
    await docs.waitForFunction(() => document.querySelector('llm-lab')?.hasAttribute('ready'), null, { timeout: 20_000 });
    const frame = await (await docs.locator('llm-lab iframe').elementHandle()).contentFrame();
    await frame.waitForFunction(() => document.querySelector('[data-testid="preset"]')?.value === 'static-batching', null, { timeout: 10_000 });
    assert.deepEqual(errors, []);
    await docs.close();
  });

  test('an exercise in an element: its result arrives as llm-lab:exercise-result and as llm-lab:result', async () => {
    await writeFile(join(dir, 'exercise.html'), hostPage(lab.url, '<llm-lab id="ex" exercise="chat-cheapest" height="700"></llm-lab>'));
    const page = await lab.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${host.url}exercise.html`);
    await waitEvent(page, 'ex', 'ready');
    const frame = await frameOf(page, 'ex');
    await frame.locator(tid('exercise-run-to-end')).click({ timeout: 20_000 });
    const result = await waitEvent(page, 'ex', 'exercise-result', (e) => e.event === 'llm-lab:exercise-result', 90_000);
    assert.equal(result.id, 'chat-cheapest');
    assert.equal(result.protocol, 1);
    assert.equal(typeof result.pass, 'boolean');
    assert.ok(Array.isArray(result.goals) && result.goals.length > 0);
    const alias = await waitEvent(page, 'ex', 'exercise-result', (e) => e.event === 'llm-lab:result');
    assert.deepEqual({ ...alias, event: '' }, { ...result, event: '' });
    await page.close();
  });

  test('a lab told another parent origin posts nothing to this page and obeys none of its commands', async () => {
    await writeFile(
      join(dir, 'other.html'),
      hostPage(lab.url, `<iframe id="f" style="width:800px;height:500px;border:0" src="${lab.url}?embed=1&parent=https://docs.example.org"></iframe>`),
    );
    const page = await lab.context.newPage();
    await page.goto(`${host.url}other.html`);
    const handle = await page.locator('#f').elementHandle();
    const frame = await handle.contentFrame();
    await frame.locator(tid('stage')).first().waitFor({ timeout: 15_000 });
    await frame.waitForFunction(() => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'playing');
    await page.evaluate((origin) => document.getElementById('f').contentWindow.postMessage({ protocol: 1, type: 'pause' }, origin), new URL(lab.url).origin);
    await sleep(1500);
    assert.equal(await frame.locator(tid('run-state')).getAttribute('data-state'), 'playing', 'the command was not obeyed');
    const got = await page.evaluate(() => window.rawMessages.filter((m) => m && m.source === 'llm-serving-lab'));
    assert.deepEqual(got, [], 'nothing was posted to this page');
    await page.close();
  });
});

/** A share code of `preset`, from the lab's own Share dialog. */
async function shareCode(lab, preset) {
  const page = await lab.context.newPage();
  await page.goto(lab.href('', { query: { preset } }));
  await page.locator(tid('share')).click();
  const url = await page.locator(tid('share-url')).inputValue();
  await page.close();
  return new URL(url).searchParams.get('lab');
}
