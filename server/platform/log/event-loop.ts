/**
 * Event-loop health over a sliding window (GET /api/v1/health reports it).
 *
 * `perf_hooks.monitorEventLoopDelay` samples the loop every `resolutionMs` (a libuv timer) into a
 * histogram that only grows. Every `intervalMs` this module folds that histogram into a summary of the
 * interval (its sample count, its max and its percentile points) and resets it; the closed intervals
 * that started within the last `windowMs` plus the one in progress make "the last minute" (between
 * windowMs - intervalMs and windowMs of samples; `window_s` says which). The p99 of the
 * window is read from the merged percentile points, each weighted by the share of its interval's samples
 * it stands for (an HDR histogram's percentile iteration, so the figure is its value at or just above the
 * true p99: never below it).
 *
 * A sample is the time between two ticks of the timer; the delay is what exceeds `resolutionMs`.
 * Started by main.ts, stopped on shutdown; tests start their own (or drive `rotate` on a histogram they
 * record into) and stop it, so no timer outlives them.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface EventLoopHealth {
  /** 99th percentile of the event-loop delay over the window, ms */
  p99_ms: number;
  /** the longest delay seen in the window, ms */
  max_ms: number;
  /** the time the window covers, s (less than the window until the server has run that long) */
  window_s: number;
}

/** What the monitor reads: monitorEventLoopDelay's histogram, or a recordable one in tests. */
export interface DelayHistogram {
  readonly count: number;
  readonly max: number;
  readonly percentiles: Map<number, number>;
  reset(): void;
}

export interface EventLoopMonitor {
  health(): EventLoopHealth;
  /** closes the interval in progress (the timer calls it every intervalMs) */
  rotate(): void;
  stop(): void;
}

export interface EventLoopMonitorOptions {
  windowMs?: number;
  intervalMs?: number;
  resolutionMs?: number;
  /** the histogram to read instead of monitorEventLoopDelay's; no timer is started (tests call rotate) */
  histogram?: DelayHistogram;
  now?: () => number;
}

interface IntervalSummary {
  startedAt: number;
  count: number;
  max: number;
  /** [value in ns, number of samples it stands for] */
  points: [number, number][];
}

function summarise(h: DelayHistogram, startedAt: number): IntervalSummary {
  const points: [number, number][] = [];
  let previous = 0;
  for (const [percentile, value] of [...h.percentiles].sort((a, b) => a[0] - b[0])) {
    const weight = (h.count * (percentile - previous)) / 100;
    if (weight > 0) points.push([value, weight]);
    previous = percentile;
  }
  return { startedAt, count: h.count, max: h.count ? h.max : 0, points };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function createEventLoopMonitor(options: EventLoopMonitorOptions = {}): EventLoopMonitor {
  const windowMs = options.windowMs ?? 60_000;
  const intervalMs = options.intervalMs ?? 5_000;
  const resolutionMs = options.resolutionMs ?? 10;
  const now = options.now ?? (() => performance.now());
  const eld = options.histogram ? undefined : monitorEventLoopDelay({ resolution: resolutionMs });
  eld?.enable();
  const source: DelayHistogram = options.histogram ?? eld!;
  /** closed intervals, oldest first, and when the one in progress started */
  const intervals: IntervalSummary[] = [];
  let currentStart = now();
  const toDelayMs = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  /** drops the closed intervals that started before the window */
  const prune = (t: number) => {
    while (intervals.length && intervals[0]!.startedAt < t - windowMs) intervals.shift();
  };

  const monitor: EventLoopMonitor = {
    rotate() {
      intervals.push(summarise(source, currentStart));
      source.reset();
      currentStart = now();
      prune(currentStart);
    },
    health() {
      const t = now();
      // the closed intervals that started inside the window, and the one in progress
      prune(t);
      const all = [...intervals, summarise(source, currentStart)];
      const total = all.reduce((n, i) => n + i.count, 0);
      const points = all.flatMap((i) => i.points).sort((a, b) => a[0] - b[0]);
      let p99 = 0;
      let seen = 0;
      for (const [value, weight] of points) {
        seen += weight;
        p99 = value;
        if (seen >= total * 0.99) break;
      }
      const max = Math.max(0, ...all.map((i) => i.max));
      return {
        p99_ms: round1(total ? toDelayMs(p99) : 0),
        max_ms: round1(total ? toDelayMs(max) : 0),
        window_s: round1((t - all[0]!.startedAt) / 1000),
      };
    },
    stop() {
      clearInterval(timer);
      eld?.disable();
    },
  };
  const timer = eld ? setInterval(() => monitor.rotate(), intervalMs).unref() : undefined;
  return monitor;
}
