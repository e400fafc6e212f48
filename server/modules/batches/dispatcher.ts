/**
 * The batch dispatcher: dials the recipients of the batches being sent, from the batch's From
 * number with the number's outbound agent, each recipient's CSV columns as dynamic variables.
 *
 * The recipients table is the durable queue. A recipient is claimed with a lease before it is dialled: on
 * PostgreSQL a `SELECT … FOR UPDATE SKIP LOCKED` then a conditional update in one transaction (two servers
 * sharing the database never claim the same row), on SQLite the same in a transaction begun IMMEDIATE
 * (server/platform/db/index.ts: one writer at a time). The call's id is written on the recipient before the carrier
 * is asked to dial (createPhoneCall's beforeDial), so a crash at any point never dials a recipient twice:
 * a recipient with a call waits for that call's end (the call sweeper ends calls that never connected),
 * and only a lease whose recipient has no call is released when it expires (20 minutes).
 *
 * Each tick (every 250 ms): outcomes of ended calls are recorded (busy and no answer are retried after the
 * batch's delay while attempts remain, also while the batch is paused; not once it is canceled), expired
 * leases are released, finished batches are marked completed, a batch whose calls fail too often pauses
 * itself, and each company with a batch sending gets new calls while it has fewer calls than its
 * concurrency limit (Billing > Limits, counting all its calls: batches, single calls, web calls);
 * createPhoneCall checks the limit and the spend limit again under the company lock.
 *
 * Rules:
 * - Calling window: a recipient is claimed only while the batch's window (days, hours) is open in the
 *   recipient's time zone (from the number at upload, server/modules/batches/number-zones.ts), else the batch's
 *   time zone. Recipients waiting for their window stay queued, and the batch stays sending.
 * - Pacing: at most `dialsPerSecond` new calls per second per company (BATCH_DIALS_PER_SECOND, default 1),
 *   across every server sharing the database: the company's next dial time is a row of
 *   `batch_dial_pacing`, taken in the claim's transaction with a compare-and-set (GCRA: a dial is allowed
 *   once the stored time has come, and moves it on by 1/rate). Up to one dial per tick's length (4 a
 *   second with 250 ms ticks), two dials of a company are always at least 1/rate apart (1 s by default);
 *   at a higher rate a tick may place its share of the rate at once (rate x tick length, e.g. 2 at 10 a
 *   second), so a second may hold that burst minus one more than the rate, never more on average.
 * - Self-pause: when at least BATCH_FAILURE_PAUSE.minFinished calls of the batch finished in the last two
 *   minutes (since the last resume) and half or more failed (carrier or technical failures, and dials the
 *   carrier or Parley refused; busy and no answer are not failures), the batch pauses itself and keeps the
 *   reason ("Paused automatically: 6 of 8 calls in the last 2 minutes failed.").
 * - Pause lets calls in progress finish and claims nothing new; cancel claims nothing new either (the
 *   claim itself checks that the batch is still sending), and the recipients not called stay queued.
 */

import {
  BATCH_DEFAULT_TIME_ZONE,
  BATCH_FAILURE_PAUSE,
  BATCH_MESSAGES,
  type CallingWindow,
  insideCallingWindow,
  isTimeZone,
} from '@contract/batch.js';
import { TELEPHONY_MESSAGES } from '@contract/telephony.js';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { takeLease } from '../../platform/jobs/jobs.repo.js';
import { billingLimits } from '../billing/index.js';
import { createPhoneCall, liveCalls } from '../telephony/index.js';
import { parseWindow } from './batch-call.repo.js';
import {
  batchOutcomes,
  completeSendingBatch,
  countSent,
  finishedSince,
  moveNextDial,
  nextDialMs,
  nextDueRecipient,
  pauseSendingBatch,
  recipientsLeft,
  recipientsWithEndedCalls,
  releaseExpiredLeases,
  sendingBatches,
  settleRecipient,
  updateLeasedRecipient,
} from './dispatch.repo.js';
import { NUMBER_ZONES } from './number-zones.js';

export const LEASE_MS = 20 * 60_000;
export const DISPATCH_TICK_MS = 250;

export interface DispatcherOptions {
  /** new calls per second per company (default: BATCH_DIALS_PER_SECOND, else 1) */
  dialsPerSecond?: number;
  tickMs?: number;
}

