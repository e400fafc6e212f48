/**
 * send_sms: a text message from the call's own number (the Parley number the caller dialled, or the one
 * an outbound call came from) through that number's carrier (Twilio's Messages resource, Plivo's Message
 * API), by the company's side of the server (ToolServices.sendSms: the number must be the company's, its
 * carrier connected, and the destination one the company may call).
 *
 * The model writes the text, unless the function has a fixed `template`: then its {{variables}} are
 * filled from the call's dynamic variables first and the model's `variables` for the rest (the model is
 * asked only for the ones the call does not have). The message goes to the caller unless the model gives
 * another number (`to`). A web call or a chat has no number: the model is told so.
 */
import { fillVariables, variableNames } from '../../engine/text.js';
import { type ToolCallInfo, ToolError, type ToolKind, type ToolOutcome } from '../types.js';

/** Twilio's limit on a message's Body (the telephony module refuses longer ones). */
export const SMS_MAX_CHARS = 1600;

export const SMS_TOOL_MESSAGES = {
  notPhone: 'Text messages can only be sent during phone calls',
  noNumber: 'This call has no phone number to send a text message from.',
  noCaller: 'This call has no caller number to text: give the number to send to.',
  noText: 'Give the text of the message.',
  badTo: 'to must be a phone number in international format, like +14155550123.',
  missing: (names: string[]) => `Give values for: ${names.join(', ')}.`,
  failed: 'The text message could not be sent.',
  sent: (to: string) => `The text message was sent to ${to}.`,
} as const;

const DEFAULT_DESCRIPTION = 'Send a text message (SMS) to the caller, or to another number they give.';

const outbound = (call: ToolCallInfo) => call.dynamic_variables.direction === 'outbound';

/** The Parley number of a phone call: the one dialled (inbound) or dialled from (outbound). */
export const ownNumber = (call: ToolCallInfo): string | null => (outbound(call) ? call.from_number : call.to_number) || null;

/** The other end of a phone call: who called in, or who was called. */
export const callerNumber = (call: ToolCallInfo): string | null => (outbound(call) ? call.to_number : call.from_number) || null;

const E164 = /^\+[1-9]\d{7,14}$/;

export const smsTool: ToolKind<'send_sms'> = {
  type: 'send_sms',

  async prepare(fn, env) {
    const template = fn.template.trim();
    // the template's variables the call does not fill: the model is asked for these
    const asked = template ? variableNames(template).filter((n) => !Object.hasOwn(env.call.dynamic_variables, n)) : [];
    const to = {
      type: 'string',
      description: 'The number to text in international format (like +14155550123); leave it out to text the caller.',
    };
    const parameters = template
      ? {
          type: 'object',
          properties: {
            to,
            ...(asked.length > 0
              ? {
                  variables: {
                    type: 'object',
                    description: 'The values the message needs.',
                    properties: Object.fromEntries(asked.map((n) => [n, { type: 'string', maxLength: 500 }])),
                    required: asked,
                  },
                }
              : {}),
          },
          required: asked.length > 0 ? ['variables'] : [],
        }
      : {
          type: 'object',
          properties: {
            text: { type: 'string', description: 'The text of the message.', maxLength: SMS_MAX_CHARS },
            to,
          },
          required: ['text'],
        };
    return [
      {
        spec: { name: fn.name, description: fn.description || DEFAULT_DESCRIPTION, parameters },
        fn,
        async run(args, env): Promise<ToolOutcome> {
          if (env.call.type !== 'phone_call') return { ok: false, result: SMS_TOOL_MESSAGES.notPhone };
          const from = ownNumber(env.call);
          if (!from) return { ok: false, result: SMS_TOOL_MESSAGES.noNumber };
          const given = typeof args.to === 'string' ? args.to.replace(/[\s().-]/g, '') : '';
          if (given && !E164.test(given)) return { ok: false, result: SMS_TOOL_MESSAGES.badTo };
          const recipient = given || callerNumber(env.call);
          if (!recipient) return { ok: false, result: SMS_TOOL_MESSAGES.noCaller };
          let text: string;
          if (template) {
            const theirs = (typeof args.variables === 'object' && args.variables !== null ? args.variables : {}) as Record<
              string,
              unknown
            >;
            // the call's own variables win: the model fills only what the call does not know
            const values: Record<string, string> = {};
            for (const [k, v] of Object.entries(theirs))
              if (typeof v === 'string' || typeof v === 'number') values[k] = String(v).slice(0, 500);
            Object.assign(values, env.call.dynamic_variables);
            const missing = variableNames(template).filter((n) => !values[n]?.trim());
            if (missing.length > 0) return { ok: false, result: SMS_TOOL_MESSAGES.missing(missing) };
            text = fillVariables(template, values);
          } else {
            text = typeof args.text === 'string' ? args.text.trim() : '';
            if (!text) return { ok: false, result: SMS_TOOL_MESSAGES.noText };
          }
          try {
            await env.services.sendSms(env.companyId, { from, to: recipient, text }, env.signal);
            return { ok: true, result: SMS_TOOL_MESSAGES.sent(recipient) };
          } catch (e) {
            if (env.signal.aborted) throw e;
            if (e instanceof ToolError) return { ok: false, result: e.message };
            env.deps.logger.warn('text message failed', {
              companyId: env.companyId,
              reason: e instanceof Error ? e.name : 'error',
            });
            return { ok: false, result: SMS_TOOL_MESSAGES.failed };
          }
        },
      },
    ];
  },
};
