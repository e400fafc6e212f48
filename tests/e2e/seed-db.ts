/**
 * Call records for an e2e test, which only dialling produces: written into the running server's SQLite
 * file (DATA_DIR/parley.sqlite, see scripts/lib/server.mjs) through the calls repository, the one write
 * path of the calls table and its counts.
 */
import path from 'node:path';
import { inject } from 'vitest';
import { insertCalls as storeCalls } from '../../server/modules/calls/call.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { openDatabase } from '../../server/platform/db/index.js';
import type { CallStatus } from '../../src/api/contract/call-values.js';

export interface E2eCall {
  time: Date;
  duration: number;
  cost: number;
  agentId?: string | null;
  /** an inbound call from this caller to the line (default: an outbound call from the line) */
  caller?: string;
  status?: CallStatus;
  disconnectionReason?: string;
  successful?: boolean;
  /** the call's median response latency (ms) */
  latencyMs?: number;
}

const openServerDb = () => openDatabase({ sqliteFile: path.join(inject('dataDir'), 'parley.sqlite'), migrate: false });

/** Stores the calls; answers their ids, in order. */
export async function insertCalls(companyId: string, line: string, calls: E2eCall[]): Promise<string[]> {
  const database = await openServerDb();
  const ids = calls.map(() => newId());
  try {
    await storeCalls(
      database.db,
      calls.map((c, i) => ({
        id: ids[i] as string,
        company_id: companyId,
        agent_id: c.agentId ?? null,
        time: c.time.toISOString(),
        from_number: c.caller ?? line,
        to_number: c.caller ? line : '+14155550199',
        phone_number: line,
        duration: c.duration,
        type: c.caller ? 'inbound' : 'outbound',
        cost: c.cost,
        disconnection_reason: c.disconnectionReason ?? 'user_hangup',
        status: c.status ?? 'ended',
        call_successful: (c.successful ?? true) ? 1 : 0,
        latency_ms: c.latencyMs ?? null,
      })),
    );
  } finally {
    await database.close();
  }
  return ids;
}

/** The post-call analysis of a call as the analysis worker leaves it: done with its result, or failed. */
export async function insertAnalysis(
  companyId: string,
  callId: string,
  a: { status: 'done'; result: Record<string, unknown> } | { status: 'failed'; error: string },
): Promise<void> {
  const database = await openServerDb();
  const now = new Date().toISOString();
  try {
    await database.db
      .insertInto('call_analyses')
      .values({
        call_id: callId,
        company_id: companyId,
        status: a.status,
        attempts: 1,
        next_attempt_at: now,
        lease_until: null,
        worker: null,
        result: a.status === 'done' ? JSON.stringify(a.result) : null,
        error: a.status === 'failed' ? a.error : null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  } finally {
    await database.close();
  }
}

/** What the dispatcher would have made of a batch's recipients: their states, attempts and calls. */
export interface E2eRecipientOutcome {
  state: string;
  attempts: number;
  /** the call of a recipient dialled; with `ended`, its Call History row too */
  callId?: string;
  ended?: { duration: number; status: CallStatus; disconnectionReason: string };
}

/**
 * Moves a batch's recipients (in row order) to `outcomes` and the batch to `status`. A queued recipient
 * is held back (its next attempt a year away) and a calling one has a call the carrier never reports, so the
 * running server's dispatcher leaves the batch as seeded.
 */
export async function seedBatchOutcomes(
  companyId: string,
  batchId: string,
  line: string,
  status: string,
  outcomes: E2eRecipientOutcome[],
): Promise<void> {
  const database = await openDatabase({ sqliteFile: path.join(inject('dataDir'), 'parley.sqlite'), migrate: false });
  const db = database.db;
  try {
    const rows = await db
      .selectFrom('batch_recipients')
      .select(['upload_id', 'row_number', 'phone_number'])
      .where('batch_id', '=', batchId)
      .where('company_id', '=', companyId)
      .orderBy('row_number')
      .execute();
    const later = new Date(Date.now() + 365 * 86_400_000).toISOString();
    for (const [i, r] of rows.entries()) {
      const o = outcomes[i];
      if (!o) continue;
      await db
        .updateTable('batch_recipients')
        .set({
          state: o.state,
          attempts: o.attempts,
          call_id: o.callId ?? null,
          next_attempt_at: o.state === 'queued' ? later : null,
        })
        .where('upload_id', '=', r.upload_id)
        .where('row_number', '=', r.row_number)
        .execute();
      if (o.callId && o.ended)
        await storeCalls(db, [
          {
            id: o.callId,
            company_id: companyId,
            agent_id: null,
            time: new Date().toISOString(),
            from_number: line,
            to_number: r.phone_number,
            phone_number: line,
            duration: o.ended.duration,
            type: 'outbound',
            cost: 0.02,
            disconnection_reason: o.ended.disconnectionReason,
            status: o.ended.status,
            call_successful: o.state === 'completed' ? 1 : 0,
          },
        ]);
    }
    // the dispatcher counts each recipient's first claim
    const sent = outcomes.slice(0, rows.length).filter((o) => o.state !== 'queued' || o.attempts > 0).length;
    await db
      .updateTable('batch_calls')
      .set({ status, sent_count: sent })
      .where('id', '=', batchId)
      .where('company_id', '=', companyId)
      .execute();
  } finally {
    await database.close();
  }
}
