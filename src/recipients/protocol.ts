import type { RecipientsChunk, RecipientsSummary } from './parser';

/** Page -> worker. */
export interface WorkerRequest {
  file: File;
}

/** Worker -> page, in this order: header, then progress and chunks interleaved, then done (or failed). */
export type WorkerReply =
  | { type: 'header'; columns: string[]; phoneIndex: number }
  | { type: 'chunk'; chunk: RecipientsChunk }
  | { type: 'progress'; loaded: number; size: number }
  | { type: 'done'; summary: RecipientsSummary }
  | { type: 'failed'; reason: string };
