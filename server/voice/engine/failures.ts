/**
 * What a caller and a tenant are told when a provider fails: a sentence naming the provider (never a key
 * or a request), and the call's disconnection reason for the part that failed.
 */
import { providerLabel } from '@contract/provider.js';
import type { CallEndReason, CallFailure } from '../../../src/machines/callSession.machine.js';
import { ProviderError } from '../providers/types.js';

export function providerMessage(e: ProviderError): string {
  const who = providerLabel(e.provider);
  // the adapters' own messages already name the provider
  const own = e.message.startsWith(who) ? e.message : `${who}: ${e.message}`;
  switch (e.kind) {
    case 'auth':
      return `${who} refused the API key. Check it on the Providers page.`;
    case 'rate_limited':
      return `${who} is limiting requests from this account (rate limit or quota). Try again later.`;
    case 'timeout':
      return `${who} did not answer in time.`;
    default:
      return own;
  }
}

/** A CallFailure for the machine: the provider's error as a reason and a message; anything else unknown. */
export function failureOf(error: unknown, reason: CallEndReason): CallFailure {
  if (error instanceof ProviderError) return { reason, message: providerMessage(error) };
  if (error && typeof error === 'object' && 'reason' in error && 'message' in error) return error as CallFailure;
  return { reason: 'error_unknown', message: 'The call failed on our side.' };
}
