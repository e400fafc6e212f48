import { afterEach, describe, expect, it } from 'vitest';
import { createUntrustedPool, UntrustedLimitError, type UntrustedPool } from '../../server/platform/workers/untrusted-worker.js';
import type { SampleTask } from '../fixtures/sample.thread.js';

const SCRIPT = new URL('../fixtures/sample.thread.ts', import.meta.url);
type Out = { value: string; threadId: number };

describe('untrusted worker pool', () => {
  let pool: UntrustedPool<SampleTask, Out> | undefined;
  const open = (options: Partial<Parameters<typeof createUntrustedPool>[1]> = {}) => {
    pool = createUntrustedPool<SampleTask, Out>(SCRIPT, { timeMs: 10_000, memoryMb: 64, ...options });
    return pool;
  };
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('runs tasks off the main thread, one worker reused, in turn', async () => {
    const p = open();
    const [a, b] = await Promise.all([p.run({ op: 'echo', value: 'a' }), p.run({ op: 'echo', value: 'b' })]);
    expect([a.value, b.value]).toEqual(['a', 'b']);
    expect(a.threadId).toBeGreaterThan(0);
    expect(b.threadId).toBe(a.threadId);
  });

  it('terminates a task past its time limit while the event loop keeps running, then starts a fresh worker', async () => {
    const p = open({ timeMs: 1500 });
    const first = await p.run({ op: 'echo', value: 'warm' });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      const spun = p.run({ op: 'spin' });
      // the main thread answers while the worker spins
      await expect.poll(() => ticks, { timeout: 1000 }).toBeGreaterThan(5);
      await expect(spun).rejects.toMatchObject({ name: 'UntrustedLimitError', limit: 'time' });
    } finally {
      clearInterval(ticker);
    }
    const after = await p.run({ op: 'echo', value: 'again' });
    expect(after.value).toBe('again');
    expect(after.threadId).not.toBe(first.threadId);
  });

  it('ends a worker that passes its heap limit with a memory error, not the process', async () => {
    const p = open({ memoryMb: 24 });
    const error = await p.run({ op: 'hog' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UntrustedLimitError);
    expect(error).toMatchObject({ limit: 'memory' });
    expect((await p.run({ op: 'echo', value: 'alive' })).value).toBe('alive');
  });

  it("fails a task with its error's message and keeps the worker; a worker that exits fails its task", async () => {
    const p = open();
    const first = await p.run({ op: 'echo', value: 'x' });
    await expect(p.run({ op: 'throw' })).rejects.toThrow('bad input here');
    expect((await p.run({ op: 'echo', value: 'y' })).threadId).toBe(first.threadId);
    await expect(p.run({ op: 'exit' })).rejects.toMatchObject({ limit: 'crash' });
    expect((await p.run({ op: 'echo', value: 'z' })).value).toBe('z');
  });

  it('close() fails the queued tasks and ends the workers', async () => {
    const p = open();
    const running = p.run({ op: 'spin' }).catch((e: Error) => e.message);
    const queued = p.run({ op: 'echo', value: 'never' }).catch((e: Error) => e.message);
    await p.close();
    expect(await running).toMatch('closed');
    expect(await queued).toMatch('closed');
    await expect(p.run({ op: 'echo', value: 'late' })).rejects.toThrow('closed');
  });

  it('a worker script that cannot start fails each task once, without restarting in a loop', async () => {
    pool = createUntrustedPool<SampleTask, Out>(new URL('../fixtures/missing.thread.ts', import.meta.url), {
      timeMs: 5000,
      memoryMb: 32,
    });
    await expect(pool.run({ op: 'echo', value: 'a' })).rejects.toMatchObject({ limit: 'crash' });
    await expect(pool.run({ op: 'echo', value: 'b' })).rejects.toMatchObject({ limit: 'crash' });
  });
});
