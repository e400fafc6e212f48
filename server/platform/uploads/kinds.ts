/**
 * The kinds of upload the mark-and-sweep of server/platform/uploads/pending-uploads.ts knows. Each module
 * that streams an upload to disk or to rows outside a transaction says how to tell it became part of the
 * data and how to remove what it left; server/compose.ts puts them together (`deps.uploads`).
 */
import type { Kysely } from 'kysely';
import type { DB, PendingUploadsTable } from '../db/schema.js';

export type PendingKind = PendingUploadsTable['kind'];

/** An upload as its lease recorded it. */
export interface UploadRef {
  id: string;
  companyId: string | null;
}

export interface UploadKind {
  /** A row of the data refers to the upload (it is part of the data): the sweep never removes it. */
  isLive(db: Kysely<DB>, upload: UploadRef): Promise<boolean>;
  /** Removes what the upload wrote (its rows, its directory, its file under `dataDir`). */
  remove(db: Kysely<DB>, dataDir: string, upload: UploadRef): Promise<void>;
}

export type UploadKinds = Record<PendingKind, UploadKind>;

/** One path segment of ours: no separators, no dot names (an id read back from the database before it becomes a path). */
export const safeName = (s: string) => /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(s) && !s.includes('..');
