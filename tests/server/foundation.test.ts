import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { API_BODY_MAX, createApp, NOT_FOUND_LOGS_PER_MINUTE, NOT_FOUND_PATH_LOGGED } from '../../server/app.js';
import { appliedMigrations, migrateToLatest } from '../../server/platform/db/migrate.js';
import { migrations } from '../../server/platform/db/migrations/index.js';
import type { DB } from '../../server/platform/db/schema.js';
import { LIMITS } from '../../server/platform/http/ratelimit.js';
import { createEventLoopMonitor } from '../../server/platform/log/event-loop.js';
import { defaultProviderUrls } from '../../server/voice/providers/registry.js';
import { buildTestApp, describeEachDb, freshDatabase, LOG_LINES, useTestApp } from './helpers.js';

const json = (res: Response) => res.json() as Promise<Record<string, unknown>>;

/** A database whose every query fails, as a lost connection or a full disk would. */
function brokenDb(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: new SqliteDialect({
      database: async () => {
        throw new Error('disk on fire (secret detail)');
      },
    }),
  });
}

describeEachDb('foundation API', (kind) => {
  const t = useTestApp(kind);

  it('GET /api/v1/health reports the database kind after a real query', async () => {
    const res = await t().req('GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, db: kind });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('GET /api/v1/health reports the event-loop delay of the last minute from the monitor', async () => {
    const histogram = createHistogram();
    for (let i = 0; i < 999; i++) histogram.record(11e6);
    histogram.record(90e6);
    const eventLoop = createEventLoopMonitor({ histogram, now: () => 0, resolutionMs: 10 });
    const app = createApp({ ...t().deps, eventLoop });
    const res = await app.request('/api/v1/health');
    expect(await json(res)).toEqual({ success: true, db: kind, event_loop: { p99_ms: 1, max_ms: 80, window_s: 0 } });
  });

  it('an unknown /api/v1 path answers a JSON 404', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/x'],
      ['POST', '/api/v1/agents/nope/deeper'],
      ['DELETE', '/api/v2/health'],
    ] as const) {
      const res = await t().req(method, url);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = await json(res);
      expect(body.success).toBe(false);
      expect(body.msg).toEqual(expect.any(String));
      expect(String(body.msg).length).toBeGreaterThan(0);
    }
  });

  it('a malformed JSON body answers 400 { success: false, msg }', async () => {
    const res = await t().req('POST', '/api/v1/client/not-found', {
      body: '{"path": "/oops"',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ success: false, msg: expect.any(String) });
  });

  it('a JSON body of the wrong shape answers 400 naming the field', async () => {
    const res = await t().req('POST', '/api/v1/client/not-found', { body: { path: 42 } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.success).toBe(false);
    expect(body.errors).toHaveProperty('path');
  });

  it('every API body over the cap answers 413 before it is read, declared or streamed', async () => {
    const big = `{"path":"${'a'.repeat(API_BODY_MAX)}"}`;
    const declared = await t().req('POST', '/api/v1/client/not-found', {
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(declared.status).toBe(413);
    expect(await json(declared)).toMatchObject({ success: false, msg: expect.any(String) });
    // no Content-Length: the stream is cut at the cap
    const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > API_BODY_MAX * 4) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await t().app.request('/api/v1/client/not-found', {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(API_BODY_MAX * 2);
    // a body under the cap still goes through
    const fine = await t().req('POST', '/api/v1/client/not-found', { body: { path: '/x' } });
    expect(fine.status).toBe(200);
  });

  it('the 404 page report is accepted and logged with its path', async () => {
    LOG_LINES.length = 0;
    const res = await t().req('POST', '/api/v1/client/not-found', { body: { path: '/no-such-page' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    const line = LOG_LINES.map((l) => JSON.parse(l)).find((l) => l.msg === 'client 404');
    expect(line).toMatchObject({ level: 'warn', path: '/no-such-page' });
  });

  it('404 reports are throttled per IP, cut short in the log, and past a budget counted instead of logged', async () => {
    LOG_LINES.length = 0;
    const report = (ip: string, path: string) =>
      t().app.request(
        '/api/v1/client/not-found',
        { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path }) },
        { incoming: { socket: { remoteAddress: ip } } },
      );
    const reports = () => LOG_LINES.map((l) => JSON.parse(l)).filter((l) => l.msg === 'client 404');
    // a long path: the log keeps its first NOT_FOUND_PATH_LOGGED characters and its length
    const long = `/${'x'.repeat(2000)}`;
    expect((await report('192.0.2.50', long)).status).toBe(200);
    expect(reports()[0]).toMatchObject({ path: long.slice(0, NOT_FOUND_PATH_LOGGED), length: long.length });
    expect(LOG_LINES.join('\n')).not.toContain(long.slice(0, NOT_FOUND_PATH_LOGGED + 1));
    // one address: LIMITS.notFoundPerIp.max reports an hour, then 429 and nothing logged
    for (let i = 1; i < LIMITS.notFoundPerIp.max; i++) expect((await report('192.0.2.50', `/p${i}`)).status).toBe(200);
    const over = await report('192.0.2.50', '/one-too-many');
    expect(over.status).toBe(429);
    expect(reports().some((l) => l.path === '/one-too-many')).toBe(false);
    // many addresses: at most NOT_FOUND_LOGS_PER_MINUTE lines a minute, the rest counted
    LOG_LINES.length = 0;
    t().clock.advance(60_000);
    for (let i = 0; i < NOT_FOUND_LOGS_PER_MINUTE + 25; i++) expect((await report(`198.51.100.${i}`, `/m${i}`)).status).toBe(200);
    expect(reports()).toHaveLength(NOT_FOUND_LOGS_PER_MINUTE);
    t().clock.advance(60_000);
    expect((await report('203.0.113.1', '/next-minute')).status).toBe(200);
    const lines = LOG_LINES.map((l) => JSON.parse(l));
    expect(lines.find((l) => l.msg === 'client 404 reports dropped')).toMatchObject({ level: 'warn', dropped: 25 });
    expect(reports().at(-1)).toMatchObject({ path: '/next-minute' });
  });

  it('an unexpected error answers 500 with a generic msg and logs the stack server-side only', async () => {
    LOG_LINES.length = 0;
    const app = createApp({ ...t().deps, db: { kind, db: brokenDb(), close: async () => {} } });
    const res = await app.request('/api/v1/health');
    expect(res.status).toBe(500);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body).toEqual({ success: false, msg: expect.any(String) });
    expect(text).not.toMatch(/disk on fire|at .*\.ts:\d+|stack/i);
    const logged = LOG_LINES.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 'error', path: '/api/v1/health', method: 'GET' });
    expect(logged.stack).toContain('disk on fire');
    expect(logged.stack).toMatch(/\n\s+at /);
  });

  it('an error thrown by any handler is mapped the same way', async () => {
    LOG_LINES.length = 0;
    const app = t().app;
    app.get('/boom', () => {
      throw new TypeError('cannot read properties of undefined');
    });
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body.success).toBe(false);
    expect(JSON.stringify(body)).not.toContain('cannot read');
    expect(LOG_LINES.join('\n')).toContain('cannot read properties of undefined');
  });

  it('every response carries the security headers', async () => {
    for (const url of ['/api/v1/health', '/api/v1/missing']) {
      const res = await t().req('GET', url);
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
      expect(scriptSrc, url).toMatch(/script-src 'self'/);
      expect(scriptSrc).not.toContain('unsafe-inline');
      expect(scriptSrc).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      // the editor's Test call may use the microphone on the app's own pages, nothing else may
      expect(res.headers.get('permissions-policy')).toBe('camera=(), geolocation=(), microphone=(self)');
    }
  });

  it('migrations are idempotent: running them again changes nothing', async () => {
    const { db } = t().deps.db;
    await migrateToLatest(db);
    await migrateToLatest(db);
    expect(await appliedMigrations(db)).toEqual(Object.keys(migrations).sort());
    const companies = await db.selectFrom('companies').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
    expect(Number(companies.n)).toBe(0);
  });
});

