// The static server sends a file's precompressed sibling to a browser that accepts its encoding,
// and precompress.mjs writes siblings that decompress to the file, the same bytes every time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { accepts, serveDir } from './serve.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function site() {
  const dir = mkdtempSync(join(tmpdir(), 'lab-serve-'));
  mkdirSync(join(dir, 'wasm-0'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>lab</title>'.repeat(50));
  writeFileSync(join(dir, 'wasm-0', 'app_bg.wasm'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 13)));
  writeFileSync(join(dir, 'plain.png'), 'not compressed');
  execFileSync('node', [join(ROOT, 'scripts', 'precompress.mjs'), dir]);
  return dir;
}

test('accept-encoding is read as browsers send it', () => {
  assert.equal(accepts('gzip, deflate, br, zstd', 'br'), true);
  assert.equal(accepts('gzip, deflate', 'br'), false);
  assert.equal(accepts('br;q=0, gzip', 'br'), false);
  assert.equal(accepts('BR;q=0.5', 'br'), true);
  assert.equal(accepts(undefined, 'gzip'), false);
});

test('precompress writes a .gz and a .br that decompress to each file, the same bytes twice', () => {
  const dir = site();
  try {
    const wasm = join(dir, 'wasm-0', 'app_bg.wasm');
    const original = readFileSync(wasm);
    assert.deepEqual(gunzipSync(readFileSync(`${wasm}.gz`)), original);
    assert.deepEqual(brotliDecompressSync(readFileSync(`${wasm}.br`)), original);
    assert.ok(readFileSync(`${wasm}.br`).length < original.length);
    assert.equal(existsSync(join(dir, 'plain.png.gz')), false, 'an image is not compressed again');
    const first = readFileSync(`${wasm}.br`);
    execFileSync('node', [join(ROOT, 'scripts', 'precompress.mjs'), dir]);
    assert.deepEqual(readFileSync(`${wasm}.br`), first);
    assert.equal(existsSync(`${wasm}.gz.gz`), false, 'siblings are not compressed again');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the server sends the sibling the browser accepts, with the original type', async () => {
  const dir = site();
  const server = await serveDir(dir);
  const gzipOnly = await serveDir(dir, { encodings: ['gzip'] });
  try {
    const get = async (base, path, enc) => {
      const res = await fetch(base + path, { headers: enc === undefined ? {} : { 'accept-encoding': enc } });
      // fetch decodes what it is sent; the header says what was sent
      return { type: res.headers.get('content-type'), enc: res.headers.get('content-encoding'), vary: res.headers.get('vary'), body: Buffer.from(await res.arrayBuffer()) };
    };
    const wasm = readFileSync(join(dir, 'wasm-0', 'app_bg.wasm'));
    const br = await get(server.url, 'wasm-0/app_bg.wasm', 'gzip, deflate, br');
    assert.equal(br.enc, 'br');
    assert.equal(br.type, 'application/wasm');
    assert.equal(br.vary, 'accept-encoding');
    assert.deepEqual(br.body, wasm);
    const gz = await get(server.url, 'wasm-0/app_bg.wasm', 'gzip');
    assert.equal(gz.enc, 'gzip');
    assert.deepEqual(gz.body, wasm);
    const hostLike = await get(gzipOnly.url, 'wasm-0/app_bg.wasm', 'gzip, deflate, br');
    assert.equal(hostLike.enc, 'gzip', 'a server limited to gzip sends gzip to a browser that also takes br');
    const raw = await get(server.url, 'wasm-0/app_bg.wasm', 'identity');
    assert.equal(raw.enc, null);
    assert.deepEqual(raw.body, wasm);
    const page = await get(server.url, '', 'br');
    assert.equal(page.type, 'text/html; charset=utf-8');
    assert.equal(page.enc, 'br');
    const png = await get(server.url, 'plain.png', 'br');
    assert.equal(png.enc, null);
    assert.equal(png.vary, null);
  } finally {
    await server.close();
    await gzipOnly.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
