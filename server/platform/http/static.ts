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

export const MALFORMED_URL = 'Malformed URL';

/** The precompressed siblings the build writes (scripts/build.mjs), in the order they are preferred. */
const CODINGS = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
] as const;
type Coding = (typeof CODINGS)[number]['coding'];

interface Asset {
  body: Buffer;
  encoded: Partial<Record<Coding, Buffer>>;
  type: string;
  immutable: boolean;
}

/** The content codings an `Accept-Encoding` header accepts (those not refused with `q=0`), lower-cased. */
export function acceptedCodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part
      .toLowerCase()
      .split(';')
      .map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  return accepted;
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
      else if (!CODINGS.some((c) => entry.name.endsWith(c.suffix))) {
        const rel = `/${path.relative(root, full).split(path.sep).join('/')}`;
        const encoded: Asset['encoded'] = {};
        for (const { coding, suffix } of CODINGS) {
          if (fs.existsSync(full + suffix)) encoded[coding] = fs.readFileSync(full + suffix);
        }
        assets.set(rel, {
          body: fs.readFileSync(full),
          encoded,
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

  const send = (asset: Asset, accepted: Set<string>) => {
    const headers: Record<string, string> = {
      'Content-Type': asset.type,
      'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      Vary: 'Accept-Encoding',
    };
    const coding = CODINGS.find((c) => accepted.has(c.coding) && asset.encoded[c.coding])?.coding;
    if (coding) headers['Content-Encoding'] = coding;
    return new Response(new Uint8Array(coding ? (asset.encoded[coding] as Buffer) : asset.body), { headers });
  };

  app.get('*', (c) => {
    let p: string;
    try {
      p = decodeURIComponent(c.req.path);
    } catch {
      // a malformed percent escape (`/%`) names no file and no page of the app
      return c.json({ success: false, msg: MALFORMED_URL }, 400);
    }
    const accepted = acceptedCodings(c.req.header('accept-encoding'));
    const page = pages.get(p);
    if (page) return send(page, accepted);
    const asset = assets.get(p);
    if (asset) return send(asset, accepted);
    // a missing hashed asset is a real 404, not the SPA (a stale tab would otherwise parse HTML as JS)
    if (p.startsWith('/assets/')) return c.text('Not found', 404);
    return send(index, accepted);
  });
}
