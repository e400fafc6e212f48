import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  CallListQuerySchema,
  callListParams,
  callStatusTone,
  formatCallCost,
  formatCallDuration,
  formatCallTime,
  hasCallFilters,
} from '../../src/api/contract/call.js';
import { CALL_SORT_FIELDS } from '../../src/api/contract/call-values.js';
import { tableSortToPairs } from '../../src/api/contract/list.js';
import {
  AssignAgentFormSchema,
  assignModeOf,
  assignPatch,
  normalizePhoneNumber,
  PhoneNumberFormSchema,
  phoneNumberFormValues,
  prettyPhoneNumber,
} from '../../src/api/contract/phone.js';

const messages = (schema: v.GenericSchema, input: unknown) => {
  const r = v.safeParse(schema, input);
  return r.success ? [] : r.issues.map((i) => `${i.path?.map((p) => p.key).join('.') ?? ''}: ${i.message}`);
};

describe('phone contract', () => {
  it('normalizes numbers to E.164 and refuses what is not one', () => {
    expect(normalizePhoneNumber('(415) 555-0123')).toBe('+14155550123');
    expect(normalizePhoneNumber('1 415 555 0123')).toBe('+14155550123');
    expect(normalizePhoneNumber('+44 20 7946 0958')).toBe('+442079460958');
    for (const bad of ['12345', '+1 415 555', '+1 (012) 555-0123', 'call me', '+0123456789', '555-0123'])
      expect(normalizePhoneNumber(bad), bad).toBeNull();
    expect(prettyPhoneNumber('+14155550123')).toBe('(415) 555-0123');
    expect(prettyPhoneNumber('+442079460958')).toBe('+442079460958');
  });

  it('validates the Update Phone Number form with the spec messages', () => {
    expect(messages(PhoneNumberFormSchema, { phone_number: '123' })).toEqual([
      'phone_number: Invalid phone number',
      'phone_number_type: Phone number type is required',
      'phone_number_pretty: Pretty phone number is required',
      'termination_uri: Termination URI is required',
    ]);
    const ok = v.parse(PhoneNumberFormSchema, {
      phone_number: '415 555 0123',
      phone_number_type: 'local',
      phone_number_pretty: '(415) 555-0123',
      termination_uri: 'x.pstn.twilio.com',
      area_code: '',
      nickname: '',
      accountId: 'read-only',
    });
    expect(ok).toMatchObject({ phone_number: '+14155550123', area_code: null, nickname: null, provider: 'twilio' });
    expect(ok).not.toHaveProperty('accountId');
  });

  it('starts the Update Phone Number form from a record, which validates back to it', () => {
    const record = {
      _id: 'n1',
      phone: '+14155550123',
      provider: 'plivo' as const,
      phone_number: '+14155550123',
      phone_number_type: 'toll-free',
      phone_number_pretty: '(415) 555-0123',
      nickname: '',
      assistantId: 'asst_1',
      termination_uri: 'x.sip.plivo.com',
      area_code: 415,
      inbound_agent_id: 'a1',
      outbound_agent_id: null,
      inbound_agent_name: 'Ava',
      outbound_agent_name: null,
      accountId: 'acc',
      companyId: 'co',
      origin: 'pool' as const,
      assignedAt: '2026-11-01T00:00:00.000Z',
      createdAt: '2026-10-01T00:00:00.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
    };
    const values = phoneNumberFormValues(record);
    expect(values.area_code).toBe('415');
    expect(v.parse(PhoneNumberFormSchema, values)).toEqual({
      phone_number: '+14155550123',
      phone_number_type: 'toll-free',
      phone_number_pretty: '(415) 555-0123',
      termination_uri: 'x.sip.plivo.com',
      assistantId: 'asst_1',
      nickname: null,
      inbound_agent_id: 'a1',
      outbound_agent_id: null,
      area_code: 415,
      provider: 'plivo',
    });
  });

  it('builds the assign dialog: one agent, one direction, the other cleared', () => {
    expect(messages(AssignAgentFormSchema, { agent_id: '', call_type: 'inbound' })).toEqual(['agent_id: Please select an agent']);
    expect(assignPatch({ agent_id: 'a1', call_type: 'inbound' })).toEqual({ inbound_agent_id: 'a1', outbound_agent_id: null });
    expect(assignPatch({ agent_id: 'a1', call_type: 'outbound' })).toEqual({ inbound_agent_id: null, outbound_agent_id: 'a1' });
    expect(assignModeOf({ outbound_agent_id: null })).toBe('inbound');
    expect(assignModeOf({ outbound_agent_id: 'a2' })).toBe('outbound');
  });
});

describe('call contract', () => {
  it('colours statuses as the specification says', () => {
    expect(['ended', 'completed'].map(callStatusTone)).toEqual(['green', 'green']);
    expect(['failed', 'busy', 'no-answer'].map(callStatusTone)).toEqual(['red', 'red', 'red']);
    expect(callStatusTone('canceled')).toBe('yellow');
    expect(['registered', 'ongoing', 'error', 'whatever'].map(callStatusTone)).toEqual(['grey', 'grey', 'grey', 'grey']);
  });

  it('formats duration and cost as the specification says', () => {
    expect(formatCallDuration(0)).toBe('0m 00s');
    expect(formatCallDuration(245)).toBe('4m 05s');
    expect(formatCallCost(0.2025)).toBe('$0.20');
    expect(formatCallCost(3)).toBe('$3.00');
    expect(formatCallTime('2026-11-01T23:59:59.999Z')).toBe('2026-11-01 23:59');
  });

  it('round-trips the table URL into query parameters', () => {
    const sort = tableSortToPairs('duration:desc,agent:asc,time:asc,duration:asc', CALL_SORT_FIELDS);
    expect(sort).toEqual([
      ['duration', -1],
      ['time', 1],
    ]);
    const params = callListParams({ page: 2, limit: 20, sort, status: 'completed', type: '', dateFrom: '2026-11-01' });
    expect(params).toEqual({
      page: '2',
      limit: '20',
      sort: '{"duration":-1,"time":1}',
      status: 'completed',
      dateFrom: '2026-11-01',
    });
    expect(v.parse(CallListQuerySchema, params)).toMatchObject({ page: 2, limit: 20, sort, status: 'completed', type: '' });
    expect(hasCallFilters({})).toBe(false);
    expect(hasCallFilters({ type: 'inbound' })).toBe(true);
  });
});
