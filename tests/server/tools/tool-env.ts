/**
 * A ToolEnv for calling a ToolKind directly (no engine, no database): a master key, a clock, the config
 * flags, the company's signing secret.
 */
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import type { AppConfig, AppDeps } from '../../../server/platform/deps.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';
import type { AgentFunction, AgentFunctionOf, FunctionType } from '../../../src/api/contract/agent/functions.js';
import { AgentFunctionSchema } from '../../../src/api/contract/agent/functions.js';

export const COMPANY = 'company-a';

export function toolDeps(config: Partial<AppConfig> = {}): AppDeps {
  return {
    secrets: { masterKey: randomBytes(32), jwtKey: randomBytes(32) },
    clock: { now: () => new Date() },
    config: { dataDir: '', publicUrl: 'http://localhost', providerUrls: {}, ...config },
  } as unknown as AppDeps;
}

export function toolEnv(deps: AppDeps, secret: string, over: Partial<ToolEnv> = {}): ToolEnv {
  return {
    deps,
    companyId: COMPANY,
    call: {
      call_id: 'call_1',
      agent_id: 'agent_1',
      type: 'web_call',
      from_number: null,
      to_number: null,
      dynamic_variables: { customer_name: 'Ada' },
    },
    keys: {},
    services: {
      signingSecret: async () => secret,
      sendSms: async () => {
        throw new Error('not used');
      },
    },
    phone: undefined,
    signal: new AbortController().signal,
    ...over,
  };
}

/** A function as the contract parses it (defaults filled). */
export function fnOf<T extends FunctionType>(input: Record<string, unknown> & { type: T }): AgentFunctionOf<T> {
  return v.parse(AgentFunctionSchema, { id: 1, name: 'fn', description: 'd', ...input }) as AgentFunction as AgentFunctionOf<T>;
}
