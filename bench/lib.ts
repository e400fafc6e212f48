/**
 * What the API benchmarks share: an app on a fresh SQLite file with one signed-up company, and the
 * timing of a series of requests (median and p95).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createApp } from '../server/app.js';
import { seedCalls } from '../server/modules/company/workspace.js';
import { type AppDatabase, openDatabase } from '../server/platform/db/index.js';
import { systemClock } from '../server/platform/deps.js';
import { createLogger } from '../server/platform/log/logger.js';
import { defaultProviderUrls } from '../server/voice/providers/registry.js';

export interface BenchApp {
  app: ReturnType<typeof createApp>;
  database: AppDatabase;
  /** Authorization header of the signed-up account */
  headers: Record<string, string>;
  accountId: string;
  companyId: string;
  /** closes the database and removes its directory */
  close(): Promise<void>;
}

/**
 * createApp on a fresh SQLite file in a temporary directory (or, with `postgresUrl`, in a fresh schema of
 * that PostgreSQL database, dropped at the end), with one company signed up through the API.
 */
export async function benchApp(name: string, opts: { postgresUrl?: string | undefined } = {}): Promise<BenchApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-bench-${name}-`));
  const pgSchema = `bench_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  const database = opts.postgresUrl
    ? await openDatabase({ url: opts.postgresUrl, pgSchema, poolSize: 4 })
    : await openDatabase({ sqliteFile: path.join(dir, 'bench.sqlite') });
  const close = async () => {
    if (opts.postgresUrl) await sql`drop schema ${sql.id(pgSchema)} cascade`.execute(database.db);
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const app = createApp({
      db: database,
      clock: systemClock,
      mailer: { send: async () => {} },
      secrets: { jwtKey: randomBytes(32), masterKey: randomBytes(32) },
      config: { dataDir: dir, publicUrl: 'http://bench.local', providerUrls: defaultProviderUrls() },
      logger: createLogger('silent'),
    });
    const form = new FormData();
    form.set('name', 'Bench User');
    form.set('email', `bench-${randomBytes(4).toString('hex')}@example.com`);
    form.set('password', 'bench password 1234');
    const reg = await app.request('/api/v1/account/register', { method: 'POST', body: form });
    const account = (await reg.json()) as { token: string; account: { _id: string; companyId: string } };
    if (reg.status !== 201) throw new Error(`sign-up failed: ${reg.status} ${JSON.stringify(account)}`);
    return {
      app,
      database,
      headers: { Authorization: `Bearer ${account.token}` },
      accountId: account.account._id,
      companyId: account.account.companyId,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** One timed series of a benchmark. */
export interface Measure {
  label: string;
  requests: number;
  median_ms: number;
  p95_ms: number;
  /** rows matching (the total the API answered) */
  total: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Runs `request(i)` for i = requests..requests+warmup-1 untimed (warm-up on other pages than the timed
 * ones), then for i = 0..requests-1 timed; answers median and p95 in ms.
 */
export async function timeRequests(
  request: (i: number) => Promise<unknown>,
  requests: number,
  warmup = 20,
): Promise<{ median_ms: number; p95_ms: number }> {
  for (let i = 0; i < warmup; i++) await request(requests + i);
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const start = performance.now();
    await request(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median_ms: round(quantile(times, 0.5)), p95_ms: round(quantile(times, 0.95)) };
}

export { QUICK } from './results.mjs';

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** p50, p95, p99 and max of a series of milliseconds (rounded to 0.01 ms). */
export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { p50: 0, p95: 0, p99: 0, max: 0 };
  return {
    p50: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

/** Seeds calls with the `npm run seed` code, printing progress every tenth to stderr; answers the time taken (ms). */
export async function seedCallsTimed(
  db: Parameters<typeof seedCalls>[0],
  p: Omit<Parameters<typeof seedCalls>[1], 'onProgress' | 'onRebuild'>,
): Promise<number> {
  let lastTenth = -1;
  const t0 = performance.now();
  await seedCalls(db, {
    ...p,
    onProgress: (done, total) => {
      const tenth = Math.floor((done / total) * 10);
      if (tenth > lastTenth)
        process.stderr.write(`  seeding ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}\n`);
      lastTenth = tenth;
    },
    onRebuild: (n) => process.stderr.write(`  rebuilding ${n} indexes\n`),
  });
  return performance.now() - t0;
}

/** Sends `request` one after another (with `pauseMs` between) until stop(); the latencies in ms. */
export function poller(request: () => Promise<unknown>, pauseMs: number) {
  const times: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const start = performance.now();
      await request();
      times.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    times,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** The percentiles of a poller's latencies, with their count. */
export const latencySummary = (times: number[]) => ({ ...percentiles(times), requests: times.length });
