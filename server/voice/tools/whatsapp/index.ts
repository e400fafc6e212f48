/**
 * send_whatsapp: a WhatsApp template message to the caller through the company's WhatsApp card (its Phone
 * Number ID and Access Token) on the Cloud API (cloud-api.ts). The function fixes the template and its
 * language; the model gives the values of the template body's {{1}}, {{2}}… in order. WhatsApp only lets a
 * business start a conversation with an approved template, so the model never writes free text here.
 *
 * The recipient is the caller: the other end of a phone call (for an inbound call its from_number, for an
 * outbound one its to_number). A web call or a chat has no caller number: the model is told so.
 */
import { realHttpClient } from '../../../platform/deps.js';
import { callerNumber } from '../sms/index.js';
import type { ToolKind, ToolOutcome } from '../types.js';
import { sendTemplate, WhatsAppApiError } from './cloud-api.js';

export const WHATSAPP_TOOL_MESSAGES = {
  notPhone: 'WhatsApp messages can only be sent during phone calls',
  noCaller: 'This call has no caller number to send a WhatsApp message to.',
  notConnected: 'WhatsApp is not connected on the Providers page, so no WhatsApp message can be sent.',
  badParameters: 'parameters must be a list of texts, one for each {{n}} of the template body, in order.',
  failed: 'The WhatsApp message could not be sent.',
  sent: (template: string) => `The WhatsApp message (template ${template}) was sent to the caller.`,
} as const;

/** A body value may be this long (WhatsApp's own limit on a template's whole body is 1,024 characters). */
const PARAMETER_MAX_CHARS = 1024;
const PARAMETERS_MAX = 20;

const DEFAULT_DESCRIPTION = 'Send the caller a WhatsApp message (an approved template) with the values its body needs.';

export const whatsappTool: ToolKind<'send_whatsapp'> = {
  type: 'send_whatsapp',

  async prepare(fn) {
    const parameters = {
      type: 'object',
      properties: {
        parameters: {
          type: 'array',
          description: `The values of the ${fn.template_name} template's body variables {{1}}, {{2}}…, in order (empty when it has none).`,
          items: { type: 'string', maxLength: PARAMETER_MAX_CHARS },
          maxItems: PARAMETERS_MAX,
        },
      },
      required: [],
    };
    return [
      {
        spec: { name: fn.name, description: fn.description || DEFAULT_DESCRIPTION, parameters },
        fn,
        async run(args, env): Promise<ToolOutcome> {
          if (env.call.type !== 'phone_call') return { ok: false, result: WHATSAPP_TOOL_MESSAGES.notPhone };
          const to = callerNumber(env.call);
          if (!to) return { ok: false, result: WHATSAPP_TOOL_MESSAGES.noCaller };
          const given = args.parameters ?? [];
          if (
            !Array.isArray(given) ||
            given.length > PARAMETERS_MAX ||
            !given.every((p) => typeof p === 'string' && p.length <= PARAMETER_MAX_CHARS)
          )
            return { ok: false, result: WHATSAPP_TOOL_MESSAGES.badParameters };
          const access = env.keys.whatsapp;
          const phoneNumberId = access?.fields?.['Phone Number ID'];
          const accessToken = access?.fields?.['Access Token'] ?? access?.apiKey;
          if (!access || !phoneNumberId || !accessToken) return { ok: false, result: WHATSAPP_TOOL_MESSAGES.notConnected };
          try {
            await sendTemplate(
              env.deps.http ?? realHttpClient,
              access.baseUrl,
              { phoneNumberId, accessToken },
              { to, template: fn.template_name, language: fn.language, parameters: given as string[] },
              env.signal,
            );
            return { ok: true, result: WHATSAPP_TOOL_MESSAGES.sent(fn.template_name) };
          } catch (e) {
            if (env.signal.aborted) throw e;
            if (e instanceof WhatsAppApiError) {
              env.deps.logger.info('whatsapp message refused', { companyId: env.companyId, status: e.status, code: e.code });
              return { ok: false, result: e.message };
            }
            env.deps.logger.warn('whatsapp message failed', {
              companyId: env.companyId,
              reason: e instanceof Error ? e.name : 'error',
            });
            return { ok: false, result: WHATSAPP_TOOL_MESSAGES.failed };
          }
        },
      },
    ];
  },
};
