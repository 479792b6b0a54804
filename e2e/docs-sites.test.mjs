// The <llm-lab> element in two real docs sites: the mdBook and the MkDocs recipes of
// docs/sites/, built by their own tools (scripts/docs-sites.sh builds them into a scratch folder
// and runs this file with DOCS_SITES_DIR set; without it this file has nothing to open and says so).
//
// The first test, which needs no build, checks that docs/embed.md shows these recipes as they are.
//
// Three origins, as on the web: the lab (dist/) on one port, each docs site on another. The
// recipes load the element from https://example.org/lab/llm-lab.js, as a docs author writes it;
// the test checks the generator passed that tag through unchanged, then points that address at the
// local lab. For each site: the lab loads in the element's frame (`llm-lab:ready`), the frame takes
// the height the lab reports (`llm-lab:resize`, capped by the `height` attribute), `setState()`
// with a share code of another preset changes what the lab shows, and no frame logs an error.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DIST, ROOT, artifact, assertBuilt, collectErrors, launchBrowser, serveDir, sleep, tid } from './lib.mjs';

const SITES_DIR = process.env.DOCS_SITES_DIR;
/** The address the recipes load the lab from (docs/sites/): the test serves dist/ there instead. */
const RECIPE_LAB = 'https://example.org/lab/';

/** Each site: its folder in DOCS_SITES_DIR, the page with the element, its `height` cap (px or Infinity). */
const SITES = [
  { name: 'mdbook', page: 'chapter.html', cap: Infinity },
  { name: 'mkdocs', page: 'index.html', cap: 600 },
];

/** Every .html file under `dir`. */
function htmlFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.html'))
    .map((f) => join(dir, f));
}

/** The JSON inside a share code `2.<base64url>`. */
function decodeCode(code) {
  const [version, body] = code.split('.');
  assert.equal(version, '2', `share code ${code}`);
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
}

// Records every llm-lab:* event that reaches the document (they bubble from the element), with
// the frame's height at that moment. Runs in every frame; only the host page has the element.
function recordEvents() {
  window.labEvents = [];
  for (const type of ['ready', 'resize', 'state', 'error', 'lesson-completed', 'exercise-result']) {
    document.addEventListener(`llm-lab:${type}`, (e) => {
      const frame = e.target.querySelector?.('iframe');
      window.labEvents.push({
        type,
        detail: JSON.parse(JSON.stringify(e.detail ?? null)),
        frame_height: frame ? frame.getBoundingClientRect().height : null,
      });
    });
  }
}

// docs/embed.md shows each recipe's files whole: they must be the files this test builds
test('docs/embed.md shows the recipes of docs/sites/ as they are', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'embed.md'), 'utf8');
  const files = ['mdbook/book.toml', 'mdbook/src/SUMMARY.md', 'mdbook/src/chapter.md', 'mkdocs/mkdocs.yml', 'mkdocs/docs/index.md'];
  for (const f of files) {
    const text = readFileSync(join(ROOT, 'docs', 'sites', f), 'utf8').trimEnd();
    assert.ok(doc.includes(`\`docs/sites/${f}\`:\n\n\`\`\``), `docs/embed.md names docs/sites/${f} before a code block`);
    assert.ok(doc.includes(`\n${text}\n\`\`\``), `docs/embed.md shows docs/sites/${f} as it is`);
  }
});

const events = (page, type) => page.evaluate((t) => window.labEvents.filter((e) => e.type === t), type);

