import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { appliedMigrations, migrateToLatest } from '../../../server/platform/db/migrate.js';
import { migrations } from '../../../server/platform/db/migrations/index.js';
import { describeEachDb, freshDatabase } from '../helpers.js';

/**
 * Migration 020 (server/platform/db/migrations/020_job_vocabulary.ts): a knowledge-base job queued before
 * it (`queued`, `run_after`, `last_error`) is a pending job of the leased-job library after it, with its
 * time and error kept; `down` gives the old names back.
 */
describeEachDb('migration 020: the knowledge-base jobs take the job vocabulary', (kind) => {
  it('keeps a job queued before it, as pending with its due time and error; down restores the old names', async () => {
    const db = await freshDatabase(kind, { migrate: false });
    try {
      const before = Object.keys(migrations)
        .sort()
        .filter((name) => name < '020');
      for (const name of before) await migrations[name]?.up(db.db);
      const at = '2026-11-22T10:00:00.000Z';
      await sql`insert into companies (id, name, created_at) values ('co', 'Co', ${at})`.execute(db.db);
      for (const kb of ['kb1', 'kb2'])
        await sql`insert into knowledge_bases (id, company_id, account_id, name, name_lower, status, enable_auto_refresh, sources,
          error_message, chunk_count, user_modified_at, created_at, updated_at)
          values (${kb}, 'co', null, ${kb}, ${kb}, 'pending', 0, '[]', null, 0, ${at}, ${at}, ${at})`.execute(db.db);
      for (const [id, kb, status] of [
        ['j1', 'kb1', 'queued'],
        ['j2', 'kb2', 'done'],
      ] as const)
        await sql`insert into knowledge_base_jobs (id, knowledge_base_id, company_id, status, attempts, run_after, lease_until,
          worker, last_error, created_at, updated_at)
          values (${id}, ${kb}, 'co', ${status}, 1, ${at}, null, null, 'disk busy', ${at}, ${at})`.execute(db.db);

      const m020 = migrations['020_job_vocabulary'];
      if (!m020) throw new Error('migration 020 is missing');
      await m020.up(db.db);
      const after = await db.db.selectFrom('knowledge_base_jobs').selectAll().orderBy('id').execute();
      expect(after.map((j) => [j.id, j.status, j.next_attempt_at, j.error])).toEqual([
        ['j1', 'pending', at, 'disk busy'],
        ['j2', 'done', at, 'disk busy'],
      ]);

      await m020.down?.(db.db);
      const { rows } = await sql<{ status: string; run_after: string; last_error: string }>`select status, run_after, last_error
        from knowledge_base_jobs order by id`.execute(db.db);
      expect(rows.map((r) => [r.status, r.run_after, r.last_error])).toEqual([
        ['queued', at, 'disk busy'],
        ['done', at, 'disk busy'],
      ]);
    } finally {
      await db.close();
    }
  });

  it('is part of the migrations a fresh database runs', async () => {
    const db = await freshDatabase(kind);
    try {
      await migrateToLatest(db.db);
      expect(await appliedMigrations(db.db)).toContain('020_job_vocabulary');
    } finally {
      await db.close();
    }
  });
});
