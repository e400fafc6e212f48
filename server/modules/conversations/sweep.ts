/**
 * Conversations nobody will finish: every minute (and at start), on every server (the updates are
 * conditional, so servers sharing a database never end a call twice):
 * - a web call whose browser never opened its socket (still `registered` STALE_REGISTERED_MS after it was
 *   created) is removed: it never started;
 * - a live call whose server stopped beating (`heartbeat_at` older than STALE_HEARTBEAT_MS: that server
 *   died and did not come back) is stored as ended with error_unknown from its last progress, ended at its
 *   last heartbeat (recovery.ts; a server that comes back stores its own calls at once), so Call History
 *   shows it and its company's concurrency count is right;
 * - a chat left alone for IDLE_CHAT_MS is ended for inactivity;
 * - a phone call whose media stream never connected (no status callback ended it either) is stored as
 *   failed after STALE_PHONE_MS: the carrier never reached Parley.
 * Live calls of this server beat every HEARTBEAT_MS.
 */
import type { TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import type { AppDeps } from '../../platform/deps.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import { agentDocOrUndefined } from '../../voice/engine/plan.js';
import { endDeadCall } from './recovery.js';
import { emptyUsage } from './runtime.js';
import { finishCallSession, parseJson } from './session.repo.js';

export const HEARTBEAT_MS = 30_000;
export const STALE_HEARTBEAT_MS = 120_000;
export const STALE_REGISTERED_MS = 5 * 60_000;
export const IDLE_CHAT_MS = 30 * 60_000;
export const STALE_PHONE_MS = 20 * 60_000;
const SWEEP_MS = 60_000;
const BATCH = 100;

export async function sweepCalls(deps: AppDeps): Promise<{ removed: number; ended: number }> {
  const db = deps.db.db;
  const now = deps.clock.now();
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const removed = await db
    .deleteFrom('call_sessions')
    .where('status', '=', 'registered')
    .where('type', '=', 'web')
    .where('created_at', '<', ago(STALE_REGISTERED_MS))
    .executeTakeFirst();
  const stale = await db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'ongoing')
    .where((eb) =>
      eb.or([
        eb.and([eb('type', 'in', ['web', 'inbound', 'outbound']), eb('heartbeat_at', '<', ago(STALE_HEARTBEAT_MS))]),
        eb.and([eb('type', '=', 'chat'), eb('updated_at', '<', ago(IDLE_CHAT_MS))]),
      ]),
    )
    .limit(BATCH)
    .execute();
  const unreached = await db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'registered')
    .where('type', 'in', ['inbound', 'outbound'])
    .where('created_at', '<', ago(STALE_PHONE_MS))
    .limit(BATCH)
    .execute();
  let ended = 0;
  for (const row of unreached) {
    const agent = agentDocOrUndefined(row.agent);
    const done = await finishCallSession(db, row, {
      status: 'error',
      reason: 'error_transport',
      errorMessage: 'The phone line never connected to Parley.',
      transcript: [],
      latency: [],
      usage: emptyUsage(agent),
      cost: 0,
      recording: null,
      endedAt: now,
    });
    if (done) ended++;
  }
  for (const row of stale) {
    if (row.type !== 'chat') {
      // a call whose server died: stored from its last progress, ended at its last heartbeat (recovery.ts)
      if (await endDeadCall(deps, row)) ended++;
      continue;
    }
    const agent = agentDocOrUndefined(row.agent);
    const done = await finishCallSession(db, row, {
      status: 'ended',
      reason: 'inactivity',
      errorMessage: null,
      transcript: parseJson<TranscriptTurn[]>(row.transcript, []),
      latency: parseJson<TurnLatency[]>(row.latency, []),
      usage: { ...emptyUsage(agent), ...parseJson<object>(row.usage, {}) },
      cost: Number(row.cost),
      recording: null,
      endedAt: new Date(Date.parse(row.updated_at)),
    });
    if (done) ended++;
  }
  return { removed: Number(removed.numDeletedRows), ended };
}

/** Beats for this server's live calls and sweeps, until stopped. */
export function startCallSweeper(deps: AppDeps) {
  const beat = async () => {
    const live = [...(callRuntimeOf(deps)?.live.keys() ?? [])];
    if (live.length === 0) return;
    await deps.db.db
      .updateTable('call_sessions')
      .set({ heartbeat_at: deps.clock.now().toISOString() })
      .where('id', 'in', live)
      .where('status', '=', 'ongoing')
      .execute();
  };
  const run = (what: string, job: () => Promise<unknown>) =>
    job().catch((e) => deps.logger.warn(`call ${what} failed`, { reason: e instanceof Error ? e.message : String(e) }));
  void run('sweep', () => sweepCalls(deps));
  const beats = setInterval(() => void run('heartbeat', beat), HEARTBEAT_MS);
  const sweeps = setInterval(() => void run('sweep', () => sweepCalls(deps)), SWEEP_MS);
  beats.unref();
  sweeps.unref();
  return {
    stop: async () => {
      clearInterval(beats);
      clearInterval(sweeps);
    },
  };
}
