/**
 * The knowledge-base worker: runs inside the server process (started by server/startup.ts, stopped on
 * shutdown) and processes the durable jobs of `knowledge_base_jobs`.
 *
 * - Claim: a job that is `queued` and due (`run_after <= now`), or `running` with an expired lease (its
 *   worker died: restart, crash), is taken with a conditional UPDATE, so two workers (or two servers on one
 *   PostgreSQL) never run the same job. The lease (LEASE_MS) is renewed while the job runs.
 * - Run: the base goes `processing`; every file is read and chunked in a worker thread, off the event
 *   loop, within the limits of kb.extract.ts (time, heap, decoded PDF bytes, text), and every text source
 *   is chunked; the chunks replace the base's previous ones and the base goes `complete` in one
 *   transaction. URL sources are kept for a later refresh and not fetched.
 * - Failure: a source that can never be read (not a PDF after all, no text layer, past a limit: 'too
 *   complex to read') fails the base at once with its message; any other error is retried with a growing
 *   delay, MAX_ATTEMPTS times in all. Attempts are counted when a job is claimed, so a job whose process
 *   dies while running it (SIGKILL, out of memory) is failed once it has been claimed MAX_ATTEMPTS times.
 * Time comes from `deps.clock`, so tests drive `runOnce()` with a fake clock.
 */
import path from 'node:path';
import type { Selectable } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { KnowledgeBaseJobsTable } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';
import { chunkText, createExtractor, EXTRACT_LIMITS, ExtractError, type ExtractLimits, type Extractor } from './kb.extract.js';
import { kbDir, parseSources } from './kb.repo.js';

export const LEASE_MS = 60_000;
export const POLL_MS = 1000;
export const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 30_000;
const CHUNKS_PER_INSERT = 200;
export const GENERIC_FAILURE = 'Processing failed. Please upload the knowledge base again.';

type JobRow = Selectable<KnowledgeBaseJobsTable>;

/** Wakes every worker of this process at once when a job is queued (the poll is the fallback). */
const wakers = new Set<() => void>();
export function knowledgeJobQueued(): void {
  for (const wake of wakers) wake();
}

export interface KnowledgeWorkerOptions {
  workerId?: string;
  pollMs?: number;
  leaseMs?: number;
  maxAttempts?: number;
  /** the chunks of one file source (default: read in a worker thread; tests replace it to simulate failures) */
  extractFile?: Extractor['chunks'];
  /** what reading one file may cost (default EXTRACT_LIMITS) */
  extractLimits?: ExtractLimits;
}

export interface KnowledgeWorker {
  /** Claims and runs at most one due job; true when it ran one. */
  runOnce(): Promise<boolean>;
  /** Polls in the background until stop(). */
  start(): void;
  /**
   * Stops polling, ends the extraction's worker thread (a file being read fails as a passing error: its
   * job is retried later) and waits for the job in flight.
   */
  stop(): Promise<void>;
  readonly id: string;
}

