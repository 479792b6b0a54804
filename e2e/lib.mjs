// Shared helpers for the browser tests: the fixture every test file uses (`useLab`: a static
// server for dist/, one Chromium, console-error collection, teardown), and page readers.
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

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

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', // WebAssembly.instantiateStreaming requires it
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Fails with a clear message when the web build is missing. */
export function assertBuilt(dir = DIST) {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(`${dir}/index.html is missing: run scripts/build-web.sh first`);
  }
}

/**
 * Serves `dir` on 127.0.0.1 on a free port.
 * Resolves to { url, close }; close() ends open connections too, so nothing keeps running.
 */
export async function serveDir(dir = DIST) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = normalize(join(root, pathname));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
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
  page.on('requestfailed', (req) =>
    errors.push(`requestfailed: ${req.url()} ${req.failure()?.errorText ?? ''}`),
  );
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
