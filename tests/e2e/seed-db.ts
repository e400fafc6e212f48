/**
 * Call records for an e2e test, which only dialling produces: written into the running server's SQLite
 * file (DATA_DIR/parley.sqlite, see scripts/lib/server.mjs) through the calls repository, the one write
 * path of the calls table and its counts.
 */
import path from 'node:path';
import { inject } from 'vitest';
import { openDatabase } from '../../server/db/index.js';
import { newId } from '../../server/lib/ids.js';
import { insertCalls as storeCalls } from '../../server/routes/call/call.repo.js';
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
