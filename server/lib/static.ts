import fs from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  immutable: boolean;
}

/**
 * Serves the built SPA from memory: hashed files under /assets/ are immutable, everything else
 * (index.html and the history fallback for every non-API path, landing.html and dashboard.html) is `no-cache`.
 */
export function mountStatic(app: Hono, dir: string): void {
  const root = path.resolve(dir);
  const assets = new Map<string, Asset>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      // build metadata (.vite/manifest.json) and other dotfiles are not part of the site
      if (entry.name.startsWith('.')) continue;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (!entry.name.endsWith('.gz')) {
        const rel = `/${path.relative(root, full).split(path.sep).join('/')}`;
        const gzPath = `${full}.gz`;
        assets.set(rel, {
          body: fs.readFileSync(full),
          gzip: fs.existsSync(gzPath) ? fs.readFileSync(gzPath) : undefined,
          type: TYPES[path.extname(entry.name)] ?? 'application/octet-stream',
          immutable: rel.startsWith('/assets/'),
        });
      }
    }
  };
  walk(root);
  const index = assets.get('/index.html');
  if (!index) throw new Error(`No index.html in ${root}: run npm run build`);
  // pages of their own (scripts/prerender.mjs): the landing page prerendered at build time for `/`, and
  // index.html preloading the Agents page's chunks for `/dashboard`
  const pages = new Map<string, Asset>();
  for (const [file, paths] of [
    ['/landing.html', ['/']],
    ['/dashboard.html', ['/dashboard', '/dashboard/']],
  ] as const) {
    const page = assets.get(file);
    assets.delete(file);
    if (page) for (const p of paths) pages.set(p, page);
  }

  const send = (asset: Asset, acceptGzip: boolean, status = 200) => {
    const headers: Record<string, string> = {
      'Content-Type': asset.type,
      'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      Vary: 'Accept-Encoding',
    };
    if (acceptGzip && asset.gzip) {
      headers['Content-Encoding'] = 'gzip';
      return new Response(new Uint8Array(asset.gzip), { status, headers });
    }
    return new Response(new Uint8Array(asset.body), { status, headers });
  };

  app.get('*', (c) => {
    const p = decodeURIComponent(c.req.path);
    const gz = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    const page = pages.get(p);
    if (page) return send(page, gz);
    const asset = assets.get(p);
    if (asset) return send(asset, gz);
    // a missing hashed asset is a real 404, not the SPA (a stale tab would otherwise parse HTML as JS)
    if (p.startsWith('/assets/')) return c.text('Not found', 404);
    return send(index, gz);
  });
}
