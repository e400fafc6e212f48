/**
 * Phone calls through the carriers: the body of `POST /call/create` and the words the API and
 * the carriers' callers hear. Imported by the client and the server.
 *
 * - `POST /call/create {from_number, to_number, agent_id?, dynamic_variables?}` places a call from one of
 *   the company's numbers with its outbound agent (or `agent_id`); answers `{success, data: {call_id}}`.
 * - Inbound: the carrier calls `POST /telephony/twilio/voice` (signed); the media stream is the WebSocket
 *   `/telephony/twilio/stream/{call_id}/{token}` (signed too). Status callbacks:
 *   `POST /telephony/twilio/status/{call_id}`.
 */
import * as v from 'valibot';

export const E164_PATTERN = /^\+[1-9]\d{7,14}$/;

const e164 = (message: string) => v.pipe(v.string(message), v.trim(), v.regex(E164_PATTERN, message));

export const CreatePhoneCallBodySchema = v.object({
  from_number: e164('from_number must be a phone number in E.164 format, like +14155550123'),
  to_number: e164('to_number must be a phone number in E.164 format, like +14155550123'),
  agent_id: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{24}$/, 'agent_id is not a valid id'))),
  dynamic_variables: v.optional(
    v.pipe(
      v.record(v.pipe(v.string(), v.maxLength(100)), v.pipe(v.string('Dynamic variables must be text'), v.maxLength(2000))),
      v.check((r) => Object.keys(r).length <= 100, 'At most 100 dynamic variables'),
    ),
    {},
  ),
});
export type CreatePhoneCallBody = v.InferOutput<typeof CreatePhoneCallBodySchema>;
export type CreatePhoneCallInput = v.InferInput<typeof CreatePhoneCallBodySchema>;

export const CreatePhoneCallResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ call_id: v.string() }),
});
export type CreatePhoneCallResponse = v.InferOutput<typeof CreatePhoneCallResponseSchema>;

export const CREATE_PHONE_CALL_PATH = '/call/create';

/** The editor's Call me (right column): its words. */
export const CALL_ME_MESSAGES = {
  phoneInvalid: 'Enter a phone number in E.164 format, like +14155550123',
  saveFirst: 'Save the agent first.',
  noNumber: 'Get a phone number on the Phone Numbers page first.',
  calling: (to: string) => `Calling ${to}…`,
  failed: 'The call could not be placed.',
} as const;

export const TELEPHONY_MESSAGES = {
  numberNotFound: 'This phone number is not one of your numbers.',
  noOutboundAgent: 'This number has no outbound agent. Choose one on the Phone Numbers page, or give agent_id.',
  agentNotFound: 'Agent not found.',
  notConnected: (label: string) => `Connect ${label} on the Providers page to call from this number.`,
  concurrencyLimit: (limit: number) =>
    `Your company is already on ${limit} call${limit === 1 ? '' : 's'} at once, its concurrency limit (Billing > Limits).`,
  spendLimit: 'Your company has reached its monthly spend limit (Billing > Limits).',
  carrierRefused: (label: string, detail: string) => `${label} did not place the call: ${detail}`,
  unsupportedProvider: 'Calls from this number’s provider are not available yet.',
  /** a batch recipient's dial that failed for a reason not meant for the user (the details are in the log) */
  placeFailed: 'The call could not be placed.',
  /** spoken to a caller the agent cannot take */
  saidNoAgent: 'Sorry, this number is not taking calls right now. Goodbye.',
  saidBusy: 'Sorry, all our lines are busy right now. Please call again later. Goodbye.',
  saidUnavailable: 'Sorry, this number cannot take calls right now. Goodbye.',
} as const;

/** How long the carrier may take to open a call's media stream after Parley answered it. */
export const INBOUND_STREAM_TOKEN_TTL_MS = 60_000;
/** An outbound call rings, then maybe waits for voicemail detection, before its stream opens. */
export const OUTBOUND_STREAM_TOKEN_TTL_MS = 5 * 60_000;
/** The agent's Inbound Call Webhook has this long to answer. */
export const INBOUND_WEBHOOK_TIMEOUT_MS = 2000;