describeEachDb('fresh database', (kind) => {
  it('a database migrated by the first release (Kysely Migrator history) keeps its history', async () => {
    const old = await freshDatabase(kind, { migrate: false });
    try {
      const first = migrations['001_companies_accounts'];
      if (!first) throw new Error('migration 001 is missing');
      await first.up(old.db);
      await sql`create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(old.db);
      await sql`insert into kysely_migration (name, timestamp) values ('001_companies_accounts', '2026-11-01T00:00:00.000Z')`.execute(
        old.db,
      );
      // without adopting that history, 001 would run again and fail on its existing tables
      await migrateToLatest(old.db);
      expect(await appliedMigrations(old.db)).toEqual(Object.keys(migrations).sort());
    } finally {
      await old.close();
    }
  });

  it('a second open of a migrated database migrates nothing and keeps the data', async () => {
    const first = await freshDatabase(kind);
    try {
      const now = new Date().toISOString();
      await first.db.insertInto('companies').values({ id: 'c1', name: 'Acme Health', created_at: now }).execute();
      await migrateToLatest(first.db);
      const rows = await first.db.selectFrom('companies').select(['id', 'name']).execute();
      expect(rows).toEqual([{ id: 'c1', name: 'Acme Health' }]);
    } finally {
      await first.close();
    }
  });
});

describeEachDb('static SPA serving', (kind) => {
  const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-static-'));
  const indexHtml = '<!doctype html><html><head><title>Parley</title></head><body><div id="root"></div></body></html>';
  const assetJs = 'console.log("app");\n'.repeat(40);
  fs.mkdirSync(path.join(staticDir, 'assets'));
  fs.writeFileSync(path.join(staticDir, 'index.html'), indexHtml);
  fs.writeFileSync(path.join(staticDir, 'assets/app-abc123.js'), assetJs);
  fs.writeFileSync(path.join(staticDir, 'assets/app-abc123.js.gz'), zlib.gzipSync(assetJs));
  fs.writeFileSync(path.join(staticDir, 'assets/app-abc123.js.br'), zlib.brotliCompressSync(assetJs));
  fs.mkdirSync(path.join(staticDir, '.vite'));
  fs.writeFileSync(path.join(staticDir, '.vite/manifest.json'), '{"index.html":{}}');

  const t = useTestApp(kind, () => ({
    config: {
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'parley-data-')),
      publicUrl: 'http://parley.test',
      staticDir,
      providerUrls: defaultProviderUrls(),
    },
  }));

  it('hashed assets are immutable and served with their type', async () => {
    const res = await t().req('GET', '/assets/app-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/immutable/);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(await res.text()).toBe(assetJs);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('assets are sent brotli-compressed, else gzipped, to clients that accept it, else as they are', async () => {
    const decode: Record<string, (b: Buffer) => Buffer> = {
      br: zlib.brotliDecompressSync,
      gzip: zlib.gunzipSync,
      none: (b) => b,
    };
    for (const [accept, coding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.5', 'gzip'],
      ['BR', 'br'],
      ['br;q=0, gzip; q=0', 'none'],
      ['', 'none'],
      ['identity', 'none'],
    ] as const) {
      const res = await t().req('GET', '/assets/app-abc123.js', { headers: { 'Accept-Encoding': accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-encoding') ?? 'none', accept).toBe(coding);
      expect(res.headers.get('vary'), accept).toBe('Accept-Encoding');
      expect(decode[coding]?.(Buffer.from(await res.arrayBuffer())).toString(), accept).toBe(assetJs);
    }
  });

  it('a file without a compressed sibling is sent as it is whatever the client accepts', async () => {
    const res = await t().req('GET', '/', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(await res.text()).toBe(indexHtml);
  });

  it('index.html and every history-fallback path get no-cache and the index body', async () => {
    for (const url of ['/', '/index.html', '/dashboard/x', '/no-such-page', '/reset-password?token=abc']) {
      const res = await t().req('GET', url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('no-cache');
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(await res.text()).toBe(indexHtml);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('a malformed percent escape in the path answers 400, without a stack in the log', async () => {
    const logged = LOG_LINES.length;
    for (const url of ['/%', '/%E0%A4%A', '/dashboard/%zz', '/assets/%', '/api/v1/agent/%', '/api/v1/%']) {
      const res = await t().req('GET', url);
      // the SPA's paths: 400; the API's: never a 5xx (an unknown route or a missing token answers first)
      if (!url.startsWith('/api/')) expect(res.status, url).toBe(400);
      expect(res.status, url).toBeLessThan(500);
      if (res.status === 400) expect(await json(res), url).toEqual({ success: false, msg: 'Malformed URL' });
    }
    expect(LOG_LINES.slice(logged).filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it('API paths are never answered with the SPA', async () => {
    const res = await t().req('GET', '/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect((await json(res)).success).toBe(false);
  });

  it('build metadata in dot-directories is not served', async () => {
    const res = await t().req('GET', '/.vite/manifest.json');
    expect(await res.text()).toBe(indexHtml);
  });

  it('a missing hashed asset is a real 404, not the index', async () => {
    const res = await t().req('GET', '/assets/x.js');
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('<html');
  });
});

describe('static serving without a build', () => {
  it('refuses to start on a directory without index.html', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-empty-'));
    const t = await buildTestApp('sqlite');
    try {
      expect(() => createApp({ ...t.deps, config: { ...t.deps.config, staticDir: empty } })).toThrow(/index\.html/);
    } finally {
      await t.close();
    }
  });
});