/** Which recipients' windows are open now: zones listed, and whether the batch's own zone is. */
interface OpenZones {
  zones: string[];
  batchZone: boolean;
}

/** The zones whose local time is inside the window now (null: no window, every recipient may be called). */
export function openZones(window: CallingWindow | null, batchZone: string, at: Date): OpenZones | null {
  if (!window) return null;
  return {
    zones: NUMBER_ZONES.filter((z) => insideCallingWindow(window, z, at)),
    batchZone: insideBatchZone(window, batchZone, at),
  };
}

/** The batch's zone was checked on the way in; one this platform's Intl no longer knows reads as UTC. */
function insideBatchZone(window: CallingWindow, zone: string, at: Date): boolean {
  return insideCallingWindow(window, isTimeZone(zone) ? zone : BATCH_DEFAULT_TIME_ZONE, at);
}

interface SendingBatch {
  id: string;
  company_id: string;
  from_number: string;
  calling_window: string | null;
  time_zone: string;
  resumed_at: string | null;
}

export type RecipientOutcome = 'completed' | 'busy' | 'no_answer' | 'failed' | 'voicemail';

/** A recipient's outcome from its call's end. */
export function outcomeOf(status: string, reason: string): RecipientOutcome {
  if (status === 'busy') return 'busy';
  if (status === 'no-answer') return 'no_answer';
  if (reason === 'voicemail_reached') return 'voicemail';
  if (status === 'failed' || status === 'canceled' || status === 'error') return 'failed';
  return 'completed';
}

export class BatchDispatcher {
  readonly owner = `dispatch-${newId()}`;
  /** each company's next dial time as this server last saw it (a lower bound: skips a company early) */
  private nextDial = new Map<string, number>();
  private running = false;

  constructor(
    private readonly deps: AppDeps,
    private readonly options: DispatcherOptions = {},
  ) {}

  private get db() {
    return this.deps.db.db;
  }

