// A static server for dist/: `./lab serve` runs it (`node scripts/serve.mjs DIR PORT`), and the
// browser tests serve the build with it (e2e/lib.mjs). It sends no-store, so a reload always
// shows the last build. Like a static host set up as docs/deploy.md says, it sends a file's
// precompressed sibling (`x.br`, `x.gz`, made by scripts/build-web.sh) to a browser that accepts
// that encoding, with `Content-Encoding` and `Vary: Accept-Encoding`.
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The precompressed siblings a file may have, in the order they are preferred. */
const SIBLINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

/** Whether the `accept-encoding` header `header` accepts `coding` (a q=0 refuses it). */
export function accepts(header, coding) {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name.trim().toLowerCase() !== coding) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/**
 * Serves `dir` on 127.0.0.1 on a free port. `encodings` are the precompressed siblings it may
 * send (`['br', 'gzip']`; `['gzip']` is what every static host does; `[]` none).
 * Resolves to { url, close }; close() ends open connections too, so nothing keeps running.
 */
export async function serveDir(dir, { port = 0, host = '127.0.0.1', encodings = ['br', 'gzip'] } = {}) {
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
    const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' };
    let body = file;
    const sibling = SIBLINGS.find(
      ([coding, ext]) => encodings.includes(coding) && accepts(req.headers['accept-encoding'], coding) && existsSync(file + ext),
    );
    if (sibling) {
      body = file + sibling[1];
      headers['content-encoding'] = sibling[0];
    }
    if (SIBLINGS.some(([, ext]) => existsSync(file + ext))) headers.vary = 'accept-encoding';
    headers['content-length'] = statSync(body).size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(body).pipe(res);
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const bound = server.address().port;
  return {
    url: `http://${host}:${bound}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}


if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir = 'dist', port = '8080'] = process.argv.slice(2);
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    console.error(`serve: the port must be 1..=65535, got '${port}'`);
    process.exit(2);
  }
  if (!existsSync(join(dir, 'index.html'))) {
    console.error(`serve: ${dir}/index.html is missing: run scripts/build-web.sh first`);
    process.exit(2);
  }
  const server = await serveDir(dir, { port: n });
  console.log(`serving ${dir}/ on ${server.url} (Ctrl-C stops it)`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
