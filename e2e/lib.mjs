// Shared helpers for the browser tests: the fixture every test file uses (`useLab`: a static
// server for dist/, one Chromium, console-error collection, teardown), and page readers.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { serveDir } from '../scripts/serve.mjs';

export { serveDir };

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const DIST = join(ROOT, 'dist');
export const ARTIFACTS = join(ROOT, 'e2e', 'artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Without the networking flags Chromium keeps dialing out and floods a closed network.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails with a clear message when the web build is missing. */
export function assertBuilt(dir = DIST) {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(`${dir}/index.html is missing: run scripts/build-web.sh first`);
  }
}

/**
 * Launches Debian's Chromium with a fresh profile in a scratch folder, which also serves
 * as Chromium's TMPDIR. Resolves to { context, close }; close() removes the scratch folder.
 */
export async function launchBrowser() {
  const scratch = await mkdtemp(join(process.env.E2E_SCRATCH ?? tmpdir(), 'lab-e2e-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(join(scratch, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      env: { ...process.env, TMPDIR: scratch },
      viewport: { width: 1024, height: 720 },
    });
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** Records console errors, uncaught page errors and failed requests of `page`. */
export function collectErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText ?? '';
    // The Share dialog's embed preview is a frame of the lab itself: closing the dialog removes
    // it, and the loads it still had in flight are aborted. That is not the page failing.
    if (why === 'net::ERR_ABORTED' && req.frame() !== page.mainFrame()) return;
    errors.push(`requestfailed: ${req.url()} ${why}`);
  });
  return errors;
}

/**
 * Opens `url` in a new page of `context` (sized to `viewport` first, if given) that records
 * errors, and waits for the load event. Resolves to { page, errors }.
 */
export async function openLab(context, url, { viewport } = {}) {
  const page = await context.newPage();
  const errors = collectErrors(page);
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors };
}

/**
 * The fixture of a test file. Called inside `describe()`, it registers a `before` hook that
 * checks the build, serves `dir` and launches Chromium, and an `after` hook that closes every
 * browser it launched and stops the server. Returns:
 *
 * - `url`, `context`: the server's address (ends in `/`) and the shared browser context;
 * - `href(target, { query, locale })`: `target` is a path or `?query` relative to the server, or
 *   a whole address; `query` (an object) and `locale` set search parameters on it;
 * - `open(target, { viewport, query, locale, ready, context })`: a new page that records console
 *   errors, uncaught page errors and failed requests, sized to `viewport` ({ width, height })
 *   before it loads, then waits for `ready(page)` (the file's default unless given; `null` waits
 *   for the load event only). Resolves to `{ page, errors }`;
 * - `launch()`: another browser with a fresh profile (closed by the `after` hook if the test
 *   does not close it).
 */
export function useLab({ dir = DIST, ready = null } = {}) {
  let server;
  let browser;
  const launched = [];

  before(async () => {
    assertBuilt(dir);
    server = await serveDir(dir);
    browser = await launchBrowser();
  });

  after(async () => {
    for (const other of launched.splice(0)) await other.close();
    await browser?.close();
    await server?.close();
  });

  const lab = {
    get url() {
      return server.url;
    },
    get context() {
      return browser.context;
    },
    href(target = '', { query, locale } = {}) {
      const base = /^[a-z]+:/i.test(target) ? target : server.url + target.replace(/^\//, '');
      if (query === undefined && locale === undefined) return base;
      const url = new URL(base);
      for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, String(value));
      if (locale !== undefined) url.searchParams.set('locale', locale);
      return url.href;
    },
    async open(target = '', { viewport, query, locale, ready: wait = ready, context } = {}) {
      const opened = await openLab(context ?? browser.context, lab.href(target, { query, locale }), { viewport });
      if (wait) await wait(opened.page);
      return opened;
    },
    async launch() {
      const other = await launchBrowser();
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await other.close();
      };
      launched.push({ close });
      return { context: other.context, close };
    },
  };
  return lab;
}

