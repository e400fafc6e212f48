import fs from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { notFound } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { EXTENSION, FILE_NAME, uploadsDir } from '../../platform/uploads/uploads.js';
import { fileByName } from './files.repo.js';

/**
 * GET /files/:name serves uploaded files. No auth: <img> tags cannot send a bearer token, and the
 * names are 144-bit random values nobody can guess. The type is the one sniffed at upload, the
 * browser must not sniff again, and the CSP sandbox keeps anything opened directly inert.
 */
export function filesRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.get('/:name', async (c) => {
    const name = c.req.param('name');
    if (!FILE_NAME.test(name)) throw notFound();
    const file = await fileByName(deps.db.db, name);
    if (!file) throw notFound();
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(path.join(uploadsDir(deps.config.dataDir), name));
    } catch {
      throw notFound();
    }
    const ext = EXTENSION[file.mime_type as keyof typeof EXTENSION] ?? 'bin';
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': file.mime_type,
      'Content-Length': String(bytes.length),
      'Content-Disposition': `inline; filename="${file.kind}.${ext}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'private, max-age=31536000, immutable',
    });
  });

  return app;
}
