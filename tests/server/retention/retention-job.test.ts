import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { retentionPass } from '../../../server/modules/company/index.js';
import { type AppDatabase, type DbKind, openDatabase } from '../../../server/platform/db/index.js';
import { signUp } from '../auth-helpers.js';
import { buildTestApp, describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { holdsPii, seedCallWithContent, traces } from './seed-content.js';

const DAY = 86_400_000;

async function setRetention(t: TestApp, token: string, days: number | null) {
  const res = await t.req('PUT', '/api/v1/company/settings', { token, body: { retention_days: days } });
  expect(res.status).toBe(200);
}

const daysAgo = (t: TestApp, days: number) => new Date(t.clock.now().getTime() - days * DAY);
const deletedAt = async (t: TestApp, id: string) =>
  (await t.deps.db.db.selectFrom('calls').select('content_deleted_at').where('id', '=', id).executeTakeFirstOrThrow())
    .content_deleted_at;

describeEachDb('retention job', (kind) => {
  const t = useTestApp(kind);

  it("removes the content of calls past the company's retention and nothing younger, once", async () => {
    const a = await signUp(t());
    const keep = await signUp(t());
    await setRetention(t(), a.token, 30);
    const old = [
      await seedCallWithContent(t(), a.companyId, daysAgo(t(), 31)),
      await seedCallWithContent(t(), a.companyId, daysAgo(t(), 400)),
    ];
    const young = [
      await seedCallWithContent(t(), a.companyId, daysAgo(t(), 29)),
      await seedCallWithContent(t(), a.companyId, daysAgo(t(), 0)),
    ];
    const live = await seedCallWithContent(t(), a.companyId, daysAgo(t(), 40), 'ongoing');
    const kept = await seedCallWithContent(t(), keep.companyId, daysAgo(t(), 1000));

    expect(await retentionPass(t().deps)).toEqual({ companies: 1, removed: 2, skipped: 0 });
    for (const id of old) {
      expect(holdsPii(await traces(t(), a.companyId, id)), id).toBe(false);
      expect(await deletedAt(t(), id)).toBe(t().clock.now().toISOString());
    }
    for (const id of [...young, live]) expect(holdsPii(await traces(t(), a.companyId, id)), id).toBe(true);
    expect(holdsPii(await traces(t(), keep.companyId, kept))).toBe(true);
    // the rows and their metadata stay
    expect(await t().deps.db.db.selectFrom('calls').select('id').where('company_id', '=', a.companyId).execute()).toHaveLength(5);

    // again: nothing more
    t().clock.advance(60_000);
    expect(await retentionPass(t().deps)).toEqual({ companies: 1, removed: 0, skipped: 0 });
    for (const id of old) expect(await deletedAt(t(), id)).toBe(new Date(t().clock.now().getTime() - 60_000).toISOString());
    const log = await t().req('GET', '/api/v1/audit-log?action=call.content_deleted', { token: a.token });
    const entries = ((await log.json()) as { data: { entries: { actor: string; target: string }[] } }).data.entries;
    expect(entries).toEqual([
      expect.objectContaining({ actor: 'system (retention)', target: '2 calls older than 30 days (retention)' }),
    ]);
  });

  it('a pass stopped mid-way, or a server that died holding the lease, is finished by a later pass', async () => {
    const a = await signUp(t());
    await setRetention(t(), a.token, 7);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await seedCallWithContent(t(), a.companyId, daysAgo(t(), 10 + i)));
    const removed = async () => {
      let n = 0;
      for (const id of ids) if ((await deletedAt(t(), id)) !== null) n++;
      return n;
    };
    // stopped after its first batch of 2 (the process ends there: its lease is left behind)
    const dead = retentionPass(t().deps, {
      worker: 'dead',
      batch: 2,
      afterBatch: () => {
        throw new Error('killed');
      },
    });
    await expect(dead).rejects.toThrow('killed');
    expect(await removed()).toBe(2);
    await t()
      .deps.db.db.updateTable('company_settings')
      .set({
        retention_status: 'running',
        retention_worker: 'dead',
        retention_lease_until: new Date(t().clock.now().getTime() + 300_000).toISOString(),
      })
      .where('company_id', '=', a.companyId)
      .execute();
    // a recording removed by a server that stopped before its transaction: the rows still hold the content
    fs.rmSync(path.join(t().deps.config.dataDir, 'recordings', a.companyId, `${ids[0]}.wav`));

    // while the dead server's lease runs, its company is left alone
    expect(await retentionPass(t().deps, { worker: 'b' })).toEqual({ companies: 0, removed: 0, skipped: 1 });
    expect(await removed()).toBe(2);
    // once it ran out, another server takes over and finishes
    t().clock.advance(300_001);
    expect(await retentionPass(t().deps, { worker: 'b', batch: 2 })).toEqual({ companies: 1, removed: 3, skipped: 0 });
    expect(await removed()).toBe(5);
    for (const id of ids) expect(holdsPii(await traces(t(), a.companyId, id))).toBe(false);
    const lease = await t()
      .deps.db.db.selectFrom('company_settings')
      .select(['retention_status', 'retention_worker'])
      .where('company_id', '=', a.companyId)
      .executeTakeFirstOrThrow();
    expect(lease).toEqual({ retention_status: 'idle', retention_worker: null });
  });
});