/** Makes e2e/artifacts/ and returns the path of `name` inside it (for screenshots and reports). */
export async function artifact(name) {
  await mkdir(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** Reads the number shown in [data-testid=sim-time]. */
export async function readSimTime(page) {
  const text = await page.locator('[data-testid="sim-time"]').textContent();
  const value = Number.parseFloat(text ?? '');
  if (!Number.isFinite(value)) throw new Error(`sim-time is not a number: ${JSON.stringify(text)}`);
  return value;
}

/** Summarises the pixels of the canvas matched by `selector` (runs in the page). */
export function canvasStats(page, selector = '#stage') {
  return page.evaluate((sel) => {
    const canvas = document.querySelector(sel);
    if (!canvas) throw new Error(`no canvas ${sel}`);
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let opaque = 0;
    let hash = 0;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] !== 0) opaque += 1;
      const rgba = ((data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]) >>> 0;
      if (colours.size < 1024) colours.add(rgba);
      hash = (Math.imul(hash, 31) + rgba) >>> 0;
    }
    return { width: canvas.width, height: canvas.height, opaque, colours: colours.size, hash };
  }, selector);
}

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** CSS selector of a data-testid (quoted: ids may hold dots and brackets). */
export const tid = (id) => `[data-testid="${id}"]`;

/**
 * Reads a number as the page shows it: "143 ms", "1.23 s" (→ 1230, in ms), "1,443 tok/s",
 * "99.9 %", "$0.518", "12". Throws when the element shows no number.
 */
export async function readMetric(page, id, scope = '') {
  const text = (await page.locator(`${scope} ${tid(id)}`.trim()).first().textContent()) ?? '';
  return parseShown(text, id);
}

export function parseShown(text, what = 'value') {
  const m = text.replace(/,/g, '').match(/(-?\d+(?:\.\d+)?)\s*(ms|s|%|tok\/s|req\/s)?/);
  if (!m) throw new Error(`${what} shows no number: ${JSON.stringify(text)}`);
  const v = Number.parseFloat(m[1]);
  return m[2] === 's' ? v * 1000 : v;
}

/** Picks a preset in the scenario panel and waits until the restarted run plays. */
export async function selectPreset(page, id) {
  await page.selectOption(tid('preset'), id);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="preset"]')?.value === want
      && document.querySelector('[data-testid="run-state"]')?.dataset.state === 'playing',
    id,
  );
}

/** Fast-forwards until every request has ended and the panels show the final numbers. */
export async function runToEnd(page, timeout = 60_000) {
  await page.locator(tid('run-to-end')).click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="run-state"]')?.dataset.state === 'finished',
    null,
    { timeout },
  );
}

/**
 * Lists the visible text the page cuts (runs in the page): an element whose content is wider
 * than its box while overflow is hidden/clip or text-overflow is ellipsis, text wider than its
 * own block box, a `<select>` whose chosen option is wider than the control (less its arrow),
 * an input whose value is wider than the box, and text clipped by an ancestor with overflow
 * hidden/clip. Resolves to `[{ where, text, why, need, have }]` (`where`: tag#id[testid].class
 * inside the nearest ancestor with a test id; `need`/`have`: px of the text and of its room).
 * `scope` is a CSS selector; elements matching `ignore` (and their insides) are skipped.
 */
