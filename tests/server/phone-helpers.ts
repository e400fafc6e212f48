import { expect } from 'vitest';
import { insertNumberRows, poolNumberRow } from '../../server/modules/numbers/number.repo.js';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { areaCodeOf } from '../../src/api/contract/phone.js';
import type { TestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
export type Body = any;

/** A request to /api/v1 with the parsed JSON answer. */
export async function api(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  return { status: res.status, body: (await res.json()) as Body };
}

/** Adds free numbers to the pool (Twilio unless the number ends in an odd digit), answers their rows. */
export async function addFreeNumbers(t: TestApp, phones: string[]) {
  const rows = phones.map((phone) =>
    poolNumberRow({
      phone,
      provider: Number(phone.at(-1)) % 2 ? 'plivo' : 'twilio',
      type: 'local',
      areaCode: areaCodeOf(phone),
      now: t.clock.now(),
    }),
  );
  await insertNumberRows(t.deps.db.db, rows);
  return rows;
}

/** The company's sample agent (every new company has one). */
export async function firstAgent(t: TestApp, token: string): Promise<Agent> {
  const res = await api(t, 'GET', '/agent', { token });
  expect(res.status).toBe(200);
  return res.body.data.agents[0] as Agent;
}

/** A valid body of POST /number/create. */
export const numberBody = (phone = '+13125550199', over: Record<string, unknown> = {}) => ({
  phone_number: phone,
  phone_number_type: 'local',
  phone_number_pretty: '(312) 555-0199',
  termination_uri: 'acme.pstn.twilio.com',
  ...over,
});
