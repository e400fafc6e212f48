/**
 * Rows an e2e test writes straight into the running server's SQLite file (DATA_DIR/parley.sqlite, see
 * scripts/lib/server.mjs): call records, which only dialling produces, and phone numbers.
 *
 * TODO(numbers API): phone numbers belong to the numbers API (`POST /number/create`), being built on
 * another branch; once it is merged, create the test's number through it instead of this insert.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { inject } from 'vitest';
import { newId } from '../../server/lib/ids.js';

function withDb<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(path.join(inject('dataDir'), 'parley.sqlite'));
  db.pragma('busy_timeout = 5000');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Assigns a number of the pool to `companyId`. */
export function insertAssignedNumber(companyId: string, phone: string, provider = 'twilio'): string {
  const id = newId();
  const now = new Date().toISOString();
  withDb((db) =>
    db
      .prepare(
        `insert into phone_numbers (id, company_id, phone_number, provider, phone_number_type, phone_number_pretty,
           assigned_at, created_at, updated_at) values (?, ?, ?, ?, 'local', ?, ?, ?, ?)`,
      )
      .run(id, companyId, phone, provider, phone, now, now, now),
  );
  return id;
}

export interface E2eCall {
  time: Date;
  duration: number;
  cost: number;
  agentId?: string | null;
}

export function insertCalls(companyId: string, calls: E2eCall[]): void {
  withDb((db) => {
    const insert = db.prepare(
      `insert into calls (id, company_id, agent_id, time, from_number, to_number, duration, type, cost,
         disconnection_reason, status, call_successful) values (?, ?, ?, ?, '+14155550100', '+14155550199', ?, 'outbound', ?,
         'user_hangup', 'ended', 1)`,
    );
    db.transaction(() => {
      for (const c of calls) insert.run(newId(), companyId, c.agentId ?? null, c.time.toISOString(), c.duration, c.cost);
    })();
  });
}
