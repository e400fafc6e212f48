/** A ToolEnv for running one tool against a fake: a fixed clock, the given provider cards, a live signal. */
import type { AppDeps } from '../../../server/platform/deps.js';
import type { ProviderAccess } from '../../../server/voice/providers/types.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';

export function toolEnv(now: Date, keys: Record<string, ProviderAccess>, signal = new AbortController().signal): ToolEnv {
  return {
    deps: { clock: { now: () => now } } as unknown as AppDeps,
    companyId: 'company-1',
    call: { call_id: 'call-1', agent_id: 'agent-1', type: 'chat', from_number: null, to_number: null, dynamic_variables: {} },
    keys,
    services: {
      signingSecret: async () => 'secret',
      sendSms: async () => ({ id: 'sms-1' }),
    },
    phone: undefined,
    signal,
  };
}

export const access = (apiKey: string, baseUrl: string): ProviderAccess => ({ apiKey, baseUrl, publicOnly: false });