  /** One pass; answers how many calls it placed. */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      await this.recordOutcomes();
      await this.releaseExpired();
      return await this.dial();
    } finally {
      this.running = false;
    }
  }

  /** Recipients being called whose call has ended: their outcome, or a retry. */
  private async recordOutcomes() {
    const now = this.deps.clock.now();
    const rows = await recipientsWithEndedCalls(this.db, 500);
    for (const r of rows) {
      const outcome = outcomeOf(r.status, r.disconnection_reason);
      // a call cut because the server running it stopped (the call sweeper's error_unknown) is Parley's
      // failure, not the batch's: it has no finish time, so it does not count toward the self-pause
      const finishedAt = r.disconnection_reason === 'error_unknown' ? null : now.toISOString();
      // a paused batch keeps its retries for the resume; a canceled one does not
      const retry =
        (outcome === 'busy' || outcome === 'no_answer') &&
        Number(r.attempts) < Number(r.max_attempts) &&
        (r.batch_status === 'sending' || r.batch_status === 'paused');
      await settleRecipient(
        this.db,
        r,
        retry
          ? {
              state: 'queued',
              call_id: null,
              lease_owner: null,
              lease_until: null,
              next_attempt_at: new Date(now.getTime() + Number(r.retry_delay_s) * 1000).toISOString(),
              finished_at: finishedAt,
            }
          : { state: outcome, lease_owner: null, lease_until: null, finished_at: finishedAt },
      );
    }
  }

  /** A lease whose recipient never got a call (a crash before the dial) is released after LEASE_MS. */
  private async releaseExpired() {
    await releaseExpiredLeases(this.db, this.deps.clock.now().toISOString());
  }

  private get dialsPerSecond() {
    return this.options.dialsPerSecond ?? this.deps.config.batchDialsPerSecond ?? 1;
  }

  private async dial(): Promise<number> {
    const batches: SendingBatch[] = await sendingBatches(this.db, 200);
    let placed = 0;
    const now = this.deps.clock.now();
    // per company this tick: calls it may still start (its limit minus its live calls), or done (paced)
    const room = new Map<string, number>();
    for (const batch of batches) {
      if (await this.completeIfDone(batch.id, batch.company_id)) continue;
      if (await this.pauseIfFailing(batch, now)) continue;
      const company = batch.company_id;
      if ((this.nextDial.get(company) ?? 0) > now.getTime() || room.get(company) === 0) continue;
      const zones = openZones(parseWindow(batch.calling_window), batch.time_zone, now);
      // every recipient is waiting for the window: the batch stays sending
      if (zones && zones.zones.length === 0 && !zones.batchZone) continue;
      if (!room.has(company)) {
        const limits = await billingLimits(this.deps, company);
        room.set(company, Math.max(0, limits.concurrencyLimit - (await liveCalls(this.db, company))));
      }
      while ((room.get(company) ?? 0) > 0) {
        const claimed = await this.claim(batch.id, company, { zones, now });
        if (claimed === 'paced') {
          room.set(company, 0);
          break;
        }
        if (!claimed) break;
        room.set(company, (room.get(company) ?? 1) - 1);
        const result = await this.place(batch, claimed);
        if (result === 'placed') placed++;
        // over a limit at the company lock: no more for this company this tick
        if (result === 'over-limit') room.set(company, 0);
      }
    }
    return placed;
  }

  /**
   * The self-pause: of the calls of the batch finished in the last two minutes (since its last resume),
   * half or more failed, and at least BATCH_FAILURE_PAUSE.minFinished finished: the batch pauses itself.
   */
  private async pauseIfFailing(batch: SendingBatch, now: Date): Promise<boolean> {
    const windowStart = new Date(now.getTime() - BATCH_FAILURE_PAUSE.windowMs).toISOString();
    const since = batch.resumed_at && batch.resumed_at > windowStart ? batch.resumed_at : windowStart;
    const { finished, failed } = await finishedSince(this.db, batch.id, since);
    if (finished < BATCH_FAILURE_PAUSE.minFinished || failed < finished * BATCH_FAILURE_PAUSE.share) return false;
    const reason = BATCH_MESSAGES.pausedAutomatically(failed, finished);
    if (await pauseSendingBatch(this.db, batch.id, batch.company_id, reason, now.toISOString()))
      this.deps.logger.warn('batch call paused itself', { batchId: batch.id, failed, finished });
    return true;
  }

  /**
   * The company's pace (see the header): takes the next dial slot with a compare-and-set on its row of
   * batch_dial_pacing, inside the claim's transaction; false when the slot has not come yet.
   */
  private async takeDialSlot(trx: Kysely<DB>, companyId: string, nowMs: number): Promise<boolean> {
    const rate = this.dialsPerSecond;
    const gap = 1000 / rate;
    // as many as one tick's share of the rate at once (1 up to 4 a second with 250 ms ticks)
    const burst = Math.max(1, Math.floor((rate * (this.options.tickMs ?? DISPATCH_TICK_MS)) / 1000));
    const next = await nextDialMs(trx, companyId);
    if (next > nowMs) {
      this.nextDial.set(companyId, next);
      return false;
    }
    const after = Math.ceil(Math.max(next + gap, nowMs + gap - (burst - 1) * gap));
    // another server took it first
    if (!(await moveNextDial(trx, companyId, next, after))) return false;
    this.nextDial.set(companyId, after);
    return true;
  }

  /** No recipient left to call or being called: the batch is completed. */
  private async completeIfDone(batchId: string, companyId: string): Promise<boolean> {
    // one row is enough (a count would read every queued row of a large batch on every tick)
    if (await recipientsLeft(this.db, batchId)) return false;
    const done = await completeSendingBatch(this.db, batchId, companyId, this.deps.clock.now().toISOString());
    // only the server whose update completed the batch tells the company's webhook, once
    if (done) {
      this.deps.logger.info('batch call completed', { batchId });
      await this.announceCompleted(batchId, companyId).catch((e) =>
        this.deps.logger.warn('batch_completed not queued', { batchId, reason: e instanceof Error ? e.message : String(e) }),
      );
    }
    return true;
  }

  /** `batch_completed` for the company-wide webhook: the batch and its recipients' outcomes. */
  private async announceCompleted(batchId: string, companyId: string) {
    const { batch, states } = await batchOutcomes(this.db, batchId, companyId);
    await this.deps.events.publish('batch.completed', {
      companyId,
      batch: {
        batch_id: batch.id,
        name: batch.name,
        status: batch.status,
        sent_count: Number(batch.sent_count),
        outcomes: Object.fromEntries(states.map((r) => [r.state, Number(r.n)])),
        completed_at: batch.updated_at,
      },
    });
  }

  /**
   * Claims the next recipient due whose calling window is open (`zones`; null = no window), with a lease
   * (see the header), if the batch is still sending and the company's pace allows a dial now ('paced'
   * when it does not).
   */
  async claim(batchId: string, companyId: string, opts: { zones?: OpenZones | null; now?: Date; pace?: boolean } = {}) {
    const { zones = null, now = this.deps.clock.now(), pace = true } = opts;
    const pg = this.deps.db.kind === 'postgres';
    return this.db.transaction().execute(async (trx) => {
      const row = await nextDueRecipient(trx, batchId, companyId, now.toISOString(), zones, pg);
      if (!row) return undefined;
      if (pace && !(await this.takeDialSlot(trx, companyId, now.getTime()))) return 'paced' as const;
      // the job library's claim: queued -> calling, the attempt counted, compare-and-set on state and attempts
      const leased = await takeLease(trx, {
        table: 'batch_recipients',
        where: { upload_id: row.upload_id, row_number: row.row_number },
        status: { column: 'state', from: 'queued', to: 'calling' },
        attempts: Number(row.attempts),
        set: { lease_owner: this.owner, lease_until: new Date(now.getTime() + LEASE_MS).toISOString() },
      });
      if (!leased) return undefined;
      if (Number(row.attempts) === 0) await countSent(trx, batchId, companyId);
      return row;
    });
  }

  private async place(
    batch: { id: string; company_id: string; from_number: string },
    r: { upload_id: string; row_number: number; phone_number: string; variables: string; attempts: number },
  ): Promise<'placed' | 'over-limit' | 'refused'> {
    const update = (set: {
      state?: string;
      attempts?: number;
      lease_owner?: null;
      lease_until?: null;
      call_id?: string | null;
      finished_at?: string;
      failure_reason?: string | null;
    }) => updateLeasedRecipient(this.db, r, this.owner, set);
    let variables: Record<string, string> = {};
    try {
      const parsed = JSON.parse(r.variables) as Record<string, unknown>;
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') variables[k] = v;
    } catch {
      variables = {};
    }
    try {
      await createPhoneCall(
        this.deps,
        { companyId: batch.company_id, accountId: '' },
        { from_number: batch.from_number, to_number: r.phone_number, dynamic_variables: variables },
        async (callId) => {
          await update({ call_id: callId, failure_reason: null });
        },
      );
      return 'placed';
    } catch (e) {
      if (e instanceof HttpError && (e.status === 429 || e.status === 402)) {
        // over a limit right now: back to the queue, this attempt not counted
        await update({ state: 'queued', attempts: Number(r.attempts), lease_owner: null, lease_until: null, call_id: null });
        return 'over-limit';
      }
      // the call was refused (no agent on the number, carrier not connected, ...) or failed at the carrier:
      // a failure the self-pause counts
      // the reason is kept for the batch detail and the export: the refusal's own words (written for the user,
      // naming no secret), anything else only as a generic line (the details stay in the log)
      await update({
        state: 'failed',
        lease_owner: null,
        lease_until: null,
        finished_at: this.deps.clock.now().toISOString(),
        failure_reason: e instanceof HttpError ? e.message : TELEPHONY_MESSAGES.placeFailed,
      });
      this.deps.logger.warn('batch dial failed', { batchId: batch.id, reason: e instanceof Error ? e.message : String(e) });
      return 'refused';
    }
  }
}

/** Runs the dispatcher every `tickMs` until stopped. */
export function startBatchDispatcher(deps: AppDeps, options: DispatcherOptions = {}) {
  const dispatcher = new BatchDispatcher(deps, options);
  const timer = setInterval(
    () =>
      void dispatcher
        .tick()
        .catch((e) => deps.logger.warn('batch dispatch failed', { reason: e instanceof Error ? e.message : String(e) })),
    options.tickMs ?? DISPATCH_TICK_MS,
  );
  timer.unref();
  return {
    dispatcher,
    stop: async () => clearInterval(timer),
  };
}
