import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppDatabase, DbKind } from '../../../server/platform/db/index.js';
import { takeLease } from '../../../server/platform/jobs/jobs.repo.js';
import { defineLeasedJob, type JobOutcome, type JobRow, type LeasedJob } from '../../../server/platform/jobs/leased-job.js';
import { definePeriodicJob } from '../../../server/platform/jobs/periodic.js';
import { type WakeChannel, wakeChannel } from '../../../server/platform/jobs/wake.js';
import { createLogger } from '../../../server/platform/log/logger.js';
import { describeEachDb, FakeClock, freshDatabase } from '../helpers.js';

/**
 * The leased-job library (server/platform/jobs/leased-job.ts) on a real database: the claim, the lease
 * and its expiry, retry with backoff and the last attempt, fairness between companies, the stored status
 * names, the wake channel of one app; and the periodic jobs (periodic.ts). Jobs here are rows of
 * `call_analyses` handled by test handlers.
 */

type Row = JobRow<'call_analyses'>;

describeEachDb('leased jobs', (kind: DbKind) => {
  let db: AppDatabase;
  let clock: FakeClock;
  let deps: { db: AppDatabase; clock: FakeClock; logger: ReturnType<typeof createLogger>; jobs?: WakeChannel };
  const started: LeasedJob[] = [];
  const logged: string[] = [];

  beforeEach(async () => {
    db = await freshDatabase(kind);
    clock = new FakeClock();
    logged.length = 0;
    deps = { db, clock, logger: createLogger('debug', (line) => logged.push(line)) };
    for (const id of ['co-a', 'co-b', 'co-c'])
      await db.db.insertInto('companies').values({ id, name: id, created_at: clock.now().toISOString() }).execute();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((j) => j.stop()));
    await db.close();
  });

  let seq = 0;
  async function queue(companyId: string, n = 1, at = clock.now()): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      // ordered by their due time within the company: oldest first
      const id = `job-${String(++seq).padStart(4, '0')}`;
      const due = new Date(at.getTime() + i).toISOString();
      await db.db
        .insertInto('call_analyses')
        .values({
          call_id: id,
          company_id: companyId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: due,
          lease_until: null,
          worker: null,
          result: null,
          error: null,
          created_at: due,
          updated_at: due,
        })
        .execute();
      ids.push(id);
    }
    return ids;
  }
  const row = (id: string) => db.db.selectFrom('call_analyses').selectAll().where('call_id', '=', id).executeTakeFirstOrThrow();

  function job(
    handle: (row: Row) => Promise<JobOutcome>,
    o: {
      workerId?: string;
      attempts?: number;
      concurrency?: number;
      perCompany?: number;
      pollMs?: number;
      statuses?: { running?: string; done?: string };
    } = {},
  ) {
    const j = defineLeasedJob(
      deps,
      {
        name: 'test job',
        table: 'call_analyses',
        key: 'call_id',
        statuses: o.statuses,
        leaseMs: () => 60_000,
        pollMs: o.pollMs ?? 60_000,
        retry: { attempts: () => o.attempts ?? 3, backoffMs: (attempt) => attempt * 10_000 },
        concurrency: () => o.concurrency ?? 4,
        perCompany: () => o.perCompany ?? 4,
        handle,
        exhausted: () => ({ set: { error: 'gave up' } }),
      },
      { workerId: o.workerId },
    );
    started.push(j);
    return j;
  }

  it('runs a due row once, stores done with its columns, and never runs a row before it is due', async () => {
    const [id] = await queue('co-a', 1, new Date(clock.now().getTime() + 5000));
    const seen: string[] = [];
    const j = job(async (r) => {
      seen.push(r.call_id);
      return { status: 'done', set: { result: '{"ok":true}' } };
    });
    expect(await j.runOnce()).toBe(0);
    clock.advance(5000);
    expect(await j.runOnce()).toBe(1);
    expect(await j.runOnce()).toBe(0);
    expect(seen).toEqual([id]);
    expect(await row(id as string)).toMatchObject({ status: 'done', attempts: 1, lease_until: null, result: '{"ok":true}' });
  });

  it('a lease that runs out gives the row to another worker; the first one cannot store its outcome over it', async () => {
    const [id] = await queue('co-a');
    let releaseDead!: () => void;
    const dead = job(
      (r) =>
        new Promise<JobOutcome>((resolve) => {
          releaseDead = () => resolve({ status: 'done', set: { result: `by ${r.worker}` } });
        }),
      { workerId: 'dead' },
    );
    const deadRun = dead.runOnce();
    await vi.waitFor(async () => expect(await row(id as string)).toMatchObject({ status: 'running', worker: 'dead' }));
    const alive = job(async (r) => ({ status: 'done', set: { result: `by ${r.worker}` } }), { workerId: 'alive' });
    // leased: nobody else takes it
    clock.advance(59_000);
    expect(await alive.runOnce()).toBe(0);
    // the lease ran out: taken over, the attempt counted
    clock.advance(1001);
    expect(await alive.runOnce()).toBe(1);
    expect(await row(id as string)).toMatchObject({ status: 'done', worker: 'alive', attempts: 2, result: 'by alive' });
    releaseDead();
    await deadRun;
    expect(await row(id as string)).toMatchObject({ status: 'done', worker: 'alive', result: 'by alive' });
  });

  it('renew() keeps the lease while the run goes on, and says false once another worker took the row', async () => {
    const [id] = await queue('co-a');
    let finish!: () => void;
    let renew: (() => Promise<boolean>) | undefined;
    const renewing = defineLeasedJob(
      deps,
      {
        name: 'renewing job',
        table: 'call_analyses',
        key: 'call_id',
        leaseMs: () => 60_000,
        pollMs: 60_000,
        retry: { attempts: () => 3, backoffMs: () => 0 },
        concurrency: () => 1,
        perCompany: () => 1,
        exhausted: () => ({}),
        handle: (_r, run) => {
          renew = run.renew;
          return new Promise<JobOutcome>((resolve) => {
            finish = () => resolve({ status: 'done', set: { result: 'by renewer' } });
          });
        },
      },
      { workerId: 'renewer' },
    );
    started.push(renewing);
    const running = renewing.runOnce();
    await vi.waitFor(() => expect(renew).toBeTypeOf('function'));
    clock.advance(50_000);
    const renewals = [await renew?.()];
    // 50 s later the renewed lease still holds
    clock.advance(50_000);
    const other = job(async () => ({ status: 'done', set: { result: 'by other' } }), { workerId: 'other' });
    expect(await other.runOnce()).toBe(0);
    // it runs out: the other worker takes it, and the renewal says so
    clock.advance(10_001);
    expect(await other.runOnce()).toBe(1);
    renewals.push(await renew?.());
    expect(renewals).toEqual([true, false]);
    finish();
    await running;
    expect(await row(id as string)).toMatchObject({ status: 'done', worker: 'other', result: 'by other' });
  });

  it('retries with the backoff, then fails after the last attempt; an error thrown is a retry with its message', async () => {
    const [id] = await queue('co-a');
    let calls = 0;
    const j = job(
      async () => {
        calls++;
        if (calls === 1) throw new Error('receiver down');
        return { status: 'retry', set: { error: `attempt ${calls} failed` } };
      },
      { attempts: 3 },
    );
    expect(await j.runOnce()).toBe(1);
    const first = await row(id as string);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, error: 'receiver down', lease_until: null });
    expect(first.next_attempt_at).toBe(new Date(clock.now().getTime() + 10_000).toISOString());
    clock.advance(9_999);
    expect(await j.runOnce()).toBe(0);
    clock.advance(1);
    expect(await j.runOnce()).toBe(1);
    expect((await row(id as string)).next_attempt_at).toBe(new Date(clock.now().getTime() + 20_000).toISOString());
    clock.advance(20_000);
    expect(await j.runOnce()).toBe(1);
    expect(await row(id as string)).toMatchObject({ status: 'failed', attempts: 3, error: 'attempt 3 failed' });
    clock.advance(3600_000);
    expect(await j.runOnce()).toBe(0);
    expect(calls).toBe(3);
  });

  it('a row claimed past its last attempt (its worker died each time) is failed without running', async () => {
    const [id] = await queue('co-a');
    await db.db.updateTable('call_analyses').set({ attempts: 3 }).execute();
    let calls = 0;
    const j = job(
      async () => {
        calls++;
        return { status: 'done' };
      },
      { attempts: 3 },
    );
    expect(await j.runOnce()).toBe(1);
    expect(calls).toBe(0);
    expect(await row(id as string)).toMatchObject({ status: 'failed', attempts: 4, error: 'gave up' });
  });

  it('claims fairly: every company its oldest first, round by round, and no company past its limit in flight', async () => {
    const a = await queue('co-a', 6);
    clock.advance(1000);
    const b = await queue('co-b', 2);
    clock.advance(1000);
    const c = await queue('co-c', 1);
    const order: string[] = [];
    const hang: (() => void)[] = [];
    const j = job(
      (r) => {
        order.push(r.call_id);
        return new Promise<JobOutcome>((resolve) => hang.push(() => resolve({ status: 'done' })));
      },
      { concurrency: 4, perCompany: 3 },
    );
    const first = j.runOnce();
    await vi.waitFor(() => expect(order).toHaveLength(4));
    // round one: each company's oldest (A's six older rows do not crowd B and C out); round two: A's second
    expect(order).toEqual([a[0], b[0], c[0], a[1]]);
    // another server allowing one per company takes nothing: every company already has one in flight
    const other = job(async (r) => ({ status: 'done', set: { result: r.call_id } }), { workerId: 'other', perCompany: 1 });
    expect(await other.runOnce()).toBe(0);
    for (const h of hang.splice(0)) h();
    await first;
    // once they ended: one of A's and B's second, the oldest first
    expect(await other.runOnce()).toBe(2);
    expect((await row(a[2] as string)).status).toBe('done');
    expect((await row(b[1] as string)).status).toBe('done');
  });

  it('takeLease (the claim primitive for queues with their own selection) takes a row once: a second taker of what it read gets false', async () => {
    const [id] = await queue('co-a');
    const take = (owner: string) =>
      takeLease(db.db, {
        table: 'call_analyses',
        where: { call_id: id as string, company_id: 'co-a' },
        status: { column: 'status', from: 'pending', to: 'running' },
        attempts: 0,
        set: { worker: owner, lease_until: clock.now().toISOString() },
      });
    expect(await take('first')).toBe(true);
    expect(await take('second')).toBe(false);
    expect(await row(id as string)).toMatchObject({ status: 'running', worker: 'first', attempts: 1 });
  });

  it('stores the names a table shows its users for running and done', async () => {
    const [id] = await queue('co-a');
    let during = '';
    const j = job(
      async (r) => {
        during = (await row(r.call_id)).status;
        return { status: 'done' };
      },
      { statuses: { running: 'sending', done: 'delivered' } },
    );
    expect(await j.runOnce()).toBe(1);
    expect(during).toBe('sending');
    expect((await row(id as string)).status).toBe('delivered');
  });

  it("is woken by its own app's channel at once (not by another app's), and stops listening when stopped", async () => {
    const other = { ...deps, jobs: undefined as WakeChannel | undefined };
    const ran: string[] = [];
    const j = job(
      async (r) => {
        ran.push(r.call_id);
        return { status: 'done' };
      },
      { pollMs: 60_000 },
    );
    j.start();
    // the first pass at start finds nothing; the next poll is a minute away
    await new Promise((r) => setTimeout(r, 50));
    const [x] = await queue('co-a');
    wakeChannel(other).wake('call_analyses');
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toEqual([]);
    wakeChannel(deps).wake('call_analyses');
    await vi.waitFor(() => expect(ran).toEqual([x]), { timeout: 2000 });
    expect(wakeChannel(deps).listeners('call_analyses')).toBe(1);
    await j.stop();
    expect(wakeChannel(deps).listeners('call_analyses')).toBe(0);
  });

  it('stop() waits for the runs under way and claims nothing after', async () => {
    await queue('co-a', 2);
    let release!: () => void;
    const ran: string[] = [];
    const j = job(
      (r) => {
        ran.push(r.call_id);
        return new Promise<JobOutcome>((resolve) => {
          release = () => resolve({ status: 'done' });
        });
      },
      { concurrency: 1, pollMs: 10 },
    );
    j.start();
    await vi.waitFor(() => expect(ran).toHaveLength(1));
    let stopped = false;
    const stopping = j.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toHaveLength(1);
  });
});

