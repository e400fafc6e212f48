/**
 * Rows the server suite writes straight into the tables of migration 004 (phone numbers and calls have
 * no create endpoint of their own in these tests: calls come from dialling, numbers from the pool).
 */
import { newId } from '../../server/lib/ids.js';
import type { TestApp } from './helpers.js';

/** A number of the pool assigned to `companyId` (null = free) on `assignedAt`. */
export async function insertNumber(
  t: TestApp,
  companyId: string | null,
  phone: string,
  opts: { assignedAt?: string; createdAt?: string; provider?: string } = {},
): Promise<string> {
  const id = newId();
  const created = opts.createdAt ?? '2026-01-01T00:00:00.000Z';
  await t.deps.db.db
    .insertInto('phone_numbers')
    .values({
      id,
      company_id: companyId,
      account_id: null,
      phone_number: phone,
      provider: opts.provider ?? 'twilio',
      phone_number_type: 'local',
      phone_number_pretty: phone,
      area_code: null,
      nickname: null,
      termination_uri: null,
      assistant_id: null,
      inbound_agent_id: null,
      outbound_agent_id: null,
      assigned_at: companyId ? (opts.assignedAt ?? created) : null,
      created_at: created,
      updated_at: created,
    })
    .execute();
  return id;
}

export interface SeedCall {
  /** ISO-8601 UTC */
  time: string;
  /** seconds */
  duration: number;
  /** USD */
  cost: number;
  agentId?: string | null;
}

/** Call records of `companyId`. */
export async function insertCalls(t: TestApp, companyId: string, calls: SeedCall[]): Promise<void> {
  if (calls.length === 0) return;
  await t.deps.db.db
    .insertInto('calls')
    .values(
      calls.map((c) => ({
        id: newId(),
        company_id: companyId,
        agent_id: c.agentId ?? null,
        time: c.time,
        from_number: '+14155550100',
        to_number: '+14155550199',
        duration: c.duration,
        type: 'outbound',
        cost: c.cost,
        disconnection_reason: 'user_hangup',
        status: 'ended',
        call_successful: 1,
      })),
    )
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
export type Body = any;

/** A JSON call to /api/v1 with the status and parsed body. */
export async function call(
  t: TestApp,
  method: string,
  url: string,
  init: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await t.req(method, `/api/v1${url}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
