/**
 * What the company's side of the server does for an agent's tools (server/voice/tools/types.ts
 * ToolServices): the webhook signing secret custom functions are signed with, and text messages from the
 * company's numbers. The engine's tools get these through their ToolEnv; the voice floor never reads the
 * database itself.
 *
 * Text messages go out through `deps.texts`, the telephony module's sender plugged in by the composition
 * root (server/compose.ts): the telephony module already imports this one, so it cannot be imported here.
 */
import type { AppDeps } from '../../platform/deps.js';
import { ToolError, type ToolServices } from '../../voice/tools/types.js';
import { signingSecret } from '../webhooks/index.js';

export const TOOL_SERVICE_MESSAGES = {
  noTexts: 'Text messages cannot be sent from this server.',
  textFailed: 'The text message could not be sent.',
} as const;

export function toolServices(deps: AppDeps): ToolServices {
  return {
    signingSecret: (companyId) => signingSecret(deps, companyId),

    async sendSms(companyId, message, signal) {
      if (!deps.texts) throw new ToolError(TOOL_SERVICE_MESSAGES.noTexts);
      try {
        return await deps.texts.send(companyId, message, signal);
      } catch (e) {
        // a refusal is told to the model in its own words; anything else only as a failure (the log has it)
        if (e instanceof ToolError || signal.aborted) throw e;
        deps.logger.warn('text message failed', { companyId, reason: e instanceof Error ? e.name : 'error' });
        throw new ToolError(TOOL_SERVICE_MESSAGES.textFailed);
      }
    },
  };
}
