/**
 * The webhook worker: a leased job (server/platform/jobs/leased-job.ts) in every server (started by
 * server/compose.ts) that sends the deliveries of the outbox (`webhook_deliveries`, outbox.ts). The stored
 * statuses are the delivery log's (`pending`, `sending`, `delivered`, `failed`: DELIVERY_STATUSES of the
 * API contract), the library's `running` and `done` under the names users see.
 *
 * - Claim: due rows (`pending` with `next_attempt_at <= now`, or `sending` whose lease expired: the server
 *   sending it died) are taken fairly across companies by the library's claim: each
 *   company's oldest first, round by round, no company beyond `webhookPerCompany` deliveries in flight
 *   across servers, as many as this server's free sending slots (`webhookConcurrency`). One transaction:
 *   on PostgreSQL `FOR UPDATE SKIP LOCKED` (servers sharing the database never take the same row); on
 *   SQLite IMMEDIATE. The claim sets `sending`, this worker, a lease, and counts the attempt; so a server
 *   killed mid-send is never a lost delivery, only a later attempt.
 * - Concurrency: the claimed deliveries are sent at once; each one that ends frees its slot and the
 *   worker claims again, so a receiver that never answers holds its company's slots only (docs/webhooks.md).
 * - Send: `POST` the stored body with its signature (the company's secret, the clock's time), through
 *   guardedFetch: the address connected to is checked (loopback, private, link-local, metadata refused
 *   unless ALLOW_PRIVATE_WEBHOOK_URLS) and redirects are not followed. 5 s for the whole exchange; only a 2xx
 *   counts. The response body is read up to 8 KB, then the connection is dropped.
 * - Retry: MAX_ATTEMPTS in all, waiting RETRY_DELAYS_MS after each failure (30 s up to 10 minutes), then
 *   `failed`. The finishing update only applies while the row is still this worker's (a lease lost to
 *   another server leaves its outcome to that server).
 * Time comes from `deps.clock`, so tests drive `runOnce()` with a fake clock.
 */

import { DELIVERY_BODY_MAX, SIGNATURE_HEADER } from '@contract/webhook.js';
import type { AppDeps } from '../../platform/deps.js';
import { defineLeasedJob, type JobOutcome, type JobRow } from '../../platform/jobs/leased-job.js';
import { jobLimitsOf } from '../../platform/jobs/limits.js';
import { type GuardOptions, guardedFetch } from '../../platform/net/net-guard.js';
import { signingSecret } from './outbox.js';
import { pruneDeliveries } from './outbox.repo.js';
import { signatureHeader } from './sign.js';

export const MAX_ATTEMPTS = 5;
/** The wait after the 1st, 2nd, 3rd and 4th failed attempt. */
export const RETRY_DELAYS_MS = [30_000, 120_000, 300_000, 600_000] as const;
export const DELIVERY_TIMEOUT_MS = 5000;
export const LEASE_MS = 60_000;
export const POLL_MS = 1000;
/** delivered and failed deliveries are kept this long in the log, then removed (hourly, in batches) */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3600_000;
const PRUNE_BATCH = 1000;

type DeliveryRow = JobRow<'webhook_deliveries'>;

export interface WebhookWorkerOptions {
  workerId?: string;
  pollMs?: number;
  leaseMs?: number;
  /** the time limit of one attempt (tests shorten it; the product uses DELIVERY_TIMEOUT_MS) */
  timeoutMs?: number;
  /** tests: name resolution for the address check */
  lookup?: GuardOptions['lookup'];
}

export interface WebhookWorker {
  /**
   * Claims due deliveries fairly across companies, as many as the free sending slots allow, and sends them
   * at once; resolves with how many were attempted.
   */
  runOnce(): Promise<number>;
  /** Removes up to a batch of delivered and failed deliveries older than DELIVERY_RETENTION_MS; how many. */
  prune(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  readonly id: string;
}

/** The first `max` bytes of `text` (the delivery log keeps bodies cut at 8 KB). */
export function cut(text: string, max = DELIVERY_BODY_MAX): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= max ? text : bytes.subarray(0, max).toString('utf8');
}

