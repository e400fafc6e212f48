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
import type { AppDeps } from '../../platform/deps.js';
import { definePeriodicJob } from '../../platform/jobs/periodic.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import { agentDocOrUndefined } from '../../voice/engine/plan.js';
import { endDeadCall } from './recovery.js';
import { emptyUsage, finishChat } from './runtime.js';
import { finishCallSession } from './session.repo.js';
import { beatLiveCalls, removeUnopenedWebCalls, staleLiveCalls, unreachedPhoneCalls } from './sweep.repo.js';

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
  const removed = await removeUnopenedWebCalls(db, ago(STALE_REGISTERED_MS));
  const stale = await staleLiveCalls(db, { heartbeatBefore: ago(STALE_HEARTBEAT_MS), idleBefore: ago(IDLE_CHAT_MS) }, BATCH);
  const unreached = await unreachedPhoneCalls(db, ago(STALE_PHONE_MS), BATCH);
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
    // a chat left alone: ended at its last turn
    const done = await finishChat(deps, row, 'inactivity', new Date(Date.parse(row.updated_at)));
    if (done) ended++;
  }
  return { removed, ended };
}

/** Beats for this server's live calls and sweeps, until stopped (periodic jobs: server/platform/jobs/periodic.ts). */
export function startCallSweeper(deps: AppDeps): { stop(): Promise<void> } {
  const beats = definePeriodicJob(deps, {
    name: 'call heartbeat',
    everyMs: HEARTBEAT_MS,
    atStart: false,
    failureLevel: 'warn',
    run: async () => {
      const live = [...(callRuntimeOf(deps)?.live.keys() ?? [])];
      if (live.length > 0) await beatLiveCalls(deps.db.db, live, deps.clock.now().toISOString());
      return { live: live.length };
    },
  });
  const sweeps = definePeriodicJob(deps, {
    name: 'call sweep',
    everyMs: SWEEP_MS,
    failureLevel: 'warn',
    run: () => sweepCalls(deps),
  });
  beats.start();
  sweeps.start();
  return {
    stop: async () => {
      await Promise.all([beats.stop(), sweeps.stop()]);
    },
  };
}
