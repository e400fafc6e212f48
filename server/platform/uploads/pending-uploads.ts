import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DB, PendingUploadsTable } from '../db/schema.js';
import type { AppDeps } from '../deps.js';
import { HttpError } from '../http/http.js';
import { definePeriodicJob, type PeriodicJob } from '../jobs/periodic.js';
import type { PendingKind } from './kinds.js';
import {
  deleteLease,
  expiredLeases,
  fileNames,
  insertLease,
  insertLeaseOnce,
  knowledgeBaseIds,
  leasedIds,
  renewLeaseOf,
  takeLeaseOver,
} from './pending-uploads.repo.js';
import { uploadsDir } from './uploads.js';

/**
 * Mark and sweep for uploads, so a request killed half-way (SIGKILL, out-of-memory, power) leaves nothing
 * behind for good. An upload writes outside any transaction — a recipients list streams its rows in
 * chunks, a knowledge base its files into a directory, a photo its file — because one transaction for a
 * whole upload would hold SQLite's only writer (or a PostgreSQL connection) for as long as the client
 * takes to send. Instead:
 *
 * 1. mark: before writing anything the request takes a lease on its upload (a `pending_uploads` row:
 *    kind, id, owner token, lease_until), renewed every RENEW_MS while it runs;
 * 2. the transaction that makes the upload part of the data (the batch swaps to the list, the knowledge
 *    base row is inserted, the account gets its photo) ends the lease in the same commit (`settle`); a
 *    request that refuses its upload removes what it wrote and ends the lease (`end`);
 * 3. sweep: a lease that ran out belongs to a request that died. `sweepExpiredUploads` (at start and every
 *    UPLOAD_LEASE_MS, server/compose.ts) takes the lease over with a compare-and-set, removes what the
 *    upload left — never anything that is part of the data: the list of a batch, the directory of a
 *    knowledge base row, the file of a `files` row stay — and then deletes the row. A sweep that dies
 *    half-way leaves its own lease, which runs out and is swept again.
 *
 * A request slower than its lease (the process stalled a minute) finds at `settle` that a sweep took
 * its upload: the transaction rolls back and the client is asked to upload again (409).
 *
 * `sweepOrphanFiles` (at start) also removes the files no lease covers: knowledge-base directories and
 * uploaded files without their row, left by crashes before this existed or between a row's deletion and
 * the removal of its files. Every step is safe while other instances upload: a lease is taken before the
 * first byte is written and ends in the commit of the row, so "no row and no lease" is never a live upload.
 */

export const UPLOAD_LEASE_MS = 60_000;
const RENEW_MS = 20_000;
const SWEEP_BATCH = 100;
const SCAN_BATCH = 500;

export type { PendingKind };

export const UPLOAD_LOST_MESSAGE = 'The upload took too long and was discarded. Please upload it again.';

export interface PendingUpload {
  readonly id: string;
  /** Ends the lease inside the transaction that makes the upload part of the data; 409 when a sweep took it. */
  settle(trx: Kysely<DB>): Promise<void>;
  /** Ends the lease (idempotent): after `settle`, or once the request removed what it wrote. */
  end(): Promise<void>;
}

const iso = (deps: AppDeps, plusMs = 0) => new Date(deps.clock.now().getTime() + plusMs).toISOString();
const token = () => randomBytes(12).toString('base64url');

/** Takes the lease of a new upload; call before its first byte is written. */
export async function beginUpload(
  deps: AppDeps,
  kind: PendingKind,
  id: string,
  companyId: string | null,
): Promise<PendingUpload> {
  const db = deps.db.db;
  const owner = token();
  await insertLease(db, {
    id,
    kind,
    company_id: companyId,
    owner,
    lease_until: iso(deps, UPLOAD_LEASE_MS),
    created_at: iso(deps),
  });
  const renew = setInterval(() => {
    renewLeaseOf(db, id, owner, iso(deps, UPLOAD_LEASE_MS)).catch((e: unknown) =>
      deps.logger.warn('upload lease renewal failed', { kind, error: e instanceof Error ? e.message : String(e) }),
    );
  }, RENEW_MS);
  renew.unref();
  return {
    id,
    async settle(trx) {
      if (!(await deleteLease(trx, id, owner))) throw new HttpError(409, UPLOAD_LOST_MESSAGE);
    },
    async end() {
      clearInterval(renew);
      await deleteLease(db, id, owner);
    },
  };
}

/**
 * Inside the transaction that replaced an upload (a batch swapped to a new list): marks the old one for
 * removal. `remove()` after the commit removes it at once; if the process dies first, the sweep does.
 */
