import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The Content-Security-Policy of the GUI's responses (ADR 0052): scripts, styles, images and
 * API calls from this origin only; no inline script or style, no plugins, no framing. API
 * responses keep the stricter `default-src 'none'` every listener sets.
 */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Path prefixes the GUI never answers: the API and the protocol, auth and relying-party paths
 * keep their own 404 and 405 (JSON error bodies), whatever a browser asks for.
 */
const NOT_GUI = [
  '/api',
  '/auth',
  '/acme',
  '/scep',
  '/scep-mtls',
  '/.well-known',
  '/crl',
  '/ocsp',
  '/health',
  '/ready',
  '/metrics',
];

export type WebAnswer = { kind: 'asset'; path: string } | { kind: 'index' } | { kind: 'none' };

/**
 * What the GUI answers for a GET or HEAD of `path` (no query): a built file under /assets/, the
 * app's index.html for any other path outside the reserved prefixes (client-side routes), or
 * nothing (the request goes on to the 405 check and the JSON 404).
 */
export function webAnswerFor(method: string, path: string): WebAnswer {
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'none' };
  const lower = path.toLowerCase();
  if (NOT_GUI.some((prefix) => lower === prefix || lower.startsWith(prefix + '/'))) return { kind: 'none' };
  if (lower.startsWith('/assets/')) return { kind: 'asset', path };
  return { kind: 'index' };
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
};

export interface WebFile {
  body: Buffer;
  contentType: string;
}

export interface WebBuild {
  index: WebFile;
  /** By URL path (`/assets/index-3f2a1b.js`): only files that exist, so no path reaches the disk. */
  assets: ReadonlyMap<string, WebFile>;
}

/** dist/web, found upwards from `from` as build-info.json is (a checkout, an image, the tests). */
export function findWebRoot(from: string = __dirname): string | undefined {
  let dir = from;
  for (;;) {
    for (const candidate of [join(dir, 'web'), join(dir, 'dist', 'web')]) {
      if (existsSync(join(candidate, 'index.html'))) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The built GUI read into memory (a few hundred kB), or undefined when it was not built. */
export function loadWebBuild(root: string | undefined = findWebRoot()): WebBuild | undefined {
  if (!root) return undefined;
  const assets = new Map<string, WebFile>();
  const assetDir = join(root, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const extension = name.slice(name.lastIndexOf('.'));
      assets.set(`/assets/${name}`, {
        body: readFileSync(join(assetDir, name)),
        contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      });
    }
  }
  return {
    index: { body: readFileSync(join(root, 'index.html')), contentType: CONTENT_TYPES['.html'] },
    assets,
  };
}
