import { createHistogram } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventLoopMonitor, type EventLoopMonitor } from '../../server/platform/log/event-loop.js';

const ms = (n: number) => Math.round(n * 1e6);
/** a sample of monitorEventLoopDelay at 10 ms resolution whose loop was late by `late` ms */
const sample = (late: number) => ms(10 + late);

describe('event-loop monitor', () => {
  let monitor: EventLoopMonitor | undefined;
  afterEach(() => monitor?.stop());

  it('reports the p99 and max delay of the last minute, and forgets what is older', () => {
    const h = createHistogram();
    let now = 0;
    monitor = createEventLoopMonitor({ histogram: h, now: () => now, windowMs: 60_000, intervalMs: 5_000, resolutionMs: 10 });
    expect(monitor.health()).toEqual({ p99_ms: 0, max_ms: 0, window_s: 0 });

    // a stall in the first interval: 2% of the samples 200 ms late, the rest 1 ms
    for (let i = 0; i < 980; i++) h.record(sample(1));
    for (let i = 0; i < 20; i++) h.record(sample(200));
    now = 5_000;
    monitor.rotate();
    const during = monitor.health();
    expect(during.p99_ms).toBeGreaterThanOrEqual(199);
    expect(during.p99_ms).toBeLessThanOrEqual(201);
    expect(during.max_ms).toBeGreaterThanOrEqual(199);
    expect(during.window_s).toBe(5);

    // a quiet minute later the stall is out of the window
    for (let t = 10_000; t <= 65_000; t += 5_000) {
      for (let i = 0; i < 500; i++) h.record(sample(2));
      now = t;
      monitor.rotate();
    }
    now = 66_000;
    const after = monitor.health();
    expect(after.max_ms).toBeGreaterThanOrEqual(1.9);
    expect(after.max_ms).toBeLessThanOrEqual(2.1);
    expect(after.p99_ms).toBeLessThanOrEqual(2.1);
    expect(after.window_s).toBeLessThanOrEqual(60);
    expect(after.window_s).toBeGreaterThanOrEqual(55);
  });

  it('weighs a short stall by its samples: 1 slow sample in 1000 moves the max, not the p99', () => {
    const h = createHistogram();
    monitor = createEventLoopMonitor({ histogram: h, now: () => 0 });
    for (let i = 0; i < 999; i++) h.record(sample(1));
    h.record(sample(500));
    const health = monitor.health();
    expect(health.max_ms).toBeGreaterThanOrEqual(499);
    expect(health.p99_ms).toBeLessThan(2);
  });

  it('measures the real loop with monitorEventLoopDelay, and stop() leaves no timer behind', async () => {
    const running = createEventLoopMonitor({ resolutionMs: 10, intervalMs: 50 });
    monitor = running;
    let rotations = 0;
    const rotate = running.rotate;
    running.rotate = () => {
      rotations++;
      rotate();
    };
    const wait = (n: number) => new Promise((r) => setTimeout(r, n));
    await wait(30);
    const end = performance.now() + 300;
    while (performance.now() < end) {
      // hold the loop: the monitor must see it
    }
    await wait(120);
    expect(running.health().max_ms).toBeGreaterThanOrEqual(200);
    expect(rotations).toBeGreaterThan(0);
    running.stop();
    const stoppedAt = rotations;
    await wait(150);
    expect(rotations).toBe(stoppedAt);
  });
});
