/**
 * The batch dispatcher (issue 19): dials the recipients of the batches being sent, from the batch's From
 * number with the number's outbound agent, each recipient's CSV columns as dynamic variables.
 *
 * The recipients table is the durable queue. A recipient is claimed with a lease before it is dialled: on
 * PostgreSQL a `SELECT … FOR UPDATE SKIP LOCKED` then a conditional update in one transaction (two servers
 * sharing the database never claim the same row), on SQLite the same in a transaction begun IMMEDIATE
 * (server/db/index.ts: one writer at a time). The call's id is written on the recipient before the carrier
 * is asked to dial (createPhoneCall's beforeDial), so a crash at any point never dials a recipient twice:
 * a recipient with a call waits for that call's end (the call sweeper ends calls that never connected),
 * and only a lease whose recipient has no call is released when it expires (20 minutes).
 *
 * Each tick (every second): outcomes of ended calls are recorded (busy and no answer are retried after the
 * batch's delay while attempts remain), expired leases are released, finished batches are marked
 * completed, and each company with a batch sending gets at most one new call (pacing: 1 per second per
 * company by default) while it has fewer calls than its concurrency limit (Billing > Limits, counting all its
 * calls: batches, single calls, web calls); createPhoneCall checks the limit and the spend limit again under
 * the company lock.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../lib/deps.js';
import { HttpError } from '../lib/http.js';
import { newId } from '../lib/ids.js';
import { billingLimits } from '../routes/billing/billing.service.js';
import { emitBatchEvent } from '../webhooks/outbox.js';
import { createPhoneCall, liveCalls } from './service.js';

export const LEASE_MS = 20 * 60_000;

export interface DispatcherOptions {
  /** new calls per second per company (default 1) */
  dialsPerSecond?: number;
  tickMs?: number;
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
  private lastDial = new Map<string, number>();
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
    const rows = await this.db
      .selectFrom('batch_recipients as r')
      .innerJoin('call_sessions as s', 's.id', 'r.call_id')
      .innerJoin('batch_calls as b', 'b.id', 'r.batch_id')
      .select([
        'r.upload_id',
        'r.row_number',
        'r.call_id',
        'r.attempts',
        's.status',
        's.disconnection_reason',
        'b.max_attempts',
        'b.retry_delay_s',
        'b.status as batch_status',
      ])
      .where('r.state', '=', 'calling')
      .where('s.status', 'not in', ['registered', 'ongoing'])
      .limit(500)
      .execute();
    for (const r of rows) {
      const outcome = outcomeOf(r.status, r.disconnection_reason);
      const retry =
        (outcome === 'busy' || outcome === 'no_answer') &&
        Number(r.attempts) < Number(r.max_attempts) &&
        r.batch_status === 'sending';
      await this.db
        .updateTable('batch_recipients')
        .set(
          retry
            ? {
                state: 'queued',
                call_id: null,
                lease_owner: null,
                lease_until: null,
                next_attempt_at: new Date(now.getTime() + Number(r.retry_delay_s) * 1000).toISOString(),
              }
            : { state: outcome, lease_owner: null, lease_until: null },
        )
        .where('upload_id', '=', r.upload_id)
        .where('row_number', '=', r.row_number)
        .where('state', '=', 'calling')
        .where('call_id', '=', r.call_id)
        .execute();
    }
  }

  /** A lease whose recipient never got a call (a crash before the dial) is released after LEASE_MS. */
  private async releaseExpired() {
    await this.db
      .updateTable('batch_recipients')
      .set({ state: 'queued', lease_owner: null, lease_until: null })
      .where('state', '=', 'calling')
      .where('call_id', 'is', null)
      .where('lease_until', '<', this.deps.clock.now().toISOString())
      .execute();
  }

  private async dial(): Promise<number> {
    const batches = await this.db
      .selectFrom('batch_calls')
      .select(['id', 'company_id', 'from_number'])
      .where('status', '=', 'sending')
      .orderBy('created_at')
      .limit(200)
      .execute();
    let placed = 0;
    const gap = 1000 / (this.options.dialsPerSecond ?? 1);
    const companiesDone = new Set<string>();
    for (const batch of batches) {
      if (await this.completeIfDone(batch.id, batch.company_id)) continue;
      if (companiesDone.has(batch.company_id)) continue;
      const last = this.lastDial.get(batch.company_id) ?? 0;
      if (performance.now() - last < gap) continue;
      const limits = await billingLimits(this.deps, batch.company_id);
      if ((await liveCalls(this.db, batch.company_id)) >= limits.concurrencyLimit) continue;
      const claimed = await this.claim(batch.id, batch.company_id);
      if (!claimed) continue;
      companiesDone.add(batch.company_id);
      this.lastDial.set(batch.company_id, performance.now());
      if (await this.place(batch, claimed)) placed++;
    }
    return placed;
  }

  /** No recipient left to call or being called: the batch is completed. */
  private async completeIfDone(batchId: string, companyId: string): Promise<boolean> {
    const left = await this.db
      .selectFrom('batch_recipients')
      .select(sql<number>`count(*)`.as('n'))
      .where('batch_id', '=', batchId)
      .where('state', 'in', ['queued', 'calling'])
      .executeTakeFirstOrThrow();
    if (Number(left.n) > 0) return false;
    const done = await this.db
      .updateTable('batch_calls')
      .set({ status: 'completed', updated_at: this.deps.clock.now().toISOString() })
      .where('id', '=', batchId)
      .where('company_id', '=', companyId)
      .where('status', '=', 'sending')
      .executeTakeFirst();
    // only the server whose update completed the batch tells the company's webhook (issue 20), once
    if (Number(done.numUpdatedRows) > 0) {
      this.deps.logger.info('batch call completed', { batchId });
      await this.announceCompleted(batchId, companyId).catch((e) =>
        this.deps.logger.warn('batch_completed not queued', { batchId, reason: e instanceof Error ? e.message : String(e) }),
      );
    }
    return true;
  }

  /** `batch_completed` for the company-wide webhook: the batch and its recipients' outcomes. */
  private async announceCompleted(batchId: string, companyId: string) {
    const batch = await this.db
      .selectFrom('batch_calls')
      .select(['id', 'name', 'status', 'sent_count', 'updated_at'])
      .where('id', '=', batchId)
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    const states = await this.db
      .selectFrom('batch_recipients')
      .select(['state', sql<number>`count(*)`.as('n')])
      .where('batch_id', '=', batchId)
      .groupBy('state')
      .execute();
    await emitBatchEvent(this.deps, companyId, {
      batch_id: batch.id,
      name: batch.name,
      status: batch.status,
      sent_count: Number(batch.sent_count),
      outcomes: Object.fromEntries(states.map((r) => [r.state, Number(r.n)])),
      completed_at: batch.updated_at,
    });
  }

  /** Claims the next recipient due, with a lease (see the header). */
  async claim(batchId: string, companyId: string) {
    const now = this.deps.clock.now();
    const pg = this.deps.db.kind === 'postgres';
    return this.db.transaction().execute(async (trx) => {
      let next = trx
        .selectFrom('batch_recipients')
        .select(['upload_id', 'row_number', 'phone_number', 'variables', 'attempts'])
        .where('batch_id', '=', batchId)
        .where('company_id', '=', companyId)
        .where('state', '=', 'queued')
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now.toISOString())]))
        .orderBy('row_number')
        .limit(1);
      if (pg) next = next.forUpdate().skipLocked();
      const row = await next.executeTakeFirst();
      if (!row) return undefined;
      const res = await trx
        .updateTable('batch_recipients')
        .set({
          state: 'calling',
          attempts: Number(row.attempts) + 1,
          lease_owner: this.owner,
          lease_until: new Date(now.getTime() + LEASE_MS).toISOString(),
        })
        .where('upload_id', '=', row.upload_id)
        .where('row_number', '=', row.row_number)
        .where('state', '=', 'queued')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return undefined;
      if (Number(row.attempts) === 0)
        await trx
          .updateTable('batch_calls')
          .set({ sent_count: sql`sent_count + 1` })
          .where('id', '=', batchId)
          .where('company_id', '=', companyId)
          .execute();
      return row;
    });
  }

  private async place(
    batch: { id: string; company_id: string; from_number: string },
    r: { upload_id: string; row_number: number; phone_number: string; variables: string; attempts: number },
  ): Promise<boolean> {
    const update = (set: {
      state?: string;
      attempts?: number;
      lease_owner?: null;
      lease_until?: null;
      call_id?: string | null;
    }) =>
      this.db
        .updateTable('batch_recipients')
        .set(set)
        .where('upload_id', '=', r.upload_id)
        .where('row_number', '=', r.row_number)
        .where('lease_owner', '=', this.owner)
        .execute();
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
          await update({ call_id: callId });
        },
      );
      return true;
    } catch (e) {
      if (e instanceof HttpError && (e.status === 429 || e.status === 402)) {
        // over a limit right now: back to the queue, this attempt not counted
        await update({ state: 'queued', attempts: Number(r.attempts), lease_owner: null, lease_until: null, call_id: null });
        return false;
      }
      // the call was refused (no agent on the number, carrier not connected, ...) or failed at the carrier
      await update({ state: 'failed', lease_owner: null, lease_until: null });
      this.deps.logger.warn('batch dial failed', { batchId: batch.id, reason: e instanceof Error ? e.message : String(e) });
      return false;
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
    options.tickMs ?? 1000,
  );
  timer.unref();
  return {
    dispatcher,
    stop: async () => clearInterval(timer),
  };
}
