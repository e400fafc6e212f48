import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../../server/platform/jobs/concurrency.js';

/** A task that runs until its gate opens; records that it started. */
function gated(started: number[], id: number) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  return {
    open: () => open(),
    task: async () => {
      started.push(id);
      await gate;
      return id;
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('concurrencyLimit', () => {
  it('runs at most max tasks at once, the rest in arrival order, and refuses past the queue', async () => {
    const started: number[] = [];
    const limit = concurrencyLimit({ max: 2, queueMax: 3, onFull: () => new Error('full') });
    const tasks = [1, 2, 3, 4, 5].map((id) => gated(started, id));
    const results = tasks.map((t) => limit.run(t.task));
    await flush();
    expect(started).toEqual([1, 2]);
    expect([limit.active, limit.waiting]).toEqual([2, 3]);

    // the queue is full: the sixth is refused at once and never runs
    await expect(limit.run(async () => 6)).rejects.toThrow('full');

    tasks[1]!.open();
    await flush();
    expect(started).toEqual([1, 2, 3]);
    expect([limit.active, limit.waiting]).toEqual([2, 2]);
    tasks[0]!.open();
    await flush();
    expect(started).toEqual([1, 2, 3, 4]);
    for (const t of tasks) t.open();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
    expect([limit.active, limit.waiting]).toEqual([0, 0]);
  });

  it('frees the slot of a task that fails', async () => {
    const limit = concurrencyLimit({ max: 1, queueMax: 0, onFull: () => new Error('full') });
    await expect(
      limit.run(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(limit.active).toBe(0);
    expect(await limit.run(async () => 'next')).toBe('next');
  });
});
