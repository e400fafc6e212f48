/// <reference lib="webworker" />
/**
 * The recipients worker: reads a CSV File in slices, decodes UTF-8 across slice boundaries, feeds the
 * reader of ./parser.ts and posts progress, row chunks and the summary to the page. Nothing here
 * touches the page, so parsing 50 MB never blocks it.
 */
import { createRecipientsReader, RecipientsFileError } from './parser';
import type { WorkerReply, WorkerRequest } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

/** Bytes read per step; also the granularity of the progress bar. */
const SLICE = 1 << 20;

const post = (reply: WorkerReply, transfer: Transferable[] = []) => self.postMessage(reply, transfer);

async function read(file: File) {
  const reader = createRecipientsReader({
    header: (h) => post({ type: 'header', columns: h.columns, phoneIndex: h.phoneIndex }),
    chunk: (chunk) => post({ type: 'chunk', chunk }, [chunk.status.buffer, chunk.offsets.buffer]),
  });
  const decoder = new TextDecoder('utf-8');
  for (let start = 0; start < file.size; start += SLICE) {
    const bytes = new Uint8Array(await file.slice(start, start + SLICE).arrayBuffer());
    reader.push(decoder.decode(bytes, { stream: true }));
    post({ type: 'progress', loaded: Math.min(file.size, start + SLICE), size: file.size });
  }
  reader.push(decoder.decode());
  post({ type: 'done', summary: reader.end() });
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  read(event.data.file).catch((e: unknown) => {
    const reason = e instanceof RecipientsFileError ? e.message : 'The CSV file could not be read. Please try again.';
    post({ type: 'failed', reason });
  });
};
