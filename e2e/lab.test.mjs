import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ARTIFACTS,
  assertBuilt,
  canvasStats,
  launchBrowser,
  openLab,
  readSimTime,
  serveDir,
  sleep,
} from './lib.mjs';

describe('lab page', { timeout: 120_000 }, () => {
  let server;
  let browser;

  before(async () => {
    assertBuilt();
    server = await serveDir();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function mounted(query = '') {
    const lab = await openLab(browser.context, server.url + query);
    await lab.page.locator('h1', { hasText: 'LLM Serving Lab' }).waitFor({ timeout: 15_000 });
    return lab;
  }

  test('loads without console errors', async () => {
    const { page, errors } = await mounted();
    await page.locator('canvas#stage').waitFor();
    await sleep(500);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('sim time increases', async () => {
    const { page, errors } = await mounted();
    const first = await readSimTime(page);
    await sleep(1500);
    const second = await readSimTime(page);
    assert.ok(second > first, `sim-time went from ${first} to ${second}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('canvas is drawn and animates', async () => {
    const { page } = await mounted();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="frame"]')?.textContent) > 2,
    );
    const a = await canvasStats(page);
    assert.ok(a.opaque === a.width * a.height, `only ${a.opaque} of ${a.width * a.height} pixels drawn`);
    assert.ok(a.colours > 2, `canvas has ${a.colours} colours`);
    await sleep(300);
    const b = await canvasStats(page);
    assert.notEqual(a.hash, b.hash, 'canvas did not change in 300 ms');
    await page.close();
  });

  test('screenshot', async () => {
    const { page } = await mounted();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="frame"]')?.textContent) > 10,
    );
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'lab.png'), fullPage: true });
    await page.close();
  });

  test('a panic shows the error view', async () => {
    // The app panics right after mounting, so the header never stays: no mounted() here.
    const { page, errors } = await openLab(browser.context, `${server.url}?panic`);
    const view = page.locator('[data-testid="panic"]');
    await view.waitFor({ timeout: 15_000 });
    assert.match(await view.textContent(), /panic requested by the \?panic query parameter/);
    assert.equal(await page.locator('canvas#stage').count(), 0);
    assert.ok(errors.length > 0, 'the panic should be logged to the console');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'panic.png') });
    await page.close();
  });
});
