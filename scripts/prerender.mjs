// The page's static layout, written into a release build (scripts/build-web.sh): what the page
// looks like the moment it mounts, taken from the page itself in headless Chromium, so the first
// paint needs no wasm and nothing moves when the page mounts in its place (app/src/lib.rs removes
// it in the same task).
//
//   node scripts/prerender.mjs DIST
//
// The layout is the DOM the page mounts, read at the animation frame after the mount (its first,
// which spans no time): every number still "—", t = 0, nothing of the run drawn; form fields keep
// the values the page gave them; the definitions (shown on hover) and the lists' other options are
// left out. Each top-level element is marked
// `data-first-paint` and `inert` (its buttons answer only once the page has mounted); test ids
// and ids go, but for the stage's canvas (`#stage`), which the first-frame module animates
// meanwhile (`first-paint` gives it its drawn height before its first frame: static/first.css),
// and the headline numbers it fills in (`data-first-number`: the key numbers, the latency table,
// the simulated time).
//
// The English layout is in index.html; the Chinese one in first-paint.zh.html. A small script
// after the layout shows it as the page will mount for this visitor: in Chinese when `locale=`
// or, without it, the browser asks for it (fetched, the English one kept invisible meanwhile), and
// without "Start here" once dismissed, in the projector profile when `contrast=high` asks; an
// embedded page (another layout) shows none. The same build gives the same files, byte for byte
// (scripts/repro.sh).
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
const ZH_FILE = 'first-paint.zh.html';

/** In the page: the body's elements as the page mounts them, cleaned for the static layout. */
function takeLayout() {
  return new Promise((done) => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector('main.lab')) return;
      seen.disconnect();
      // the page's effects have run by the next animation frame, and its first frame (registered
      // at mount, before this) moved nothing: it spans no time
      requestAnimationFrame(() => done(take()));
    });
    seen.observe(document, { childList: true, subtree: true });
    const take = () => {
      const out = [];
      let dismissedKey = null;
      for (const el of document.body.children) {
        if (['SCRIPT', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
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
        // what an inert layout never shows: the definitions (shown on hover or focus) and the
        // options of a closed list but the chosen one (every list is as wide as its column)
        for (const node of copy.querySelectorAll('.term .def, option:not([selected])')) node.remove();
        // what limits the run is the page's to say once it runs (its row stays, the badge unseen)
        for (const node of copy.querySelectorAll('.limit-badge')) node.classList.add('hidden');
        // the numbers the first-frame module fills in keep their test id under another name
        for (const node of copy.querySelectorAll('.key-numbers [data-testid], table.lat [data-testid], .status [data-testid]')) {
          if (node.children.length === 0) node.setAttribute('data-first-number', node.dataset.testid);
        }
        for (const node of [copy, ...copy.querySelectorAll('*')]) {
          node.removeAttribute('data-testid');
          if (node.id && node.id !== 'stage') node.removeAttribute('id');
          if (node.tagName === 'CANVAS') {
            for (const a of [...node.attributes]) {
              if (['width', 'height', 'style'].includes(a.name) || a.name.startsWith('data-')) node.removeAttribute(a.name);
            }
          }
          if (node.dataset?.dismissedKey) dismissedKey = node.dataset.dismissedKey;
        }
        copy.querySelector('canvas#stage')?.classList.add('first-paint');
        copy.querySelector('canvas#stage')?.closest('.stage-block')?.classList.add('first-paint');
        copy.setAttribute('data-first-paint', '');
        copy.setAttribute('inert', '');
        out.push(copy.outerHTML);
      }
      return { html: out.join('\n'), lang: document.documentElement.lang, dismissedKey };
    };
  });
}

