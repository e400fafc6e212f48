/**
 * A pool of worker threads for work on untrusted input (a tenant's documents, and later other parsers):
 * whatever the input does, the server's event loop keeps running.
 *
 * - Each task runs in a worker thread (node:worker_threads) with a V8 heap limit (`resourceLimits`,
 *   `memoryMb`): a task that needs more ends its worker (ERR_WORKER_OUT_OF_MEMORY) and fails with
 *   UntrustedLimitError('memory'); the process is not affected.
 * - A wall-clock limit (`timeMs`) per task, counted from the moment the worker receives it: past it the
 *   worker is terminated (synchronous code included) and the task fails with UntrustedLimitError('time').
 * - A worker that exits or throws outside a task fails its task with UntrustedLimitError('crash').
 * - At most `size` workers at once; further tasks wait their turn (the time limit starts when they run).
 *   Workers are reused (`maxTasks` each), ended after `idleMs` without work, never keep the process alive
 *   (unref) and all end on close().
 * Memory outside the V8 heap (ArrayBuffers) is not counted by `resourceLimits`: a task that allocates such
 * memory from its input must bound it itself (see the PDF decode budget in server/platform/workers/pdf-text.ts).
 *
 * Worker scripts are `*.thread.ts` files that call serveUntrusted(handler). From source (tsx, vitest) the
 * worker loads the .ts file through tsx; the build (scripts/build.mjs) bundles every `server/**\/*.thread.ts`
 * beside dist/server/main.js under the same name with .js, which is what runs once built.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

export type UntrustedLimit = 'time' | 'memory' | 'crash';

/** The task hit a limit (or killed its worker): the input is to blame, running it again would do the same. */
export class UntrustedLimitError extends Error {
  constructor(
    readonly limit: UntrustedLimit,
    message: string,
  ) {
    super(message);
    this.name = 'UntrustedLimitError';
  }
}

export interface UntrustedPoolOptions {
  /** wall-clock limit of one task, ms */
  timeMs: number;
  /** V8 heap limit of a worker (old generation), MB */
  memoryMb: number;
  /** workers at most (default 1) */
  size?: number;
  /** a worker is ended after this long without work (default 30 s) */
  idleMs?: number;
  /** a worker is replaced after this many tasks (default 50) */
  maxTasks?: number;
  /** how long a new worker may take to load its script (default 30 s) */
  startMs?: number;
}

export interface UntrustedPool<In, Out> {
  run(input: In): Promise<Out>;
  /** ends every worker; queued tasks fail */
  close(): Promise<void>;
}

type Reply<Out> = { ready: true } | { id: number; ok: true; value: Out } | { id: number; ok: false; message: string };

interface Task<In, Out> {
  id: number;
  input: In;
  resolve(value: Out): void;
  reject(error: Error): void;
}

