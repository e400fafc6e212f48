/**
 * Real Parley server processes for the process-level tests (crash safety, batch dialling across a kill and
 * across two servers): server/main.ts as `npm start` runs it, its own DATA_DIR and PostgreSQL schema, a
 * SIGKILL or a clean stop, and the API spoken over HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, expect } from 'vitest';
import { MIGRATION_LOCK_KEY } from '../../server/platform/db/migrate.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Server {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

const running = new Set<ChildProcess>();
/** Every server a test started is killed after it (a test that failed half-way leaves none behind). */
export function killServersAfterEach() {
  afterEach(() => {
    for (const p of running) p.kill('SIGKILL');
    running.clear();
  });
}

/** Starts server/main.ts in its own Node process (tsx as a loader: one process, so SIGKILL kills the server). */
export async function startServer(env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /running at (http:\/\/localhost:\d+)/.exec(output);
      if (m?.[1]) resolve(m[1].replace('localhost', '127.0.0.1'));
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited (${code}) before it listened:\n${output}`)));
  });
  return { proc, url, output: () => output };
}

export function killed(proc: ChildProcess): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.signalCode);
    proc.once('exit', (_code, signal) => resolve(signal));
    proc.kill('SIGKILL');
  });
}

/** Stops a server cleanly (SIGTERM: it closes the database). */
export function stopped(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/** A port nobody listens on right now (for a server that must know its own address: PUBLIC_URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
export type Body = any;

export async function call(base: string, method: string, url: string, token: string | null, body?: unknown, key?: string) {
  const headers: Record<string, string> = key ? { 'Idempotency-Key': key } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(`${base}/api/v1${url}`, { method, headers, body: payload });
  return { status: res.status, body: (await res.json()) as Body, replayed: res.headers.get('Idempotent-Replayed') };
}

/** A new account (and company) on the server: its access token. */
export async function register(base: string): Promise<string> {
  const form = new FormData();
  form.set('name', 'Crash Tester');
  form.set('email', `crash-${randomBytes(4).toString('hex')}@example.com`);
  form.set('password', 'correct horse battery staple');
  const res = await call(base, 'POST', '/account/register', null, form);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

/** A PostgreSQL schema of its own for the server (DATABASE_URL with a search_path), dropped afterwards. */
export async function pgSchema(): Promise<{ url: string; tables: () => Promise<number>; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL as string;
  const schema = `crash_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    tables: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        const r = await c.query('select count(*)::int as n from information_schema.tables where table_schema = $1', [schema]);
        return r.rows[0].n as number;
      } finally {
        await c.end();
      }
    },
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh DATA_DIR (and PostgreSQL schema) for a server, and its environment. */
export async function serverPlace(kind: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-crash-'));
  const database = kind === 'postgres' ? await pgSchema() : null;
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: 'off',
    LOG_LEVEL: 'error',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  /**
   * SQL on the server's database from the test ($1, $2 … placeholders; on SQLite the file is opened for
   * the one statement).
   */
  const query = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    if (database) {
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      try {
        return (await c.query(text, params)).rows as T[];
      } finally {
        await c.end();
      }
    }
    const file = new Database(path.join(dataDir, 'parley.sqlite'));
    try {
      // $1, $2 ... as SQLite's ?
      const stmt = file.prepare(text.replace(/\$\d+/g, '?'));
      if (stmt.reader) return stmt.all(...params) as T[];
      stmt.run(...params);
      return [];
    } finally {
      file.close();
    }
  };
  const remove = async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { dataDir, database, env, query, remove };
}
