// The page's static layout, written into a release build's index.html (scripts/build-web.sh):
// what the page looks like the moment it mounts, in English, taken from the page itself in
// headless Chromium, so the first paint needs no wasm and nothing moves when the page mounts in
// its place (app/src/lib.rs removes it in the same task).
//
//   node scripts/prerender.mjs DIST
//
// The layout is the DOM the page mounts, before its first animation frame (a mutation observer
// reads it in the microtask after the mount): every number still "—", t = 0, nothing of the
// run drawn; form fields keep the values the page gave them. Each top-level element is marked `data-first-paint` and `inert` (its buttons answer
// only once the page has mounted); test ids and ids go, but for the stage's canvas (`#stage`),
// which the first-frame module animates meanwhile (`first-paint` gives it its drawn height
// before its first frame: static/first.css). The same build gives the same layout, byte for
// byte (scripts/repro.sh).
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { serveDir } from './serve.mjs';

const dist = process.argv[2];
if (!dist || process.argv.length !== 3) {
  console.error('usage: node scripts/prerender.mjs DIST');
  process.exit(2);
}
const require = createRequire(resolve('e2e/package.json'));
const { chromium } = require('playwright-core');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const BEGIN = '<!-- static layout: scripts/prerender.mjs -->';
const END = '<!-- end of the static layout -->';

/** In the page: the body's elements as the page mounts them, cleaned for the static layout. */
function takeLayout() {
  return new Promise((done) => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector('main.lab')) return;
      seen.disconnect();
      const out = [];
      for (const el of document.body.children) {
        if (['SCRIPT', 'NOSCRIPT'].includes(el.tagName)) continue;
        const copy = el.cloneNode(true);
        // form values are properties, which a copy's HTML does not carry: write them as attributes
        const live = [el, ...el.querySelectorAll('*')];
        [copy, ...copy.querySelectorAll('*')].forEach((node, i) => {
          const from = live[i];
          if (from.tagName === 'INPUT') {
            if (from.type === 'checkbox' || from.type === 'radio') node.toggleAttribute('checked', from.checked);
            else node.setAttribute('value', from.value);
          } else if (from.tagName === 'OPTION') {
            node.toggleAttribute('selected', from.selected);
          } else if (from.tagName === 'TEXTAREA') {
            node.textContent = from.value;
          }
        });
        for (const node of [copy, ...copy.querySelectorAll('*')]) {
          node.removeAttribute('data-testid');
          if (node.id && node.id !== 'stage') node.removeAttribute('id');
          if (node.tagName === 'CANVAS') {
            for (const a of ['width', 'height', 'style']) node.removeAttribute(a);
          }
        }
        copy.querySelector('canvas#stage')?.classList.add('first-paint');
        copy.querySelector('canvas#stage')?.closest('.stage-block')?.classList.add('first-paint');
        copy.setAttribute('data-first-paint', '');
        copy.setAttribute('inert', '');
        out.push(copy.outerHTML);
      }
      done(out.join('\n'));
    });
    seen.observe(document, { childList: true, subtree: true });
  });
}

const server = await serveDir(dist);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--lang=en-US'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  await page.addInitScript(`window.__layout = (${takeLayout.toString()})();`);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url, { waitUntil: 'commit' });
  const layout = await page.waitForFunction(() => window.__layout, null, { timeout: 60_000 }).then((h) => h.jsonValue());
  if (errors.length) throw new Error(`the page failed while mounting: ${errors.join('; ')}`);
  if (!layout.includes('id="stage"')) throw new Error('the mounted page has no canvas#stage');
  const file = join(dist, 'index.html');
  const html = await readFile(file, 'utf8');
  if (html.includes(BEGIN)) throw new Error(`${file} has a static layout already`);
  const at = html.indexOf('<body>');
  if (at < 0) throw new Error(`${file} has no <body>`);
  const cut = at + '<body>'.length;
  await writeFile(file, `${html.slice(0, cut)}\n${BEGIN}\n${layout}\n${END}${html.slice(cut)}`);
  console.log(`prerender: ${file} has the page's static layout (${layout.length} characters)`);
} finally {
  await browser.close();
  await server.close();
}