interface Slot<In, Out> {
  worker: Worker;
  ready: boolean;
  tasks: number;
  task?: Task<In, Out>;
  timer?: ReturnType<typeof setTimeout>;
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * How the worker's code is started: the bundled .js beside main.js, or (from source) a bootstrap that
 * registers tsx in the new thread and imports the .ts file (Node 20 does not apply `--import` to workers).
 */
function workerEntry(script: URL): { code: URL | string; eval: boolean } {
  if (!FROM_SOURCE)
    return { code: new URL(`./${path.basename(script.pathname).replace(/\.ts$/, '.js')}`, import.meta.url), eval: false };
  const tsxDir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href;
  return {
    code: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); });`,
    eval: true,
  };
}

export function createUntrustedPool<In, Out>(script: URL, options: UntrustedPoolOptions): UntrustedPool<In, Out> {
  const size = options.size ?? 1;
  const idleMs = options.idleMs ?? 30_000;
  const maxTasks = options.maxTasks ?? 50;
  const startMs = options.startMs ?? 30_000;
  const entry = workerEntry(script);
  const slots = new Set<Slot<In, Out>>();
  const queue: Task<In, Out>[] = [];
  let nextId = 1;
  let closed = false;

  function settle(slot: Slot<In, Out>, outcome: { value: Out } | { error: Error }) {
    const task = slot.task;
    if (!task) return;
    slot.task = undefined;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    if ('error' in outcome) task.reject(outcome.error);
    else task.resolve(outcome.value);
  }

  function end(slot: Slot<In, Out>, error: UntrustedLimitError) {
    if (!slots.delete(slot)) return;
    settle(slot, { error });
    // a worker that could not even start fails the task it was started for (never a loop of restarts)
    if (!slot.ready) queue.shift()?.reject(error);
    void slot.worker.terminate();
    dispatch();
  }

  /** a worker without a task: ended after idleMs, or at once when it has done its share */
  function idle(slot: Slot<In, Out>) {
    if (slot.tasks >= maxTasks) {
      slots.delete(slot);
      void slot.worker.terminate();
      return;
    }
    slot.timer = setTimeout(() => {
      slots.delete(slot);
      void slot.worker.terminate();
    }, idleMs).unref();
  }

  function spawn(): Slot<In, Out> {
    const worker = new Worker(entry.code, {
      eval: entry.eval,
      execArgv: [],
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.round(options.memoryMb / 8))),
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot<In, Out> = { worker, ready: false, tasks: 0 };
    slot.timer = setTimeout(() => end(slot, new UntrustedLimitError('crash', 'The worker did not start')), startMs);
    worker.on('message', (reply: Reply<Out>) => {
      if ('ready' in reply) {
        slot.ready = true;
        clearTimeout(slot.timer);
        slot.timer = undefined;
        dispatch();
        return;
      }
      if (slot.task?.id !== reply.id) return;
      settle(slot, reply.ok ? { value: reply.value } : { error: new Error(reply.message) });
      idle(slot);
      dispatch();
    });
    worker.on('error', (e: Error & { code?: string }) =>
      end(
        slot,
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new UntrustedLimitError('memory', 'The task ran out of memory')
          : new UntrustedLimitError('crash', `The worker failed: ${e.message}`),
      ),
    );
    worker.on('exit', (code) => end(slot, new UntrustedLimitError('crash', `The worker exited (code ${code})`)));
    slots.add(slot);
    return slot;
  }

  function dispatch() {
    while (!closed && queue.length) {
      const slot = [...slots].find((s) => s.ready && !s.task);
      if (!slot) {
        // a worker still starting takes the next task once ready; start another while there is room
        const starting = [...slots].filter((s) => !s.ready).length;
        if (starting < queue.length && slots.size < size) spawn();
        return;
      }
      const task = queue.shift()!;
      clearTimeout(slot.timer);
      slot.task = task;
      slot.tasks++;
      slot.timer = setTimeout(
        () => end(slot!, new UntrustedLimitError('time', 'The task ran past its time limit')),
        options.timeMs,
      );
      slot.worker.postMessage({ id: task.id, input: task.input });
    }
  }

  return {
    run(input) {
      if (closed) return Promise.reject(new Error('The worker pool is closed'));
      return new Promise<Out>((resolve, reject) => {
        queue.push({ id: nextId++, input, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error('The worker pool is closed'));
      const ending = [...slots].map((slot) => {
        slots.delete(slot);
        settle(slot, { error: new Error('The worker pool is closed') });
        clearTimeout(slot.timer);
        return slot.worker.terminate();
      });
      await Promise.all(ending);
    },
  };
}

/**
 * Gives this thread the lowest CPU priority, so the event loop wins the CPU whenever both want it. Linux
 * keeps a nice value per thread (setpriority on the thread's id, found at /proc/thread-self); elsewhere
 * this does nothing.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (Number.isInteger(tid) && tid !== process.pid) os.setPriority(tid, 19);
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}

/**
 * The worker side: answers every task the pool sends with `handle(input)`. A thrown error fails the task
 * with its message (the worker stays); call it once, at the top of a `*.thread.ts` file.
 */
export function serveUntrusted<In, Out>(handle: (input: In) => Out | Promise<Out>): void {
  if (isMainThread || !parentPort) throw new Error('serveUntrusted runs inside a worker thread');
  lowerThreadPriority();
  const port = parentPort;
  port.on('message', async ({ id, input }: { id: number; input: In }) => {
    let reply: Reply<Out>;
    try {
      reply = { id, ok: true, value: await handle(input) };
    } catch (e) {
      reply = { id, ok: false, message: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies Reply<Out>);
}
