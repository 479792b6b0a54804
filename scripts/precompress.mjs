// Writes a precompressed sibling beside every text and wasm file of a folder: `x.gz` (gzip by
// zopfli: a valid gzip stream 4–6% smaller than gzip -9's, slower to make, as fast to read) and
// `x.br` (brotli, quality 11), so a static host sends the smaller file without compressing
// on the fly (docs/deploy.md says how to switch that on for common hosts; scripts/serve.mjs
// does it). The output depends only on the input bytes, so the build stays reproducible.
//
//   node scripts/precompress.mjs DIR
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
// from e2e/'s packages (scripts/setup.sh installs them); a path, as this file is outside e2e/
import zopfli from '../e2e/node_modules/@gfx/zopfli/dist/index.js';

const { gzipAsync } = zopfli;

export const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg', '.txt']);

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (COMPRESSED.has(extname(name))) yield path;
  }
}

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/precompress.mjs DIR');
  process.exit(2);
}
let n = 0;
for (const path of files(dir)) {
  const bytes = readFileSync(path);
  writeFileSync(`${path}.gz`, await gzipAsync(bytes, { numiterations: 15 }));
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: 11,
    [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    [constants.BROTLI_PARAM_MODE]: extname(path) === '.wasm' ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
  };
  writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params }));
  n += 1;
}
console.log(`precompress: ${n} files of ${dir}/ with a .gz and a .br beside each`);
