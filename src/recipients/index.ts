/**
 * Reading a recipients file from the page: starts the worker, rebuilds the rows in a RecipientsTable as
 * chunks arrive, reports progress, and ends with the summary (or the reason the file was refused).
 * `performance` marks 'recipients:parse:start' / 'recipients:parse:end' bracket the work (the bench
 * reads them).
 */
import type { RecipientsSummary } from './parser';
import type { WorkerReply } from './protocol';
import { RecipientsTable } from './table';

export type { RecipientsChunk, RecipientsSummary } from './parser';
export type { RecipientRow } from './table';
export { RecipientsTable };

export interface ParseHandlers {
  progress(loaded: number, size: number): void;
  done(summary: RecipientsSummary, table: RecipientsTable): void;
  failed(reason: string): void;
}

/** Parses `file` in a worker; returns the function that stops it. */
export function parseRecipientsFile(file: File, on: ParseHandlers): () => void {
  performance.mark('recipients:parse:start');
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'recipients' });
  let table: RecipientsTable | undefined;
  let over = false;
  const stop = () => {
    over = true;
    worker.terminate();
  };
  worker.onmessage = (event: MessageEvent<WorkerReply>) => {
    if (over) return;
    const reply = event.data;
    if (reply.type === 'header') table = new RecipientsTable(reply.columns, reply.phoneIndex);
    else if (reply.type === 'chunk') table?.add(reply.chunk);
    else if (reply.type === 'progress') on.progress(reply.loaded, reply.size);
    else {
      stop();
      performance.mark('recipients:parse:end');
      if (reply.type === 'failed') on.failed(reply.reason);
      else on.done(reply.summary, table ?? new RecipientsTable(reply.summary.columns, reply.summary.phoneIndex));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    if (over) return;
    stop();
    on.failed('The CSV file could not be read. Please try again.');
  };
  worker.postMessage({ file });
  return stop;
}
