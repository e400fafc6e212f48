import { expect, it } from 'vitest';
import { BATCH_DIAL_COST, BATCH_MESSAGES } from '../../src/api/contract/batch.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { type Body, call, connectTwilio, insertNumber } from './seed.js';

/**
 * The monthly spend limit under concurrency: the check and the commit of a send, a schedule
 * or a recipients re-upload are one serialised step per company (withCompanyLock), so requests racing
 * each other can never together commit more than the limit.
 */

const FROM = '+14155550101';
const FUTURE = '2026-12-01T09:00:00Z';
const ROUNDS = 4;
const BATCHES = 4;
/** each batch: 40 dials = $0.20; the limit $0.50 holds two of them, never three */
const DIALS = 40;
const LIMIT = 0.5;
/** a re-upload grows a sent batch of 10 to 60 dials: one fits ($0.40 in all), two do not ($0.65) */
const GROWN = 60;

let keys = 0;
const phones = (n: number, from: number) => Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);

async function batchWith(t: TestApp, token: string, name: string, n: number, from: number): Promise<Body> {
  const res = await call(t, 'POST', '/batch-call', {
    token,
    body: { name, fromNumber: FROM, sendMode: 'now' },
    headers: { 'Idempotency-Key': `race-${++keys}-${Date.now()}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const up = await call(t, 'POST', `/batch-call/${res.body.batch._id}/recipients`, {
    token,
    body: ['phone_number', ...phones(n, from)].join('\n'),
    headers: { 'Content-Type': 'text/csv' },
  });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  return up.body.batch as Body;
}

/** What the company's batches on their way (scheduled or sending) commit, in USD. */
async function committed(t: TestApp, token: string): Promise<number> {
  const res = await call(t, 'GET', '/batch-call?limit=100', { token });
  const onTheirWay = (res.body.data.batches as Body[]).filter((b) => b.status === 'sending' || b.status === 'scheduled');
  return onTheirWay.reduce((sum, b) => sum + b.recipients * BATCH_DIAL_COST, 0);
}

describeEachDb('spend limit under concurrency', (kind) => {
  const t = useTestApp(kind);

  it('parallel sends and schedules never commit more than the limit, round after round', async () => {
    const a = await signUp(t());
    await insertNumber(t(), a.companyId, FROM);
    await connectTwilio(t(), a.token);
    const limits = await call(t(), 'PUT', '/billing/limits', {
      token: a.token,
      body: { concurrencyLimit: 5, monthlySpendLimit: LIMIT },
    });
    expect(limits.status).toBe(200);
    for (let round = 0; round < ROUNDS; round++) {
      const batches: Body[] = [];
      for (let i = 0; i < BATCHES; i++) batches.push(await batchWith(t(), a.token, `Round ${round} #${i}`, DIALS, i * DIALS));
      // half send, half schedule, all at once
      const answers = await Promise.all(
        batches.map((b, i) =>
          i % 2 === 0
            ? call(t(), 'POST', `/batch-call/${b._id}/send`, { token: a.token })
            : call(t(), 'POST', `/batch-call/${b._id}/schedule`, { token: a.token, body: { scheduledAt: FUTURE } }),
        ),
      );
      const accepted = answers.filter((r) => r.status === 200).length;
      for (const r of answers)
        if (r.status !== 200) expect(r.body).toEqual({ success: false, msg: BATCH_MESSAGES.overSpendLimit });
      expect(accepted, `round ${round}`).toBe(2);
      expect(await committed(t(), a.token)).toBeLessThanOrEqual(LIMIT + 1e-9);
      // free the budget for the next round
      for (const b of batches) await call(t(), 'POST', `/batch-call/${b._id}/cancel`, { token: a.token });
    }
  });

  it('parallel re-uploads to batches on their way never commit more than the limit', async () => {
    const a = await signUp(t());
    await insertNumber(t(), a.companyId, FROM);
    await connectTwilio(t(), a.token);
    await call(t(), 'PUT', '/billing/limits', { token: a.token, body: { concurrencyLimit: 5, monthlySpendLimit: LIMIT } });
    for (let round = 0; round < ROUNDS; round++) {
      // three small batches sent ($0.05 each), then each list grown to 60 dials at once: only one fits
      const batches: Body[] = [];
      for (let i = 0; i < 3; i++) {
        const b = await batchWith(t(), a.token, `Grow ${round} #${i}`, 10, i * DIALS);
        expect((await call(t(), 'POST', `/batch-call/${b._id}/send`, { token: a.token })).status).toBe(200);
        batches.push(b);
      }
      const answers = await Promise.all(
        batches.map((b, i) =>
          call(t(), 'POST', `/batch-call/${b._id}/recipients`, {
            token: a.token,
            body: ['phone_number', ...phones(GROWN, 5000 + i * GROWN)].join('\n'),
            headers: { 'Content-Type': 'text/csv' },
          }),
        ),
      );
      for (const r of answers)
        if (r.status !== 200) expect(r.body).toEqual({ success: false, msg: BATCH_MESSAGES.overSpendLimit });
      expect(answers.filter((r) => r.status === 200).length, `round ${round}`).toBe(1);
      expect(await committed(t(), a.token)).toBeLessThanOrEqual(LIMIT + 1e-9);
      for (const b of batches) await call(t(), 'POST', `/batch-call/${b._id}/cancel`, { token: a.token });
    }
  });
});
