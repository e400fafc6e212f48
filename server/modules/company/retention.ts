/**
 * The retention job: removes the content of calls older than their company's `retention_days` (the same
 * removal as DELETE /call/{id}: server/modules/calls/content.ts), a periodic job every server runs.
 *
 * - Across servers: a pass leases each company before working on it, with the job library's compare-and-set
 *   (takeLease on its company_settings row: idle -> running, owner and lease end, the attempt counted). A
 *   company leased by another server is skipped; a lease whose server died runs out after
 *   RETENTION_LEASE_MS and is taken over the same way. Each call's removal is itself conditional, so even
 *   two servers on one call would remove it once.
 * - Bounded: RETENTION_BATCH calls per query, a turn of the event loop between batches, at most
 *   RETENTION_MAX_PER_PASS calls per company per pass (the next pass goes on).
 * - Idempotent and resumable: what is removed is marked (`content_deleted_at`) in the transaction that
 *   removes it; a pass stopped anywhere leaves calls either done or untouched (a recording file removed just
 *   before the stop is harmless: the next pass removes the rest), and the next pass takes what is left.
 * - Audited: one entry per company and pass that removed something ('call.content_deleted', by the system).
 */
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';
import { takeLease } from '../../platform/jobs/jobs.repo.js';
import { definePeriodicJob, type PeriodicJob } from '../../platform/jobs/periodic.js';
import { record } from '../audit/index.js';
import { removeContentBefore } from '../calls/index.js';
import { companiesWithRetention, releaseRetentionLease, renewRetentionLease } from './settings.repo.js';

export const RETENTION_EVERY_MS = 60 * 60_000;
export const RETENTION_LEASE_MS = 5 * 60_000;
export const RETENTION_BATCH = 100;
export const RETENTION_MAX_PER_PASS = 5000;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  /** this server's name on the leases (default: the server's id) */
  worker?: string;
  batch?: number;
  maxPerPass?: number;
  /** called after each batch (tests stop a pass there) */
  afterBatch?: (companyId: string, removed: number) => Promise<void> | void;
}

export interface RetentionPass {
  companies: number;
  removed: number;
  /** companies skipped because another server holds them */
  skipped: number;
}

/** One pass over every company with a retention period. */
export async function retentionPass(deps: AppDeps, opts: RetentionOptions = {}): Promise<RetentionPass> {
  const db = deps.db.db;
  const worker = opts.worker ?? `retention-${deps.calls?.serverId ?? 'server'}-${newId()}`;
  const batch = opts.batch ?? RETENTION_BATCH;
  const maxPerPass = opts.maxPerPass ?? RETENTION_MAX_PER_PASS;
  const out: RetentionPass = { companies: 0, removed: 0, skipped: 0 };
  for (const company of await companiesWithRetention(db)) {
    const now = deps.clock.now();
    const leaseEnd = () => new Date(deps.clock.now().getTime() + RETENTION_LEASE_MS).toISOString();
    const held = company.retention_status === 'running' && (company.retention_lease_until ?? '') > now.toISOString();
    const taken =
      !held &&
      (await takeLease(db, {
        table: 'company_settings',
        where: { company_id: company.company_id },
        status: { column: 'retention_status', from: company.retention_status, to: 'running' },
        attempts: Number(company.attempts),
        set: { retention_worker: worker, retention_lease_until: leaseEnd() },
      }));
    if (!taken) {
      out.skipped++;
      continue;
    }
    out.companies++;
    let removed = 0;
    try {
      const before = new Date(now.getTime() - Number(company.retention_days) * DAY_MS).toISOString();
      for (let done = 0; done < maxPerPass; ) {
        const step = await removeContentBefore(deps, company.company_id, before, Math.min(batch, maxPerPass - done));
        removed += step.removed;
        done += step.seen;
        await opts.afterBatch?.(company.company_id, step.removed);
        if (step.seen < batch) break;
        if (!(await renewRetentionLease(db, company.company_id, worker, leaseEnd()))) break;
        await yieldToLoop();
      }
    } finally {
      if (removed > 0)
        await record(deps, {
          companyId: company.company_id,
          actor: null,
          action: 'call.content_deleted',
          target: `${removed} call${removed === 1 ? '' : 's'} older than ${company.retention_days} days (retention)`,
          ip: '',
        });
      await releaseRetentionLease(db, company.company_id, worker);
    }
    out.removed += removed;
  }
  return out;
}

/** The job: a pass at start and every RETENTION_EVERY_MS until stop(). */
export function startRetentionJob(deps: AppDeps, everyMs = RETENTION_EVERY_MS): PeriodicJob {
  const job = definePeriodicJob(deps, {
    name: 'retention',
    everyMs,
    run: async () => {
      const { removed, companies } = await retentionPass(deps);
      return { removed, companies };
    },
    logAs: 'call content past its retention removed',
  });
  job.start();
  return job;
}