describe('the <llm-lab> element in docs sites built by mdBook and MkDocs', { skip: SITES_DIR ? false : 'the sites are built by scripts/docs-sites.sh, which runs this file', timeout: 300_000 }, () => {
  let lab;
  let browser;
  let code;
  const servers = [];

  before(async () => {
    assertBuilt();
    assert.ok(existsSync(join(DIST, 'llm-lab.js')), `${DIST}/llm-lab.js is missing: the build ships the <llm-lab> element beside index.html`);
    lab = await serveDir(DIST);
    browser = await launchBrowser();
    // a share code of another preset than the pages open, made by the lab's own Share button
    const page = await browser.context.newPage();
    await page.goto(`${lab.url}?preset=static-batching&autoplay=0`);
    await page.locator(tid('share')).click();
    code = new URL(await page.locator(tid('share-url')).inputValue()).searchParams.get('lab');
    assert.equal(decodeCode(code).scenario?.preset, 'static-batching', `share code ${code}`);
    await page.close();
  });

  after(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    await lab?.close();
  });

  for (const site of SITES) {
    test(`${site.name}: the lab loads, takes its height, and setState() changes what it shows`, async () => {
      const dir = join(SITES_DIR, site.name);
      const file = join(dir, site.page);
      assert.ok(existsSync(file), `${file} is missing: scripts/docs-sites.sh builds it`);
      const html = readFileSync(file, 'utf8');
      // the generator left the recipe's tags as they were written
      assert.ok(html.includes(`<script src="${RECIPE_LAB}llm-lab.js"></script>`), `${site.page} has no script tag for ${RECIPE_LAB}llm-lab.js`);
      assert.match(html, /<llm-lab preset="continuous-batching"[^>]*><\/llm-lab>/);
      for (const f of htmlFiles(dir)) writeFileSync(f, readFileSync(f, 'utf8').replaceAll(RECIPE_LAB, lab.url));
      const server = await serveDir(dir);
      servers.push(server);
      assert.notEqual(new URL(server.url).origin, new URL(lab.url).origin);

      const page = await browser.context.newPage();
      const errors = collectErrors(page);
      await page.setViewportSize({ width: 1000, height: 900 });
      await page.addInitScript(recordEvents);
      await page.goto(server.url + site.page, { waitUntil: 'load' });
      const el = page.locator('llm-lab');
      await el.scrollIntoViewIfNeeded();
      await page.locator('llm-lab[loaded] iframe').waitFor({ timeout: 15_000 });
      const src = await page.locator('llm-lab iframe').getAttribute('src');
      assert.ok(new URL(src, server.url).href.startsWith(lab.url), `the frame loads the lab from its own origin: ${src}`);

      // ready
      await page.waitForFunction(() => window.labEvents.some((e) => e.type === 'ready'), null, { timeout: 30_000 });
      const [ready] = await events(page, 'ready');
      assert.equal(ready.detail.protocol, 1, JSON.stringify(ready.detail));
      assert.equal(ready.detail.state_version, 2, JSON.stringify(ready.detail));
      assert.equal(ready.detail.locale, 'en', JSON.stringify(ready.detail));
      const frame = page.locator('llm-lab iframe').contentFrame();
      // the scenario's name heads the stage (in frames narrower than 720 px it gives way to the
      // bottleneck badge, but stays in the page) and the preset menu names the preset
      const named = (name, timeout = 15_000) => frame.locator(`${tid('stage-a')} h2`).filter({ hasText: name }).waitFor({ state: 'attached', timeout });
      await named('Continuous batching');
      assert.equal(await frame.locator(tid('preset')).inputValue(), 'continuous-batching');

      // resize: the frame takes the height the lab reports, up to the element's cap
      await page.waitForFunction(() => window.labEvents.some((e) => e.type === 'resize'), null, { timeout: 15_000 });
      const want = async () => {
        const all = await events(page, 'resize');
        return Math.min(all.at(-1).detail.height, site.cap);
      };
      const height = () => page.locator('llm-lab iframe').evaluate((f) => f.getBoundingClientRect().height);
      let reported;
      let shown;
      for (let i = 0; i < 50; i += 1) {
        reported = await want();
        shown = await height();
        if (Math.abs(shown - reported) <= 1) break;
        await sleep(100);
      }
      const resizes = await events(page, 'resize');
      assert.ok(resizes.every((e) => Number.isFinite(e.detail.height) && e.detail.height > 0), JSON.stringify(resizes));
      assert.ok(Math.abs(shown - reported) <= 1, `the frame is ${shown} px tall, the lab reported ${resizes.at(-1).detail.height} px (cap ${site.cap})`);
      // the opening stage with its key numbers is taller than the element's default 500 px, so a
      // frame that followed the lab is past that, or at the cap when there is one
      if (site.cap === Infinity) assert.ok(shown > 500, `the uncapped frame is ${shown} px tall`);
      else assert.equal(Math.round(shown), site.cap, `the frame stops at its cap: ${shown} px`);

      // a moment of the run, for docs/embed.md's screenshots
      await frame.locator(tid('play')).click();
      await sleep(2500);
      await frame.locator(tid('play')).click();
      await page.evaluate(() => window.scrollTo(0, 0));
      await sleep(200);
      await page.screenshot({ path: await artifact(`docs-site-${site.name}.png`) });

      // set-state from the page: the share code of static batching
      await page.evaluate((c) => document.querySelector('llm-lab').setState(c), code);
      await named('Static batching');
      assert.equal(await frame.locator(tid('preset')).inputValue(), 'static-batching');

      assert.deepEqual((await events(page, 'error')).map((e) => e.detail), [], 'llm-lab:error events');
      assert.deepEqual(errors, [], 'console errors, page errors or failed requests on the page or in its frame');
      await page.close();
    });
  }
});