/** Reads at most `max` bytes of a response body, then drops the rest. */
async function readCapped(res: Response, max = DELIVERY_BODY_MAX): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return cut(Buffer.concat(chunks).toString('utf8'), max);
}

/** What one attempt stores on its row, whatever it became (delivered, pending again, failed). */
interface Attempt {
  ok: boolean;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  responseBody: string | null;
  attemptedAt: string;
}

function outcomeOf(row: DeliveryRow, a: Attempt): JobOutcome {
  return {
    status: a.ok ? 'done' : 'retry',
    set: {
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      request_body: cut(row.payload),
      response_body: a.responseBody,
      attempted_at: a.attemptedAt,
    },
  };
}

export function createWebhookWorker(deps: AppDeps, opts: WebhookWorkerOptions = {}): WebhookWorker {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const iso = (ms = 0) => new Date(deps.clock.now().getTime() + ms).toISOString();

  async function send(row: DeliveryRow): Promise<JobOutcome> {
    const attemptedAt = iso();
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const secret = await signingSecret(deps, row.company_id);
      const res = await guardedFetch(row.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Parley-Webhooks/1.0',
          'x-parley-event': row.event,
          'x-parley-delivery': row.id,
          [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secret, row.payload, deps.clock.now().getTime()),
        },
        body: row.payload,
        signal,
        publicOnly: deps.config.allowPrivateWebhookUrls !== true,
        lookup: opts.lookup,
      });
      const body = await readCapped(res);
      const durationMs = Math.round(performance.now() - started);
      const ok = res.status >= 200 && res.status < 300;
      return outcomeOf(row, {
        ok,
        statusCode: res.status,
        durationMs,
        error: ok ? null : res.status >= 300 && res.status < 400 ? `Redirect (${res.status}) not followed` : `HTTP ${res.status}`,
        responseBody: body,
        attemptedAt,
      });
    } catch (e) {
      const durationMs = Math.round(performance.now() - started);
      const error = signal.aborted ? `No answer within ${timeoutMs / 1000} s` : e instanceof Error ? e.message : String(e);
      return outcomeOf(row, { ok: false, statusCode: null, durationMs, error: cut(error, 500), responseBody: null, attemptedAt });
    } finally {
      deps.logger.debug('webhook attempt', { delivery: row.id, event: row.event, attempt: row.attempts });
    }
  }

  const prune = () => pruneDeliveries(deps.db.db, iso(-DELIVERY_RETENTION_MS), PRUNE_BATCH);
  let prunedAt = 0;

  const job = defineLeasedJob(
    deps,
    {
      name: 'webhook delivery',
      table: 'webhook_deliveries',
      key: 'id',
      statuses: { running: 'sending', done: 'delivered' },
      leaseMs: () => opts.leaseMs ?? LEASE_MS,
      pollMs: opts.pollMs ?? POLL_MS,
      retry: {
        attempts: () => MAX_ATTEMPTS,
        backoffMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 0,
      },
      concurrency: () => jobLimitsOf(deps.config).webhookConcurrency,
      perCompany: () => jobLimitsOf(deps.config).webhookPerCompany,
      // claimed again after its server died during the last attempt
      exhausted: (row) =>
        outcomeOf(row, {
          ok: false,
          statusCode: null,
          durationMs: null,
          error: `Gave up after ${MAX_ATTEMPTS} attempts`,
          responseBody: null,
          attemptedAt: iso(),
        }),
      handle: send,
      afterPass: async () => {
        const now = deps.clock.now().getTime();
        if (now - prunedAt < PRUNE_EVERY_MS) return;
        prunedAt = now;
        await prune();
      },
    },
    { workerId: opts.workerId },
  );

  return {
    id: job.id,
    runOnce: () => job.runOnce(),
    prune,
    start: () => job.start(),
    stop: () => job.stop(),
  };
}
