/**
 * The app's event bus (server/platform/events.ts): handlers run in the order they subscribed, each awaited,
 * the first failure stops the rest and rejects the publish (so a publisher inside a transaction rolls back),
 * and a handler can be removed.
 */
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../server/platform/events.js';

interface TestEvents {
  ping: { n: number };
  other: string;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EventBus', () => {
  it('runs the handlers in subscription order, each awaited before the next, and only those of the event', async () => {
    const bus = new EventBus<TestEvents>();
    const seen: string[] = [];
    bus.on('ping', async ({ n }) => {
      await tick();
      seen.push(`first ${n}`);
    });
    bus.on('ping', ({ n }) => {
      seen.push(`second ${n}`);
    });
    bus.on('other', (text) => {
      seen.push(`other ${text}`);
    });
    await bus.publish('ping', { n: 1 });
    expect(seen).toEqual(['first 1', 'second 1']);
    await bus.publish('other', 'x');
    expect(seen).toEqual(['first 1', 'second 1', 'other x']);
  });

  it('rejects with the first error, and the handlers after it do not run', async () => {
    const bus = new EventBus<TestEvents>();
    const seen: number[] = [];
    bus.on('ping', async () => {
      throw new Error('refused');
    });
    bus.on('ping', ({ n }) => {
      seen.push(n);
    });
    await expect(bus.publish('ping', { n: 2 })).rejects.toThrow('refused');
    expect(seen).toEqual([]);
  });

  it('a removed handler no longer runs; publishing an event nobody listens to does nothing', async () => {
    const bus = new EventBus<TestEvents>();
    const seen: number[] = [];
    const off = bus.on('ping', ({ n }) => {
      seen.push(n);
    });
    await bus.publish('ping', { n: 1 });
    off();
    off();
    await bus.publish('ping', { n: 2 });
    await bus.publish('other', 'nobody');
    expect(seen).toEqual([1]);
  });

  it('two buses share nothing (one per app)', async () => {
    const a = new EventBus<TestEvents>();
    const b = new EventBus<TestEvents>();
    const seen: string[] = [];
    a.on('other', (t) => {
      seen.push(`a ${t}`);
    });
    await b.publish('other', 'x');
    expect(seen).toEqual([]);
  });
});
