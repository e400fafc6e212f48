/**
 * A ToolEnv for running the send_sms and send_whatsapp kinds directly (no engine): a phone call, a web
 * call or a chat, with the services and keys the test gives.
 */
import type { AppDeps } from '../../../server/platform/deps.js';
import { createLogger } from '../../../server/platform/log/logger.js';
import type { ProviderKeys } from '../../../server/voice/engine/context.js';
import type { PreparedTool, ToolCallInfo, ToolEnv, ToolServices } from '../../../server/voice/tools/types.js';
import { LOG_LINES } from '../helpers.js';

export const PARLEY_NUMBER = '+14155550100';
export const CALLER_NUMBER = '+14155550177';

/** The call of each kind: inbound and outbound phone calls (their variables as the telephony module sets them), a web call, a chat. */
export function callOf(kind: 'inbound' | 'outbound' | 'web_call' | 'chat', vars: Record<string, string> = {}): ToolCallInfo {
  const base = { call_id: 'call-1', agent_id: 'agent-1' };
  if (kind === 'inbound')
    return {
      ...base,
      type: 'phone_call',
      from_number: CALLER_NUMBER,
      to_number: PARLEY_NUMBER,
      dynamic_variables: { direction: 'inbound', from_number: CALLER_NUMBER, to_number: PARLEY_NUMBER, ...vars },
    };
  if (kind === 'outbound')
    return {
      ...base,
      type: 'phone_call',
      from_number: PARLEY_NUMBER,
      to_number: CALLER_NUMBER,
      dynamic_variables: { direction: 'outbound', from_number: PARLEY_NUMBER, to_number: CALLER_NUMBER, ...vars },
    };
  return { ...base, type: kind, from_number: null, to_number: null, dynamic_variables: vars };
}

/** Services whose sendSms records what it was asked (or answers with `sendSms` when given). */
export function recordingServices(sendSms?: ToolServices['sendSms']) {
  const asked: { companyId: string; from: string; to: string; text: string }[] = [];
  const services: ToolServices = {
    signingSecret: async () => 'secret',
    sendSms: async (companyId, message, signal) => {
      asked.push({ companyId, ...message });
      return sendSms ? sendSms(companyId, message, signal) : { id: 'SM1' };
    },
  };
  return { services, asked };
}

/** A logger-only deps for the kinds that need no database. */
export const quietDeps = () => ({ logger: createLogger('debug', (line) => LOG_LINES.push(line)) }) as unknown as AppDeps;

export function toolEnv(over: Partial<ToolEnv> & { call: ToolCallInfo }): ToolEnv {
  return {
    deps: quietDeps(),
    companyId: 'company-1',
    keys: {} as ProviderKeys,
    services: recordingServices().services,
    phone: undefined,
    signal: new AbortController().signal,
    ...over,
  };
}

/** The one tool a function prepares. */
export function only(tools: PreparedTool[]): PreparedTool {
  if (tools.length !== 1) throw new Error(`expected one tool, got ${tools.length}`);
  return tools[0] as PreparedTool;
}
