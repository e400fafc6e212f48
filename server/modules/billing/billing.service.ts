import { BATCH_DIAL_COST } from '@contract/batch.js';
import {
  type BillingContact,
  type BillingLimits,
  type BillingLimitsBody,
  CONCURRENCY_LIMIT_DEFAULT,
  LLM_SHARE,
  MONTHLY_SPEND_LIMIT_DEFAULT,
  PHONE_NUMBER_MONTHLY_FEE,
  type Statement,
  type UsageResponse,
  VOICE_ENGINE_SHARE,
} from '@contract/billing.js';
import { countriesOfNumbers } from '@contract/destinations.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import {
  agentNames,
  type BillingFields,
  billingLimitsRow,
  callCost,
  companyPhoneNumbers,
  contactSources,
  pendingBatchDials,
  statementSources,
  upsertBillingRow,
  usageSums,
} from './billing.repo.js';

/**
 * Billing figures, computed from the company's calls and numbers (nothing is stored but the limits and
 * the billing contact). Months and days are UTC. Amounts are summed in cents to avoid float drift.
 */

const cents = (usd: number) => Math.round(usd * 100);
const usd = (c: number) => Math.round(c) / 100;
const money = (c: number) => `$${(c / 100).toFixed(2)}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** 'yyyy-MM' of a date (UTC) */
export const monthOf = (d: Date) => d.toISOString().slice(0, 7);

function monthBounds(month: string) {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const start = new Date(Date.UTC(y, m - 1, 1));
  const next = new Date(Date.UTC(y, m, 1));
  const last = new Date(next.getTime() - 86_400_000);
  return { start, next, last };
}

function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return monthOf(new Date(Date.UTC(y, m - 1 + n, 1)));
}

const monthTitle = (month: string) =>
  monthBounds(month).start.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

// ---------------------------------------------------------------------------------------------
// Limits and contact (one company_billing row; absent = defaults)

/** `db` may be a transaction (withCompanyLock) */
export async function billingLimits(deps: AppDeps, companyId: string, db: Kysely<DB> = deps.db.db): Promise<BillingLimits> {
  const row = await billingLimitsRow(db, companyId);
  return {
    concurrencyLimit: row ? Number(row.concurrency_limit) : CONCURRENCY_LIMIT_DEFAULT,
    monthlySpendLimit: row ? usd(Number(row.monthly_spend_limit_cents)) : MONTHLY_SPEND_LIMIT_DEFAULT,
    allowedCountries: row?.allowed_countries ? row.allowed_countries.split(',') : [],
  };
}

/** The countries of the company's own phone numbers (its allowed countries while it set none). */
export async function numberCountries(deps: AppDeps, companyId: string): Promise<string[]> {
  return countriesOfNumbers(await companyPhoneNumbers(deps.db.db, companyId));
}

/** The countries the company's outbound calls may go to: those it set, else those of its numbers. */
export async function allowedCountries(deps: AppDeps, companyId: string): Promise<string[]> {
  const set = (await billingLimits(deps, companyId)).allowedCountries;
  return set.length > 0 ? set : numberCountries(deps, companyId);
}

async function upsertBilling(deps: AppDeps, companyId: string, set: BillingFields) {
  const defaults = {
    concurrency_limit: CONCURRENCY_LIMIT_DEFAULT,
    monthly_spend_limit_cents: cents(MONTHLY_SPEND_LIMIT_DEFAULT),
    contact_name: '',
    contact_email: '',
    contact_address: '',
    contact_tax_id: '',
  };
  await upsertBillingRow(deps.db.db, companyId, defaults, set, deps.clock.now().toISOString());
}

export function saveLimits(deps: AppDeps, companyId: string, limits: BillingLimitsBody) {
  return upsertBilling(deps, companyId, {
    concurrency_limit: limits.concurrencyLimit,
    monthly_spend_limit_cents: cents(limits.monthlySpendLimit),
    ...(limits.allowedCountries ? { allowed_countries: limits.allowedCountries.join(',') } : {}),
  });
}

/** The stored contact; until one is saved, the company's name and the caller's email. */
export async function billingContact(deps: AppDeps, companyId: string, accountId: string): Promise<Required<BillingContact>> {
  const [row, company, account] = await contactSources(deps.db.db, companyId, accountId);
  return {
    name: row?.contact_name || company?.name || '',
    email: row?.contact_email || account?.email || '',
    address: row?.contact_address ?? '',
    taxId: row?.contact_tax_id ?? '',
  };
}

export function saveContact(deps: AppDeps, companyId: string, contact: BillingContact) {
  return upsertBilling(deps, companyId, {
    contact_name: contact.name,
    contact_email: contact.email,
    contact_address: contact.address ?? '',
    contact_tax_id: contact.taxId ?? '',
  });
}

// ---------------------------------------------------------------------------------------------
// Calls

/** Call cost (USD) of the company from `from` (inclusive) to `to` (exclusive). */
const callCostBetween = (db: Kysely<DB>, companyId: string, from: Date, to: Date) =>
  callCost(db, companyId, from.toISOString(), to.toISOString());

/**
 * What the company has spent or committed this month (USD): its calls so far, plus the dials of its
 * batches waiting to be sent (scheduled or sending), except `excludeBatchId`. Read it and commit against it
 * inside withCompanyLock (`db` the lock's transaction), or another request may commit in between.
 */
export async function committedSpend(
  deps: AppDeps,
  companyId: string,
  excludeBatchId?: string,
  db: Kysely<DB> = deps.db.db,
): Promise<number> {
  const { start, next } = monthBounds(monthOf(deps.clock.now()));
  const [calls, dials] = await Promise.all([
    callCostBetween(db, companyId, start, next),
    pendingBatchDials(db, companyId, excludeBatchId),
  ]);
  return calls + dials * BATCH_DIAL_COST;
}

export async function monthToDateSpend(deps: AppDeps, companyId: string): Promise<number> {
  const { start, next } = monthBounds(monthOf(deps.clock.now()));
  return usd(cents(await callCostBetween(deps.db.db, companyId, start, next)));
}

// ---------------------------------------------------------------------------------------------
// Statements

function statement(
  month: string,
  current: string,
  calls: { cost: number; seconds: number; count: number },
  numbers: number,
): Statement {
  const { start, last } = monthBounds(month);
  const callCents = cents(calls.cost);
  const voiceCents = Math.round(callCents * VOICE_ENGINE_SHARE);
  const llmCents = callCents - voiceCents;
  const phoneCents = numbers * cents(PHONE_NUMBER_MONTHLY_FEE);
  const minutes = round1(calls.seconds / 60);
  return {
    id: month,
    title: monthTitle(month),
    periodStart: start.toISOString().slice(0, 10),
    periodEnd: last.toISOString().slice(0, 10),
    amount: usd(phoneCents + voiceCents + llmCents),
    details: `${plural(calls.count, 'call')} · ${minutes.toLocaleString('en-US')} min · ${plural(numbers, 'number')}`,
    status: month === current ? 'Open' : 'Closed',
    items: [
      {
        name: 'Phone Number',
        amount: usd(phoneCents),
        details: `${plural(numbers, 'number')} × ${money(cents(PHONE_NUMBER_MONTHLY_FEE))}/month`,
      },
      {
        name: 'Voice Engine',
        amount: usd(voiceCents),
        details: `${minutes.toLocaleString('en-US')} min of speech and telephony (${Math.round(VOICE_ENGINE_SHARE * 100)}% of call cost)`,
      },
      {
        name: 'LLM',
        amount: usd(llmCents),
        details: `${plural(calls.count, 'call')} (${Math.round(LLM_SHARE * 100)}% of call cost)`,
      },
    ],
  };
}

/** How many months back a statement list goes at most. */
const MAX_MONTHS = 120;

/** One statement per month, newest first, from the company's first month (or first call) to now. */
export async function statements(deps: AppDeps, companyId: string): Promise<Statement[]> {
  const current = monthOf(deps.clock.now());
  const [company, byMonth, numbers] = await statementSources(deps.db.db, companyId);
  const calls = new Map(
    byMonth.map((r) => [r.month, { cost: Number(r.cost), seconds: Number(r.seconds), count: Number(r.count) }]),
  );
  const firstMonths = [company?.created_at.slice(0, 7) ?? current, ...calls.keys()].filter((m) => m <= current).sort();
  let month = firstMonths[0] ?? current;
  if (month < addMonths(current, -(MAX_MONTHS - 1))) month = addMonths(current, -(MAX_MONTHS - 1));
  // a number is billed from the month the company got it (a pool number was created long before)
  const numberMonths = numbers.map((n) => (n.assigned_at ?? n.created_at).slice(0, 7));
  const out: Statement[] = [];
  for (; month <= current; month = addMonths(month, 1)) {
    const held = numberMonths.filter((m) => m <= month).length;
    out.push(statement(month, current, calls.get(month) ?? { cost: 0, seconds: 0, count: 0 }, held));
  }
  return out.reverse();
}

// ---------------------------------------------------------------------------------------------
// Usage

export async function usage(deps: AppDeps, companyId: string, month: string): Promise<Omit<UsageResponse, 'success'>> {
  const db = deps.db.db;
  const { start, next, last } = monthBounds(month);
  const [perDay, perAgent] = await usageSums(db, companyId, start.toISOString(), next.toISOString());
  const agentIds = perAgent.map((a) => a.agent_id).filter((id): id is string => !!id);
  const names = await agentNames(db, companyId, agentIds);
  const days = new Map(perDay.map((d) => [d.day, d]));
  const out: UsageResponse['days'] = [];
  let totalCents = 0;
  let totalSeconds = 0;
  let totalCalls = 0;
  for (let d = new Date(start); d <= last; d = new Date(d.getTime() + 86_400_000)) {
    const day = d.toISOString().slice(0, 10);
    const row = days.get(day);
    const c = row ? cents(Number(row.cost)) : 0;
    const s = row ? Number(row.seconds) : 0;
    const n = row ? Number(row.count) : 0;
    totalCents += c;
    totalSeconds += s;
    totalCalls += n;
    out.push({ date: day, minutes: round1(s / 60), cost: usd(c), calls: n });
  }
  const byAgent = perAgent
    .map((a) => ({
      agentId: a.agent_id ?? null,
      agentName: a.agent_id ? (names.get(a.agent_id) ?? '(deleted agent)') : '(no agent)',
      minutes: round1(Number(a.seconds) / 60),
      cost: usd(cents(Number(a.cost))),
      calls: Number(a.count),
    }))
    .sort((x, y) => y.cost - x.cost || y.minutes - x.minutes || x.agentName.localeCompare(y.agentName));
  return { month, days: out, totals: { minutes: round1(totalSeconds / 60), cost: usd(totalCents), calls: totalCalls }, byAgent };
}
