// The strict Content-Security-Policy the site must work under, with the hash of
// any inline script (there is none today), computed from dist/index.html.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** 'sha256-…' sources for every inline <script> in dist/index.html. */
export function inlineScriptHashes(html = readFileSync('dist/index.html', 'utf8')) {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
}

/** default-src 'self'; script-src 'self' 'wasm-unsafe-eval' + inline hashes; nothing else. */
export function strictPolicy() {
  return `default-src 'self'; script-src 'self' 'wasm-unsafe-eval' ${inlineScriptHashes().join(' ')}; object-src 'none'; base-uri 'none'; frame-ancestors 'self'`;
}