/** The static layout's chooser (runs in the page right after the English layout is parsed). */
function choose(zhFile, zhLang, dismissedKey) {
  // The page's rule (app_model::locale): locale= when it names a language, else the browser's
  // first that does, else English; a tag is `en`, `zh` or one of theirs (`zh-CN`, `en_GB`).
  const pick = (tag) => {
    const t = String(tag ?? '').trim().toLowerCase();
    return ['en', 'zh'].find((c) => t === c || t.startsWith(`${c}-`) || t.startsWith(`${c}_`));
  };
  const params = new URLSearchParams(location.search);
  // embedded (embed=, unless 0, false or no: app_model::query), the page has another layout: it
  // paints nothing before it mounts
  const embed = params.get('embed');
  if (embed !== null && !['0', 'false', 'no'].includes(embed)) {
    for (const el of document.querySelectorAll('[data-first-paint]')) el.remove();
    return;
  }
  // the projector profile (contrast=high) restyles the page: the layout takes it from the start
  if (params.get('contrast') === 'high') document.body.classList.add('projector');
  const asked = pick(params.get('locale'));
  const lang = asked ?? [...(navigator.languages ?? []), navigator.language].map(pick).find(Boolean) ?? 'en';
  const root = document.documentElement;
  const drop = () => {
    if (dismissedKey && localStorage.getItem(dismissedKey) !== null) {
      for (const el of document.querySelectorAll('[data-first-paint].start-here, [data-first-paint] .start-here')) el.remove();
    }
  };
  try {
    drop();
  } catch {
    // no local storage: "Start here" shows, as the page shows it
  }
  if (lang !== 'zh') return;
  root.classList.add('first-paint-wait');
  fetch(zhFile)
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${zhFile}: HTTP ${r.status}`))))
    .then((html) => {
      const old = [...document.querySelectorAll('[data-first-paint]')];
      if (old.length === 0) return; // the page has mounted already
      const t = document.createElement('template');
      t.innerHTML = html;
      old[0].before(t.content);
      for (const el of old) el.remove();
      root.lang = zhLang;
      try {
        drop();
      } catch {
        // as above
      }
    })
    .catch(() => {})
    .finally(() => root.classList.remove('first-paint-wait'));
}

async function layoutOf(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  try {
    await page.addInitScript(`window.__layout = (${takeLayout.toString()})();`);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url, { waitUntil: 'commit' });
    const layout = await page.waitForFunction(() => window.__layout, null, { timeout: 60_000 }).then((h) => h.jsonValue());
    if (errors.length) throw new Error(`the page failed while mounting (${url}): ${errors.join('; ')}`);
    if (!layout.html.includes('id="stage"')) throw new Error(`the page mounted no canvas#stage (${url})`);
    return layout;
  } finally {
    await page.close();
  }
}

const server = await serveDir(dist);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--lang=en-US'] });
try {
  const en = await layoutOf(browser, server.url);
  const zh = await layoutOf(browser, `${server.url}?locale=zh`);
  if (zh.lang === en.lang) throw new Error(`the page mounted with locale=zh has <html lang="${zh.lang}">, as in English`);
  if (!en.dismissedKey) throw new Error('the page mounted no "Start here" with data-dismissed-key');
  const file = join(dist, 'index.html');
  const html = await readFile(file, 'utf8');
  if (html.includes(BEGIN)) throw new Error(`${file} has a static layout already`);
  const at = html.indexOf('<body>');
  if (at < 0) throw new Error(`${file} has no <body>`);
  const cut = at + '<body>'.length;
  const args = [ZH_FILE, zh.lang, en.dismissedKey].map((a) => JSON.stringify(a)).join(', ');
  const chooser = `<script>(${choose.toString()})(${args});</script>`;
  await writeFile(file, `${html.slice(0, cut)}\n${BEGIN}\n${en.html}\n${chooser}\n${END}${html.slice(cut)}`);
  await writeFile(join(dist, ZH_FILE), `${zh.html}\n`);
  console.log(`prerender: the page's static layout in ${file} (${en.html.length} characters) and ${ZH_FILE} (${zh.html.length})`);
} finally {
  await browser.close();
  await server.close();
}
