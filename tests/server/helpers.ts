import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe } from 'vitest';
import { createApp } from '../../server/app.js';
import { type BaseDeps, composeDeps } from '../../server/compose.js';
import { createCallRuntime } from '../../server/modules/conversations/runtime.js';
import { type AppDatabase, type DbKind, openDatabase } from '../../server/platform/db/index.js';
import { MIGRATION_LOCK_KEY } from '../../server/platform/db/migrate.js';
import type { DB } from '../../server/platform/db/schema.js';
import type { AppDeps, Clock, Mailer, MailMessage } from '../../server/platform/deps.js';
import type { AppEnv } from '../../server/platform/http/types.js';
import { createLogger } from '../../server/platform/log/logger.js';
import { createProviderRegistry, defaultProviderUrls } from '../../server/voice/providers/registry.js';
import { toolUrlsOf } from '../../server/voice/tools/tool-urls.js';

/**
 * Where a test app sends provider and carrier requests unless the test points them at its fakes: a local port
 * where nothing listens. Connect tries every key with its provider (server/modules/providers/key-check.ts), so
 * without this a test's made-up keys would go to the real APIs whenever the machine has internet access (and
 * be refused there); here the provider is unreachable and the card is saved with a warning.
 */
export const OFFLINE_URL = 'http://127.0.0.1:9';
const offlineProviderUrls = (): Record<string, string> =>
  Object.fromEntries(
    [...Object.keys(defaultProviderUrls()), ...Object.keys(toolUrlsOf()), 'smallest'].map((id) => [id, OFFLINE_URL]),
  );

/** The database kinds this run covers: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** A clock tests can move. */
export class FakeClock implements Clock {
  constructor(public current = new Date('2026-11-22T10:00:00.000Z')) {}
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** A mailer that keeps what it was asked to send. */
export class MemoryMailer implements Mailer {
  sent: MailMessage[] = [];
  async send(m: MailMessage) {
    this.sent.push(m);
  }
}

/** Every line the app logged during the test (tests check secrets never appear). */
export const LOG_LINES: string[] = [];

const openSchemas: { url: string; schema: string }[] = [];

/** A fresh, migrated database: a temp SQLite file, or a fresh PostgreSQL schema. */
export async function freshDatabase(kind: DbKind, options: { migrate?: boolean } = {}): Promise<AppDatabase> {
  if (kind === 'postgres') {
    const url = process.env.TEST_DATABASE_URL as string;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    openSchemas.push({ url, schema });
    return openDatabase({ url, pgSchema: schema, poolSize: 5, ...options });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  return openDatabase({ sqliteFile: path.join(dir, 'test.sqlite'), ...options });
}

export interface TestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  clock: FakeClock;
  mailer: MemoryMailer;
  dataDir: string;
  /** real HTTP-shaped request through app.request */
  req(
    method: string,
    url: string,
    init?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function buildTestApp(kind: DbKind, overrides: Partial<BaseDeps> = {}): Promise<TestApp> {
  const db = await freshDatabase(kind);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-data-'));
  const clock = new FakeClock();
  const mailer = new MemoryMailer();
  const deps: AppDeps = composeDeps({
    db,
    clock,
    mailer,
    secrets: { jwtKey: randomBytes(32), masterKey: randomBytes(32) },
    config: {
      dataDir,
      publicUrl: 'http://parley.test',
      providerUrls: offlineProviderUrls(),
      telephonyUrls: { twilio: OFFLINE_URL, plivo: OFFLINE_URL },
    },
    logger: createLogger('debug', (line) => LOG_LINES.push(line)),
    // the call engine with the real adapters: a test that starts a call points them at its fakes
    calls: createCallRuntime(createProviderRegistry()),
    ...overrides,
  });
  const app = createApp(deps);
  const req: TestApp['req'] = (method, url, init = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    let body: BodyInit | undefined;
    if (init.body instanceof FormData || typeof init.body === 'string') body = init.body as BodyInit;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['Content-Type'] = 'application/json';
    }
    return Promise.resolve(app.request(url, { method, headers, body }, { incoming: { socket: { remoteAddress: '127.0.0.1' } } }));
  };
  return { app, deps, clock, mailer, dataDir, req, close: () => db.close() };
}

/** The number of rows of `table` in the test app's database. */
export async function countRows(t: TestApp, table: keyof DB): Promise<number> {
  const row = await t.deps.db.db
    .selectFrom(table)
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runs the same suite once per database kind. */
export function describeEachDb(name: string, fn: (kind: DbKind) => void) {
  for (const kind of DB_KINDS) describe(`${name} [${kind}]`, () => fn(kind));
}

/** Registers hooks that build a fresh app (and database) before each test; call the result inside a test. */
export function useTestApp(kind: DbKind, overrides: () => Partial<BaseDeps> = () => ({})): () => TestApp {
  let current: TestApp | undefined;
  beforeEach(async () => {
    current = await buildTestApp(kind, overrides());
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('useTestApp: no app outside a test');
    return current;
  };
}

afterAll(async () => {
  // drop the PostgreSQL schemas this file created
  const byUrl = new Map<string, string[]>();
  for (const s of openSchemas.splice(0)) byUrl.set(s.url, [...(byUrl.get(s.url) ?? []), s.schema]);
  for (const [url, schemas] of byUrl) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // the lock migrations hold: never drop a schema while another file's migration reads the catalogue
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    } finally {
      await client.end();
    }
  }
});
