/**
 * The knowledge-base worker: a leased job (server/platform/jobs/leased-job.ts) over `knowledge_base_jobs`,
 * started by server/compose.ts and stopped on shutdown.
 *
 * - Claim: the library's fair claim: a job `pending` and due, or `running` with an expired lease (its
 *   worker died: restart, crash); never the same job twice, also with several servers on one PostgreSQL.
 *   One job at a time per server (the extraction has one worker thread), at most PER_COMPANY of one
 *   company at once across servers. The lease (LEASE_MS) is renewed after every source.
 * - Run: the base goes `processing`; every file is read and chunked in a worker thread, off the event
 *   loop, within the limits of kb.extract.ts (time, heap, decoded PDF bytes, text), and every text source
 *   is chunked; the chunks replace the base's previous ones and the base goes `complete` in one
 *   transaction with the job's `done`. URL sources are kept for a later refresh and not fetched.
 * - Failure: a source that can never be read (not a PDF after all, no text layer, past a limit: 'too
 *   complex to read') fails the base at once with its message; any other error is retried with a growing
 *   delay (RETRY_BASE_MS times the attempt), MAX_ATTEMPTS times in all. Attempts are counted when a job is
 *   claimed, so a job whose process dies while running it (SIGKILL, out of memory) is failed once it has
 *   been claimed MAX_ATTEMPTS times.
 * Time comes from `deps.clock`, so tests drive `runOnce()` with a fake clock.
 */
import path from 'node:path';
import type { AppDeps } from '../../platform/deps.js';
import { defineLeasedJob, type JobOutcome, type JobRow } from '../../platform/jobs/leased-job.js';
import { wakeChannel } from '../../platform/jobs/wake.js';
import { chunkText, createExtractor, EXTRACT_LIMITS, ExtractError, type ExtractLimits, type Extractor } from './kb.extract.js';
import { kbDir, parseSources } from './kb.repo.js';
import { jobBase, replaceChunks, setBaseStatus } from './kb-job.repo.js';

export const LEASE_MS = 60_000;
export const POLL_MS = 1000;
export const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 30_000;
/** jobs of one company processed at once, across servers */
const PER_COMPANY = 2;
export const GENERIC_FAILURE = 'Processing failed. Please upload the knowledge base again.';

/** Wakes this app's knowledge-base workers at once when a job is queued (the poll is the fallback). */
export function knowledgeJobQueued(deps: AppDeps): void {
  wakeChannel(deps).wake('knowledge_base_jobs');
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
   * Stops polling, waits for the job in flight and ends the extraction's worker thread (a file being read
   * fails as a passing error: its job is retried later).
   */
  stop(): Promise<void>;
  readonly id: string;
}

export function createKnowledgeWorker(deps: AppDeps, opts: KnowledgeWorkerOptions = {}): KnowledgeWorker {
  const db = deps.db.db;
  let extractor: Extractor | undefined;
  const extractFile: Extractor['chunks'] =
    opts.extractFile ??
    ((file, kind, filename) => {
      extractor ??= createExtractor(opts.extractLimits ?? EXTRACT_LIMITS);
      return extractor.chunks(file, kind, filename);
    });
  const now = () => deps.clock.now().toISOString();

  /** The job fails for good and its base shows `message`. */
  const failedOutcome = (row: JobRow<'knowledge_base_jobs'>, message: string): JobOutcome => ({
    status: 'failed',
    set: { error: message },
    also: (trx) =>
      setBaseStatus(
        trx,
        row.company_id,
        row.knowledge_base_id,
        { status: 'failed', error_message: message, chunk_count: 0 },
        now(),
      ),
  });

  const worker = defineLeasedJob(
    deps,
    {
      name: 'knowledge base processing',
      table: 'knowledge_base_jobs',
      key: 'id',
      leaseMs: () => opts.leaseMs ?? LEASE_MS,
      pollMs: opts.pollMs ?? POLL_MS,
      retry: { attempts: () => opts.maxAttempts ?? MAX_ATTEMPTS, backoffMs: (attempt) => RETRY_BASE_MS * attempt },
      concurrency: () => 1,
      perCompany: () => PER_COMPANY,
      exhausted: (row) => failedOutcome(row, GENERIC_FAILURE),
      handle: async (row, run) => {
        const kb = await jobBase(db, row.company_id, row.knowledge_base_id);
        if (!kb) return { status: 'done' }; // deleted meanwhile: the job row went with it
        await setBaseStatus(db, kb.company_id, kb.id, { status: 'processing' }, now());
        const dir = kbDir(deps.config.dataDir, kb.company_id, kb.id);
        try {
          const chunks: string[][] = [];
          for (const source of parseSources(kb)) {
            if (source.kind === 'url') chunks.push([]);
            else if (source.kind === 'text') chunks.push(chunkText(source.content));
            else chunks.push(await extractFile(path.join(dir, source.stored), source.file_kind, source.filename));
            // the lease was lost: another worker owns the job now, and settling it here would not apply
            if (!(await run.renew())) return { status: 'done' };
          }
          return {
            status: 'done',
            set: { error: null },
            also: async (trx) => {
              const count = await replaceChunks(trx, kb.company_id, kb.id, chunks);
              await setBaseStatus(
                trx,
                kb.company_id,
                kb.id,
                { status: 'complete', error_message: null, chunk_count: count },
                now(),
              );
            },
            after: async () =>
              deps.logger.info('knowledge base processed', { knowledgeBaseId: kb.id, chunks: chunks.flat().length }),
          };
        } catch (e) {
          if (e instanceof ExtractError) {
            deps.logger.info('knowledge base failed', { knowledgeBaseId: kb.id, reason: e.message });
            return failedOutcome(row, e.message);
          }
          const reason = e instanceof Error ? e.message : String(e);
          deps.logger.warn('knowledge base processing error', { knowledgeBaseId: kb.id, attempt: row.attempts, reason });
          return {
            status: 'retry',
            // retried: the base waits again; after the last attempt it fails with the generic message
            set: (status) => ({ error: status === 'pending' ? reason.slice(0, 500) : GENERIC_FAILURE }),
            also: (trx, status) =>
              status === 'pending'
                ? setBaseStatus(trx, row.company_id, row.knowledge_base_id, { status: 'pending' }, now())
                : (failedOutcome(row, GENERIC_FAILURE).also?.(trx, status) ?? Promise.resolve()),
          };
        }
      },
      onStop: async () => {
        const closing = extractor?.close();
        extractor = undefined;
        await closing;
      },
    },
    { workerId: opts.workerId },
  );

  return {
    id: worker.id,
    runOnce: async () => (await worker.runOnce()) > 0,
    start: () => worker.start(),
    stop: () => worker.stop(),
  };
}