export function cutText(page, { scope = 'body', ignore = '' } = {}) {
  return page.evaluate(({ scope, ignore }) => {
    const found = [];
    const seen = new Set();
    const where = (el) => {
      const one = (e) => {
        let s = e.tagName.toLowerCase();
        if (e.id) s += `#${e.id}`;
        if (e.dataset?.testid) s += `[data-testid="${e.dataset.testid}"]`;
        const cls = [...e.classList].slice(0, 2);
        if (cls.length) s += `.${cls.join('.')}`;
        return s;
      };
      const host = el.parentElement?.closest('[data-testid]');
      return host && !el.dataset?.testid ? `${one(host)} ${one(el)}` : one(el);
    };
    const visible = (el) => {
      if (!el.getClientRects().length) return false;
      // the visually hidden pattern (a 1 × 1 px clipped box, for screen readers) shows nothing
      const r = el.getBoundingClientRect();
      if (r.width <= 2 && r.height <= 2) return false;
      const cs = getComputedStyle(el);
      return cs.visibility !== 'hidden' && cs.display !== 'none' && Number(cs.opacity) > 0;
    };
    const add = (el, text, why, need, have) => {
      if (seen.has(el) || !text.trim()) return;
      seen.add(el);
      found.push({ where: where(el), text: text.trim().slice(0, 80), why, need: Math.round(need), have: Math.round(have) });
    };
    const ownText = (el) => [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    const textRect = (nodes) => {
      const r = document.createRange();
      let box = null;
      for (const n of nodes) {
        r.selectNodeContents(n);
        for (const q of r.getClientRects()) {
          if (q.width === 0) continue;
          box = box
            ? { left: Math.min(box.left, q.left), right: Math.max(box.right, q.right), top: Math.min(box.top, q.top), bottom: Math.max(box.bottom, q.bottom) }
            : { left: q.left, right: q.right, top: q.top, bottom: q.bottom };
        }
      }
      return box;
    };
    const measure = (text, cs) => {
      const c = (measure.c ??= document.createElement('canvas').getContext('2d'));
      c.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      return c.measureText(text).width;
    };
    const px = (v) => Number.parseFloat(v) || 0;
    const root = document.querySelector(scope);
    if (!root) return [];
    const skip = (el) => ignore && el.closest(ignore);
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (skip(el) || !visible(el)) continue;
      const cs = getComputedStyle(el);
      const tag = el.tagName;
      if (tag === 'SELECT') {
        const opt = el.options[el.selectedIndex];
        if (!opt) continue;
        const need = measure(opt.text, cs);
        const arrow = cs.appearance === 'none' ? 0 : 20;
        const have = el.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight) - arrow;
        if (need > have + 1) add(el, opt.text, 'select option wider than the control', need, have);
        continue;
      }
      if (tag === 'INPUT' && !['range', 'checkbox', 'radio', 'color', 'hidden'].includes(el.type)) {
        const need = measure(el.value, cs);
        const have = el.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight) - (el.type === 'number' ? 14 : 0);
        if (el.value && need > have + 1) add(el, el.value, 'input value wider than the box', need, have);
        continue;
      }
      if (['CANVAS', 'SVG', 'svg', 'SCRIPT', 'STYLE', 'TEXTAREA', 'OPTION'].includes(tag)) continue;
      const text = el.innerText ?? el.textContent ?? '';
      if (!text.trim()) continue;
      const clips = ['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis';
      if (clips && el.scrollWidth > el.clientWidth + 1) {
        add(el, text, 'wider than its box (overflow hidden/ellipsis)', el.scrollWidth, el.clientWidth);
        continue;
      }
      if (['hidden', 'clip'].includes(cs.overflowY) && el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0) {
        add(el, text, 'taller than its box (overflow hidden)', el.scrollHeight, el.clientHeight);
        continue;
      }
      const nodes = ownText(el);
      if (!nodes.length) continue;
      const t = textRect(nodes);
      if (!t) continue;
      const own = nodes.map((n) => n.textContent).join(' ');
      if (!cs.display.startsWith('inline')) {
        const box = el.getBoundingClientRect();
        const right = box.right - px(cs.borderRightWidth);
        const left = box.left + px(cs.borderLeftWidth);
        if (t.right > right + 1 || t.left < left - 1) {
          add(el, own, 'text wider than its box', t.right - t.left, right - left);
          continue;
        }
      }
      // an ancestor that hides what spills out of it
      for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
        const acs = getComputedStyle(a);
        const hx = ['hidden', 'clip'].includes(acs.overflowX);
        const hy = ['hidden', 'clip'].includes(acs.overflowY);
        if (!hx && !hy) continue;
        const b = a.getBoundingClientRect();
        const out = (hx && (t.right > b.right + 1 || t.left < b.left - 1))
          || (hy && (t.bottom > b.bottom + 1 || t.top < b.top - 1));
        // the visually hidden pattern (1×1 px, clipped on purpose) is not cut text
        if (out && b.width > 2 && b.height > 2) {
          add(el, own, `clipped by ${where(a)}`, t.right - t.left, b.width);
          break;
        }
      }
    }
    return found;
  }, { scope, ignore });
}