describe('periodic jobs', () => {
  it('runs at start and on its interval, one pass at a time (ticks during a pass skipped); logs counts and failures; stop waits', async () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const logger = createLogger('debug', (line) => lines.push(line));
      let active = 0;
      let most = 0;
      let passes = 0;
      const firsts: boolean[] = [];
      const p = definePeriodicJob(
        { logger },
        {
          name: 'test sweep',
          everyMs: 1000,
          logAs: 'swept',
          run: async ({ first }) => {
            firsts.push(first);
            passes++;
            active++;
            most = Math.max(most, active);
            await new Promise((r) => setTimeout(r, 2500)); // slower than the interval
            active--;
            if (passes === 2) throw new Error('disk full');
            return { rows: passes === 1 ? 3 : 0 };
          },
        },
      );
      p.start();
      // a pass at 0 s (to 2.5 s), the ticks at 1 s and 2 s skipped, a pass at 3 s
      await vi.advanceTimersByTimeAsync(5000);
      expect(passes).toBe(2);
      expect(most).toBe(1);
      expect(firsts.slice(0, 2)).toEqual([true, false]);
      const stopping = p.stop();
      await vi.advanceTimersByTimeAsync(20_000);
      await stopping;
      const after = passes;
      await vi.advanceTimersByTimeAsync(5000);
      expect(passes).toBe(after);
      expect(lines.some((l) => l.includes('swept') && l.includes('"rows":3'))).toBe(true);
      expect(lines.some((l) => l.includes('test sweep failed') && l.includes('disk full'))).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
