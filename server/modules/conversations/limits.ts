/**
 * The company's limits on conversations, one place for every kind (phone calls in and out, web calls,
 * chats): the monthly spend limit (402) and the concurrency limit (429, calls that hold a line).
 *
 * - Spend: the month's calls so far against the limit (Billing > Limits); read before a conversation starts.
 * - Concurrency: the company's calls that hold a line (phone and web, `registered` or `ongoing`) are counted
 *   inside the company lock (server/platform/db/company-lock.ts) and the new call's row is written in the same step,
 *   so requests racing on any number of servers never pass the same count.
 */

import { TELEPHONY_MESSAGES } from '@contract/telephony.js';
import type { Transaction } from 'kysely';
import { withCompanyLock } from '../../platform/db/company-lock.js';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { billingLimits, monthToDateSpend } from '../billing/index.js';
import { liveCalls } from './session.repo.js';

type Trx = Transaction<DB>;

/** Calls of the company that hold a line now (its count lives with the other call_sessions queries). */
export { liveCalls };

/** Whether the company's month-to-date spend has reached its monthly spend limit (0 = no limit). */
export async function overSpend(deps: AppDeps, companyId: string): Promise<boolean> {
  const [limits, spent] = await Promise.all([billingLimits(deps, companyId), monthToDateSpend(deps, companyId)]);
  return limits.monthlySpendLimit > 0 && spent >= limits.monthlySpendLimit;
}

/** 402 with the phone calls' message when the company is at its monthly spend limit. */
export async function refuseOverSpend(deps: AppDeps, companyId: string): Promise<void> {
  if (await overSpend(deps, companyId)) throw new HttpError(402, TELEPHONY_MESSAGES.spendLimit);
}

/**
 * One more call that holds a line: `create` writes its row inside the company lock when the company has
 * fewer live calls than its concurrency limit; otherwise nothing is written and the limit is answered.
 */
export async function reserveLine<T>(
  deps: AppDeps,
  companyId: string,
  create: (trx: Trx) => Promise<T>,
): Promise<{ row: T } | { full: number }> {
  const { concurrencyLimit } = await billingLimits(deps, companyId);
  return withCompanyLock(deps.db.db, companyId, async (trx) => {
    if ((await liveCalls(trx, companyId)) >= concurrencyLimit) return { full: concurrencyLimit };
    return { row: await create(trx) };
  });
}

/** reserveLine for an API request: at the concurrency limit it answers 429 with the phone calls' message. */
export async function takeLine<T>(deps: AppDeps, companyId: string, create: (trx: Trx) => Promise<T>): Promise<T> {
  const taken = await reserveLine(deps, companyId, create);
  if ('full' in taken) throw new HttpError(429, TELEPHONY_MESSAGES.concurrencyLimit(taken.full));
  return taken.row;
}
