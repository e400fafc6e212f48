/**
 * What the company's side of the server does for the agent's functions during a call (ToolServices in
 * server/voice/tools/types.ts): custom functions are signed with the company's webhook signing secret,
 * exactly like webhooks; text messages go out from one of the company's numbers.
 */
import type { AppDeps } from '../../platform/deps.js';
import { ToolError, type ToolServices } from '../../voice/tools/types.js';
import { signingSecret } from '../webhooks/index.js';

export function toolServices(deps: AppDeps): ToolServices {
  return {
    signingSecret: (companyId) => signingSecret(deps, companyId),
    sendSms: async () => {
      throw new ToolError('Sending text messages is not set up');
    },
  };
}
