/**
 * Starts a TypeScript file as a worker thread (a worker does not inherit the loader its parent runs under):
 * `new Worker(new URL('./ts-worker.mjs', import.meta.url), { workerData: { entry: <file URL>, ... } })`.
 */
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