export async function retireUpload(
  deps: AppDeps,
  trx: Kysely<DB>,
  kind: PendingKind,
  id: string,
  companyId: string | null,
): Promise<{ remove(): Promise<void> }> {
  const owner = token();
  const row = { id, kind, company_id: companyId, owner, lease_until: iso(deps), created_at: iso(deps) };
  await insertLeaseOnce(trx, row);
  return {
    async remove() {
      await removeLeftovers(deps, row);
      await deleteLease(deps.db.db, id, owner);
    },
  };
}

/**
 * Removes what an upload that is not part of the data left behind (never what a row refers to); each kind
 * says how (`deps.uploads`: server/platform/uploads/kinds.ts, put together in server/compose.ts).
 */
async function removeLeftovers(deps: AppDeps, row: Pick<PendingUploadsTable, 'id' | 'kind' | 'company_id'>): Promise<void> {
  const kind = deps.uploads[row.kind];
  const upload = { id: row.id, companyId: row.company_id };
  if (!(await kind.isLive(deps.db.db, upload))) await kind.remove(deps.db.db, deps.config.dataDir, upload);
}

/** Sweeps every upload whose lease ran out; answers how many it removed. */
export async function sweepExpiredUploads(deps: AppDeps): Promise<number> {
  const db = deps.db.db;
  let swept = 0;
  for (;;) {
    const expired = await expiredLeases(db, iso(deps), SWEEP_BATCH);
    for (const row of expired) {
      // take the lease over (compare-and-set): one sweeper per upload, and never a lease renewed meanwhile
      const owner = token();
      if (!(await takeLeaseOver(db, row, owner, iso(deps, UPLOAD_LEASE_MS)))) continue;
      await removeLeftovers(deps, row);
      await deleteLease(db, row.id, owner);
      swept++;
    }
    if (expired.length < SWEEP_BATCH) return swept;
  }
}

async function entries(dir: string, want: 'dir' | 'file'): Promise<string[]> {
  try {
    const list = await fs.promises.readdir(dir, { withFileTypes: true });
    return list.filter((e) => (want === 'dir' ? e.isDirectory() : e.isFile())).map((e) => e.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** The names of `names` that neither a row (`known`) nor a lease claims. */
async function unclaimed(db: Kysely<DB>, names: string[], known: (batch: string[]) => Promise<string[]>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < names.length; i += SCAN_BATCH) {
    const batch = names.slice(i, i + SCAN_BATCH);
    const [rows, leases] = await Promise.all([known(batch), leasedIds(db, batch)]);
    const claimed = new Set([...rows, ...leases]);
    out.push(...batch.filter((n) => !claimed.has(n)));
  }
  return out;
}

/** Removes knowledge-base directories and uploaded files that no row and no lease claims. */
export async function sweepOrphanFiles(deps: AppDeps): Promise<{ directories: number; files: number }> {
  const db = deps.db.db;
  let directories = 0;
  const kbRoot = path.join(deps.config.dataDir, 'knowledge-base');
  for (const company of await entries(kbRoot, 'dir')) {
    const ids = await entries(path.join(kbRoot, company), 'dir');
    for (const id of await unclaimed(db, ids, (batch) => knowledgeBaseIds(db, batch))) {
      await fs.promises.rm(path.join(kbRoot, company, id), { recursive: true, force: true });
      directories++;
    }
  }
  const uploads = uploadsDir(deps.config.dataDir);
  const names = await entries(uploads, 'file');
  const orphans = await unclaimed(db, names, (batch) => fileNames(db, batch));
  for (const name of orphans) await fs.promises.rm(path.join(uploads, name), { force: true });
  return { directories, files: orphans.length };
}

/**
 * At start: sweeps run-out leases and orphaned files once, then the leases every UPLOAD_LEASE_MS (a
 * request killed just before this start still holds a live lease for up to a minute). In the
 * background: the server listens meanwhile (a periodic job, server/platform/jobs/periodic.ts). `stop()` ends
 * the timer and waits for a sweep in flight.
 */
export function startUploadSweeper(deps: AppDeps, everyMs = UPLOAD_LEASE_MS): PeriodicJob {
  const sweeper = definePeriodicJob(deps, {
    name: 'upload sweep',
    everyMs,
    logAs: 'swept what interrupted uploads left',
    run: async ({ first }) => ({
      uploads: await sweepExpiredUploads(deps),
      ...(first ? await sweepOrphanFiles(deps) : {}),
    }),
  });
  sweeper.start();
  return sweeper;
}
