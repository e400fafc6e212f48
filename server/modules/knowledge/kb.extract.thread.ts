/**
 * The worker thread that reads knowledge-base files (started by createExtractor in kb.extract.ts through
 * server/platform/workers/untrusted-worker.ts). pdf.js is loaded before the first task, so a task's time limit counts
 * reading only.
 */
import { loadPdfjs } from '../../platform/workers/pdf-text.js';
import { serveUntrusted } from '../../platform/workers/untrusted-worker.js';
import { type ExtractTask, extractChunks } from './kb.extract.js';

await loadPdfjs();
serveUntrusted((task: ExtractTask) => extractChunks(task));