export function createKnowledgeWorker(deps: AppDeps, opts: KnowledgeWorkerOptions = {}): KnowledgeWorker {
  const db = deps.db.db;
  const id = opts.workerId ?? `kbw-${newId()}`;
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  const pollMs = opts.pollMs ?? POLL_MS;
  const maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
  let extractor: Extractor | undefined;
  const extractFile: Extractor['chunks'] =
    opts.extractFile ??
    ((file, kind, filename) => {
      extractor ??= createExtractor(opts.extractLimits ?? EXTRACT_LIMITS);
      return extractor.chunks(file, kind, filename);
    });
  const iso = (ms = 0) => new Date(deps.clock.now().getTime() + ms).toISOString();

  async function claim(): Promise<JobRow | undefined> {
    const now = iso();
    const candidates = await db
      .selectFrom('knowledge_base_jobs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_after', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
        ]),
      )
      .orderBy('run_after')
      .limit(5)
      .execute();
    for (const job of candidates) {
      const res = await db
        .updateTable('knowledge_base_jobs')
        .set({ status: 'running', worker: id, lease_until: iso(leaseMs), attempts: job.attempts + 1, updated_at: now })
        .where('id', '=', job.id)
        .where('status', '=', job.status)
        .where('attempts', '=', job.attempts)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) return { ...job, status: 'running', worker: id, attempts: job.attempts + 1 };
    }
    return undefined;
  }

  /** Renews the lease; false when the job is no longer ours. */
  async function renew(job: JobRow): Promise<boolean> {
    const res = await db
      .updateTable('knowledge_base_jobs')
      .set({ lease_until: iso(leaseMs), updated_at: iso() })
      .where('id', '=', job.id)
      .where('worker', '=', id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async function finish(job: JobRow, kb: { status: 'complete' | 'failed'; error: string | null; chunks?: string[][] }) {
    await db.transaction().execute(async (trx) => {
      const owned = await trx
        .updateTable('knowledge_base_jobs')
        .set({
          status: kb.status === 'complete' ? 'done' : 'failed',
          lease_until: null,
          last_error: kb.error,
          updated_at: iso(),
        })
        .where('id', '=', job.id)
        .where('worker', '=', id)
        .executeTakeFirst();
      if (Number(owned.numUpdatedRows) === 0) return;
      let count = 0;
      if (kb.chunks) {
        await trx.deleteFrom('knowledge_base_chunks').where('knowledge_base_id', '=', job.knowledge_base_id).execute();
        const rows = kb.chunks.flatMap((pieces, sourceIndex) => pieces.map((content) => ({ sourceIndex, content })));
        count = rows.length;
        for (let i = 0; i < rows.length; i += CHUNKS_PER_INSERT) {
          // SQLite runs on the event loop: let it turn between statements (other queries wait for the
          // transaction either way; timers and sockets need not)
          if (i > 0) await yieldToLoop();
          await trx
            .insertInto('knowledge_base_chunks')
            .values(
              rows.slice(i, i + CHUNKS_PER_INSERT).map((r, j) => ({
                knowledge_base_id: job.knowledge_base_id,
                position: i + j,
                company_id: job.company_id,
                source_index: r.sourceIndex,
                content: r.content,
              })),
            )
            .execute();
        }
      }
      await trx
        .updateTable('knowledge_bases')
        .set({ status: kb.status, error_message: kb.error, chunk_count: count, updated_at: iso() })
        .where('id', '=', job.knowledge_base_id)
        .where('company_id', '=', job.company_id)
        .execute();
    });
  }

  async function retryLater(job: JobRow, error: string) {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('knowledge_base_jobs')
        .set({
          status: 'queued',
          lease_until: null,
          run_after: iso(RETRY_BASE_MS * job.attempts),
          last_error: error,
          updated_at: iso(),
        })
        .where('id', '=', job.id)
        .where('worker', '=', id)
        .execute();
      await trx
        .updateTable('knowledge_bases')
        .set({ status: 'pending', updated_at: iso() })
        .where('id', '=', job.knowledge_base_id)
        .where('company_id', '=', job.company_id)
        .execute();
    });
  }

  async function run(job: JobRow): Promise<void> {
    const kb = await db
      .selectFrom('knowledge_bases')
      .selectAll()
      .where('id', '=', job.knowledge_base_id)
      .where('company_id', '=', job.company_id)
      .executeTakeFirst();
    if (!kb) return; // deleted meanwhile: the job row went with it
    if (job.attempts > maxAttempts) {
      // claimed again after its worker died on every attempt (a source that crashes the process)
      await finish(job, { status: 'failed', error: GENERIC_FAILURE });
      return;
    }
    await db
      .updateTable('knowledge_bases')
      .set({ status: 'processing', updated_at: iso() })
      .where('id', '=', kb.id)
      .where('company_id', '=', kb.company_id)
      .execute();
    const dir = kbDir(deps.config.dataDir, kb.company_id, kb.id);
    try {
      const chunks: string[][] = [];
      for (const source of parseSources(kb)) {
        if (source.kind === 'url') chunks.push([]);
        else if (source.kind === 'text') chunks.push(chunkText(source.content));
        else chunks.push(await extractFile(path.join(dir, source.stored), source.file_kind, source.filename));
        if (!(await renew(job))) return; // the lease was lost: another worker owns the job now
      }
      await finish(job, { status: 'complete', error: null, chunks });
      deps.logger.info('knowledge base processed', { knowledgeBaseId: kb.id, chunks: chunks.flat().length });
    } catch (e) {
      if (e instanceof ExtractError) {
        await finish(job, { status: 'failed', error: e.message });
        deps.logger.info('knowledge base failed', { knowledgeBaseId: kb.id, reason: e.message });
        return;
      }
      const reason = e instanceof Error ? e.message : String(e);
      deps.logger.warn('knowledge base processing error', { knowledgeBaseId: kb.id, attempt: job.attempts, reason });
      if (job.attempts >= maxAttempts) await finish(job, { status: 'failed', error: GENERIC_FAILURE });
      else await retryLater(job, reason.slice(0, 500));
    }
  }

  let inFlight: Promise<boolean> | undefined;
  const runOnce = (): Promise<boolean> => {
    // one job at a time per worker
    inFlight ??= (async () => {
      try {
        const job = await claim();
        if (!job) return false;
        await run(job);
        return true;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = true;
  const wake = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, 0);
  };
  async function tick() {
    timer = undefined;
    if (stopped) return;
    let ran = false;
    try {
      ran = await runOnce();
    } catch (e) {
      deps.logger.error('knowledge worker error', { reason: e instanceof Error ? e.message : String(e) });
    }
    if (!stopped && !timer) timer = setTimeout(tick, ran ? 0 : pollMs);
  }

  return {
    id,
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      wakers.add(wake);
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      wakers.delete(wake);
      if (timer) clearTimeout(timer);
      timer = undefined;
      const closing = extractor?.close();
      extractor = undefined;
      await closing;
      await inFlight?.catch(() => undefined);
    },
  };
}
