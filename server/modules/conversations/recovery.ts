/**
 * Calls a dead server left behind (docs/call-runtime.md, "When things go wrong"). A live call saves its
 * progress after each turn (transcript, latency, usage, cost, heartbeat: store.ts saveProgress) and beats
 * every 30 s; its recording is written to disk as it goes. When its server dies (a crash, SIGKILL, a lost
 * machine) the call is stored from what it saved:
 * - at once when that server starts again: a server keeps its id across restarts (`serverIdOf`, a file in
 *   DATA_DIR), so the calls still `ongoing` under its id are calls its previous process died with;
 * - by any server's sweeper (sweep.ts) once the call's heartbeat is stale (a server that does not come back).
 * The call ends at its last heartbeat (its duration is what was known alive, not the time of the recovery),
 * with the usage and cost of its last progress, and its recording repaired (the WAV header is only
 * finalised on close) and kept when this server has it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { repairWav } from '../../voice/audio/wav.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import { agentDocOrUndefined } from '../../voice/engine/plan.js';
import { recordingsDir } from '../calls/index.js';
import { announceCall } from './call-events.js';
import { emptyUsage } from './runtime.js';
import { type CallSessionRow, finishCallSession, orphanedCalls, parseJson } from './session.repo.js';

const SERVER_ID_FILE = 'server-id';
const SERVER_ID = /^srv-[A-Za-z0-9_-]{8,64}$/;
const BATCH = 100;

export const DEAD_SERVER_MESSAGE = 'The server running this call stopped.';

/**
 * This server's id, the same across its restarts: read from DATA_DIR, made on the first start. Two servers
 * must not share a DATA_DIR (their recordings live there too).
 */
export function serverIdOf(dataDir: string): string {
  const file = path.join(dataDir, SERVER_ID_FILE);
  const read = () => {
    try {
      const id = fs.readFileSync(file, 'utf8').trim();
      return SERVER_ID.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  };
  const known = read();
  if (known) return known;
  const id = `srv-${newId()}`;
  try {
    fs.writeFileSync(file, `${id}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // written by a process starting at the same moment (or unreadable: then it is replaced)
    const other = read();
    if (other) return other;
    fs.writeFileSync(file, `${id}\n`, { mode: 0o600 });
  }
  return id;
}

/** The recording a dead call left on this server's disk, repaired; its file name, or null when there is none. */
async function recoveredRecording(deps: AppDeps, row: CallSessionRow): Promise<string | null> {
  const name = `${row.id}.wav`;
  const summary = await repairWav(path.join(recordingsDir(deps.config.dataDir, row.company_id), name));
  return summary && summary.durationMs > 0 ? name : null;
}

/**
 * Stores a live call (web or phone) whose server died, from its last saved progress: `error_unknown`, ended
 * at its last heartbeat. False when it had already ended (another server stored it).
 */
export async function endDeadCall(deps: AppDeps, row: CallSessionRow): Promise<boolean> {
  const agent = agentDocOrUndefined(row.agent);
  const lastAlive = row.heartbeat_at ?? row.started_at ?? row.updated_at;
  const done = await finishCallSession(deps.db.db, row, {
    status: 'error',
    reason: 'error_unknown',
    errorMessage: DEAD_SERVER_MESSAGE,
    transcript: parseJson<TranscriptTurn[]>(row.transcript, []),
    latency: parseJson<TurnLatency[]>(row.latency, []),
    usage: { ...emptyUsage(agent), ...parseJson<object>(row.usage, {}) },
    cost: Number(row.cost),
    recording: await recoveredRecording(deps, row),
    endedAt: new Date(Date.parse(lastAlive)),
  });
  // told to its webhooks and analysed like any other call
  if (done) announceCall(deps, 'call.ended', { companyId: row.company_id, callId: row.id, analyse: true });
  return done;
}

/**
 * At start (before the server takes calls): the calls this server's previous process died with are stored
 * now, so they stop holding the company's concurrency slots. Answers how many were ended.
 */
export async function recoverOwnCalls(deps: AppDeps): Promise<number> {
  const rt = callRuntimeOf(deps);
  if (!rt) return 0;
  let ended = 0;
  for (;;) {
    const live = [...rt.live.keys()];
    const rows = await orphanedCalls(deps.db.db, rt.serverId, live, BATCH);
    for (const row of rows) if (await endDeadCall(deps, row)) ended++;
    if (rows.length < BATCH) break;
  }
  if (ended > 0) deps.logger.info('calls of the previous run stored', { ended });
  return ended;
}
