import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { newId } from '../../server/platform/crypto/ids.js';
import { CompanyGoneError, withCompanyLock } from '../../server/platform/db/company-lock.js';
import { describeEachDb, freshDatabase } from './helpers.js';

/**
 * withCompanyLock (server/platform/db/company-lock.ts): one serialised step per company on both databases, the
 * primitive the spend limit (and next the concurrency limit) commits through.
 */

const require = createRequire(import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function companyIn(db: Awaited<ReturnType<typeof freshDatabase>>) {
  const id = newId();
  await db.db.insertInto('companies').values({ id, name: 'Lock Co', created_at: new Date().toISOString() }).execute();
  return id;
}

describeEachDb('withCompanyLock', (kind) => {
  it('runs the steps of one company one after the other, and throws CompanyGoneError for a missing company', async () => {
    const db = await freshDatabase(kind);
    try {
      const id = await companyIn(db);
      const events: string[] = [];
      const step = (name: string) =>
        withCompanyLock(db.db, id, async (trx) => {
          events.push(`${name} in`);
          await trx.selectFrom('companies').select('id').where('id', '=', id).execute();
          await sleep(50);
          events.push(`${name} out`);
        });
      await Promise.all([step('a'), step('b'), step('c')]);
      // never two inside at once: every "in" is followed by its own "out"
      for (let i = 0; i < events.length; i += 2) expect(events[i + 1]?.replace(' out', '')).toBe(events[i]?.replace(' in', ''));
      await expect(withCompanyLock(db.db, newId(), async () => 'ran')).rejects.toBeInstanceOf(CompanyGoneError);
      // a throw inside rolls the step back
      await expect(
        withCompanyLock(db.db, id, async (trx) => {
          await trx.updateTable('companies').set({ name: 'Changed' }).where('id', '=', id).execute();
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect((await db.db.selectFrom('companies').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name).toBe(
        'Lock Co',
      );
    } finally {
      await db.close();
    }
  });
});

it('on SQLite, a step that reads then writes waits for a writer of another process instead of failing (BEGIN IMMEDIATE)', async () => {
  const db = await freshDatabase('sqlite');
  const file = await fileOf(db);
  try {
    const id = await companyIn(db);
    // another connection to the same file in another thread: it writes once told to
    const other = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.driver);
       const conn = new Database(workerData.file);
       conn.pragma('busy_timeout = 5000');
       parentPort.on('message', () => {
         parentPort.postMessage('writing');
         conn.prepare("update companies set name = 'Other' where id = ?").run(workerData.id);
         parentPort.postMessage('written');
         conn.close();
         parentPort.close();
       });`,
      { eval: true, workerData: { file, id, driver: require.resolve('better-sqlite3') } },
    );
    const exited = once(other, 'exit');
    const messages: string[] = [];
    other.on('message', (m: string) => messages.push(m));
    other.on('error', (e) => messages.push(`error: ${e.message}`));
    await withCompanyLock(db.db, id, async (trx) => {
      await trx.selectFrom('companies').select('name').where('id', '=', id).executeTakeFirstOrThrow();
      other.postMessage('go');
      // the other connection tries to write while this step is open (a DEFERRED step would let it commit
      // now and then fail its own write with SQLITE_BUSY)
      while (!messages.includes('writing')) {
        if (messages.some((m) => m.startsWith('error'))) throw new Error(messages.join('\n'));
        await sleep(5);
      }
      await sleep(200);
      await trx.updateTable('companies').set({ name: 'Mine' }).where('id', '=', id).execute();
    });
    await exited;
    expect(messages).toEqual(['writing', 'written']);
    // the other write waited for this step and came after it
    expect((await db.db.selectFrom('companies').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name).toBe(
      'Other',
    );
  } finally {
    await db.close();
  }
});

async function fileOf(db: Awaited<ReturnType<typeof freshDatabase>>): Promise<string> {
  const { sql } = await import('kysely');
  const rows = (await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db.db)).rows;
  return rows[0]?.file ?? '';
}
