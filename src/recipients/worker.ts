/// <reference lib="webworker" />
/**
 * The recipients worker: streams a CSV File, decodes UTF-8 across chunk boundaries, feeds the
 * reader of ./parser.ts and posts progress, row chunks and the summary to the page. Nothing here
 * touches the page, so parsing 50 MB never blocks it.
 */
import { createRecipientsReader, RecipientsFileError } from './parser';
import type { WorkerReply, WorkerRequest } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

/** Bytes parsed per step; also the granularity of the progress bar. */
const SLICE = 1 << 20;

const post = (reply: WorkerReply, transfer: Transferable[] = []) => self.postMessage(reply, transfer);

async function read(file: File) {
  const reader = createRecipientsReader({
    header: (h) => post({ type: 'header', columns: h.columns, phoneIndex: h.phoneIndex }),
    chunk: (chunk) => post({ type: 'chunk', chunk }, [chunk.status.buffer, chunk.offsets.buffer]),
  });
  // the file's own stream: the browser reads ahead while the parser works
  const bytes = file.stream().getReader();
  const decoder = new TextDecoder('utf-8');
  let loaded = 0;
  let text: string[] = [];
  let pending = 0;
  for (;;) {
    const { done, value } = await bytes.read();
    if (value) {
      loaded += value.byteLength;
      pending += value.byteLength;
      text.push(decoder.decode(value, { stream: true }));
    }
    if (pending >= SLICE || done) {
      reader.push(text.join(''));
      text = [];
      pending = 0;
      post({ type: 'progress', loaded, size: file.size });
    }
    if (done) break;
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
