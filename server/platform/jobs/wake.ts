/**
 * The wake channel of one app's background jobs. A module that queues work (a webhook delivery, an
 * analysis, a knowledge-base job) wakes the workers of its table at once; their poll is only the
 * fallback. The channel is held by the app's deps object (`AppDeps.jobs`, made on first use), so two
 * apps in one process (tests build one per test, several servers in one test share a database) wake
 * only their own workers.
 *
 *   wakeChannel(deps).wake('call_analyses');                           // after the insert
 *   const off = wakeChannel(deps).on('call_analyses', () => loop.wake()); // a worker, until it stops
 */
export class WakeChannel {
  private readonly topics = new Map<string, Set<() => void>>();

  /** Calls `listener` on every wake of `topic` until the returned function is called. */
  on(topic: string, listener: () => void): () => void {
    const set = this.topics.get(topic) ?? new Set<() => void>();
    this.topics.set(topic, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.topics.delete(topic);
    };
  }

  /** Wakes every listener of `topic` (none listening: nothing happens, the work waits in its table). */
  wake(topic: string): void {
    for (const listener of [...(this.topics.get(topic) ?? [])]) listener();
  }

  /** Listeners of `topic` now (tests). */
  listeners(topic: string): number {
    return this.topics.get(topic)?.size ?? 0;
  }
}

/** The app's wake channel, made on first use and kept on its deps object. */
export function wakeChannel(holder: { jobs?: WakeChannel | undefined }): WakeChannel {
  holder.jobs ??= new WakeChannel();
  return holder.jobs;
}
