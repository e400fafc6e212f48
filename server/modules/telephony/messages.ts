/**
 * Text messages (SMS) from a company's own numbers: the send_sms function of an agent runs through here
 * (server/modules/conversations/tool-services.ts, plugged in by server/compose.ts as `deps.texts`).
 *
 * The message goes from one of the company's numbers through that number's carrier (Twilio's Messages
 * resource, Plivo's Message API: server/carriers/*), with the company's carrier credentials (Providers),
 * to a destination the company may call (src/api/contract/destinations.ts: the same rules as calls, so
 * an agent cannot be talked into texting premium-rate numbers). Every refusal is a MessageRefused whose
 * words are what the agent's model is told.
 */
import { destinationRefusal } from '@contract/destinations.js';
import { carriers } from '../../carriers/registry.js';
import { CarrierApiError } from '../../carriers/types.js';
import type { AppDeps } from '../../platform/deps.js';
import { ToolError } from '../../voice/tools/types.js';
import { allowedCountries } from '../billing/index.js';
import { carrierAccount, carrierRest } from './service.js';
import { companyNumber } from './telephony.repo.js';

/** Twilio's limit on a message's Body (Plivo's text takes as much); longer texts are refused, not cut. */
export const TEXT_MAX_CHARS = 1600;

const E164 = /^\+[1-9]\d{7,14}$/;

export const TEXT_MESSAGES = {
  empty: 'The text message is empty.',
  tooLong: `The text message is longer than ${TEXT_MAX_CHARS} characters.`,
  badNumber: (to: string) => `${to || 'The number'} is not a phone number in international format, like +14155550123.`,
  notOurNumber: 'The number to send from is not one of this company’s phone numbers.',
  noCarrier: 'Text messages cannot be sent from this number’s provider.',
  notConnected: (label: string) => `${label} is not connected on the Providers page, so no text message can be sent.`,
  noMessaging: (label: string) => `${label} cannot send text messages.`,
  refused: (label: string, detail: string) => `${label} did not send the text message: ${detail}`,
  unreachable: (label: string) => `${label} could not be reached to send the text message.`,
} as const;

/** A text message that was not sent, with the reason in words for the agent's model. */
export class MessageRefused extends ToolError {
  override name = 'MessageRefused';
}

export interface TextMessage {
  /** E.164: one of the company's numbers */
  from: string;
  /** E.164 */
  to: string;
  text: string;
}

/**
 * Sends `message` from the company's number `from` through its carrier. Answers the carrier's id of the
 * message; throws MessageRefused (the reason for the model) when it is not sent.
 */
export async function sendText(
  deps: AppDeps,
  companyId: string,
  message: TextMessage,
  signal: AbortSignal,
): Promise<{ id: string; provider: string }> {
  const text = message.text.trim();
  if (!text) throw new MessageRefused(TEXT_MESSAGES.empty);
  if (text.length > TEXT_MAX_CHARS) throw new MessageRefused(TEXT_MESSAGES.tooLong);
  if (!E164.test(message.to)) throw new MessageRefused(TEXT_MESSAGES.badNumber(message.to.slice(0, 32)));
  const refused = destinationRefusal(message.to, await allowedCountries(deps, companyId));
  if (refused) throw new MessageRefused(refused.replace(/^Calls to/, 'Messages to'));
  const number = await companyNumber(deps.db.db, companyId, message.from);
  if (!number) throw new MessageRefused(TEXT_MESSAGES.notOurNumber);
  const carrier = carriers.get(number.provider);
  if (!carrier) throw new MessageRefused(TEXT_MESSAGES.noCarrier);
  const account = await carrierAccount(deps, carrier, companyId);
  if (account === undefined) throw new MessageRefused(TEXT_MESSAGES.notConnected(carrier.label));
  const rest = carrierRest(deps, carrier, account);
  if (!rest.sendMessage) throw new MessageRefused(TEXT_MESSAGES.noMessaging(carrier.label));
  try {
    const sent = await rest.sendMessage({ from: number.phone_number, to: message.to, text }, signal);
    deps.logger.info('text message sent', { companyId, provider: carrier.id });
    return { id: sent.id, provider: carrier.id };
  } catch (e) {
    if (signal.aborted) throw e;
    if (e instanceof CarrierApiError) {
      deps.logger.info('text message refused by the carrier', { companyId, provider: carrier.id, status: e.status });
      throw new MessageRefused(TEXT_MESSAGES.refused(carrier.label, e.message));
    }
    deps.logger.warn('text message failed', { companyId, provider: carrier.id, reason: e instanceof Error ? e.name : 'error' });
    throw new MessageRefused(TEXT_MESSAGES.unreachable(carrier.label));
  }
}