/** A database two apps open (a SQLite file, or one PostgreSQL schema). */
function sharedDatabase(kind: DbKind) {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-retention-')), 'shared.sqlite');
  const opened: AppDatabase[] = [];
  return {
    async open() {
      const db =
        kind === 'postgres'
          ? await openDatabase({ url: process.env.TEST_DATABASE_URL as string, pgSchema: schema, poolSize: 5 })
          : await openDatabase({ sqliteFile: file });
      opened.push(db);
      return db;
    },
    async dispose() {
      for (const db of opened.splice(0)) await db.close().catch(() => {});
      if (kind !== 'postgres') return;
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

describeEachDb('retention job on two servers', (kind) => {
  let shared: ReturnType<typeof sharedDatabase> | undefined;
  afterEach(async () => {
    await shared?.dispose();
  });

  it('two servers sharing one database remove each call once', async () => {
    shared = sharedDatabase(kind);
    const secrets = { jwtKey: randomBytes(32), masterKey: randomBytes(32) };
    const a = await buildTestApp(kind, { db: await shared.open(), secrets });
    const b = await buildTestApp(kind, { db: await shared.open(), secrets });
    b.deps.config.dataDir = a.deps.config.dataDir;
    const companies = [await signUp(a), await signUp(a), await signUp(a)];
    const ids: string[] = [];
    for (const c of companies) {
      await setRetention(a, c.token, 30);
      for (let i = 0; i < 12; i++) ids.push(await seedCallWithContent(a, c.companyId, daysAgo(a, 31 + i)));
    }
    const passes = await Promise.all([
      retentionPass(a.deps, { worker: 'a', batch: 5 }),
      retentionPass(b.deps, { worker: 'b', batch: 5 }),
      retentionPass(a.deps, { worker: 'a2', batch: 5 }),
      retentionPass(b.deps, { worker: 'b2', batch: 5 }),
    ]);
    // every call removed, by exactly one of them
    expect(passes.reduce((n, p) => n + p.removed, 0)).toBe(36);
    for (const c of companies) {
      const rows = await a.deps.db.db
        .selectFrom('calls')
        .select('content_deleted_at')
        .where('company_id', '=', c.companyId)
        .execute();
      expect(rows.every((r) => r.content_deleted_at !== null)).toBe(true);
      const audit = await a.deps.db.db
        .selectFrom('audit_log')
        .select('target')
        .where('company_id', '=', c.companyId)
        .where('action', '=', 'call.content_deleted')
        .execute();
      // one server took the company: its one entry counts all twelve
      expect(audit.map((e) => e.target)).toEqual(['12 calls older than 30 days (retention)']);
    }
    for (const id of ids.slice(0, 3)) expect(holdsPii(await traces(a, companies[0]?.companyId as string, id))).toBe(false);
  });
});
