// A small static file server for dist/, mounted under a sub-path (default /course/handwave/),
// to prove the build works away from the host's root. Optional Content-Security-Policy.
// Usage: node scripts/serve-static.mjs [--port 8081] [--prefix /course/handwave/] [--csp "..."]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.json': 'application/json',
};

/** Starts the server; resolves to { server, port, url } where url ends with the prefix. */
export async function serveDist({ root = process.env.DIST ?? 'dist', prefix = '/course/handwave/', port = 0, csp = null } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (!path.startsWith(prefix)) { res.writeHead(404); res.end('not under ' + prefix); return; }
      let file = normalize(join(base, path.slice(prefix.length)));
      if (!file.startsWith(base)) { res.writeHead(403); res.end(); return; }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      // page-<hash>/ (the page's wasm modules and their JS, scripts/page-wasm.sh) is named by
      // its contents, so a host may keep it for good, as this one does; everything else is
      // fetched anew every time.
      const immutable = /\/page-[0-9a-f]{16}\//.test(path);
      const headers = {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
      };
      if (csp) headers['content-security-policy'] = csp;
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404); res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const actual = server.address().port;
  return { server, port: actual, url: `http://127.0.0.1:${actual}${prefix}` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
  const { url } = await serveDist({ port: Number(arg('--port', 8081)), prefix: arg('--prefix', '/course/handwave/'), csp: arg('--csp', null) });
  console.log(`serving dist/ at ${url}`);
}
