/**
 * Numbers of the company's own carrier account (Phone Numbers > 'Import from Twilio' / 'Import from Plivo'):
 * listed through the carrier's API with the company's Providers card, imported by pointing the number's voice
 * webhook at Parley (its inbound webhook, and a status callback for the number's calls) and stored as one of
 * the company's numbers with what the carrier had before; released by setting that back. The numbers module
 * owns the rows (server/modules/numbers); this file speaks to the carrier.
 */

import type { CarrierNumber } from '@contract/phone.js';
import { PROVIDERS_PAGE } from '@contract/provider-keys.js';
import { TELEPHONY_MESSAGES } from '@contract/telephony.js';
import { carriers } from '../../carriers/registry.js';
import { type Carrier, CarrierApiError, type OwnedNumber } from '../../carriers/types.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { carrierPaths, publicBase } from './paths.js';
import { carrierAccount, carrierRest } from './service.js';

/** The company's REST access to `provider`, or 400 naming the card to connect. */
async function restOf(deps: AppDeps, companyId: string, provider: string) {
  const carrier = carriers.get(provider);
  if (!carrier) throw new HttpError(400, TELEPHONY_MESSAGES.unsupportedProvider);
  const account = await carrierAccount(deps, carrier, companyId);
  if (account === undefined) {
    const message = `Connect ${carrier.label} on the Providers page to import its numbers.`;
    throw new HttpError(400, message, { problem: { provider: carrier.id, message, link: PROVIDERS_PAGE } });
  }
  const rest = carrierRest(deps, carrier, account);
  if (!rest.listNumbers || !rest.pointNumber || !rest.restoreNumber)
    throw new HttpError(400, TELEPHONY_MESSAGES.unsupportedProvider);
  return { carrier, rest: rest as Required<typeof rest> };
}

/** A carrier's refusal in words for the user (502: the carrier, not the request, failed). */
function carrierFailed(carrier: Carrier, e: unknown): never {
  if (e instanceof HttpError) throw e;
  const detail = e instanceof CarrierApiError ? e.message : `${carrier.label} could not be reached.`;
  throw new HttpError(502, detail);
}

/** The numbers of the company's `provider` account. */
export async function ownedNumbers(
  deps: AppDeps,
  companyId: string,
  provider: string,
): Promise<{ carrier: Carrier; numbers: OwnedNumber[] }> {
  const { carrier, rest } = await restOf(deps, companyId, provider);
  try {
    return { carrier, numbers: await rest.listNumbers() };
  } catch (e) {
    carrierFailed(carrier, e);
  }
}

/** The listing answered to the browser: the account's numbers, marked when already on the platform. */
export async function carrierNumbers(
  deps: AppDeps,
  companyId: string,
  provider: string,
  onPlatform: (phones: string[]) => Promise<Set<string>>,
): Promise<CarrierNumber[]> {
  const { numbers } = await ownedNumbers(deps, companyId, provider);
  const taken = await onPlatform(numbers.map((n) => n.phoneNumber));
  return numbers.map((n) => ({
    phone_number: n.phoneNumber,
    friendly_name: n.friendlyName,
    voice: n.voice,
    in_parley: taken.has(n.phoneNumber),
  }));
}

/** Where an imported number of `carrier` sends its calls and their status. */
export function numberHooks(deps: AppDeps, carrier: Carrier) {
  const paths = carrierPaths(carrier);
  return { voiceUrl: `${publicBase(deps)}${paths.inbound}`, statusUrl: `${publicBase(deps)}${paths.numberStatus}` };
}

/** Points the number `ref` at Parley; answers what it had before. */
export async function pointAtParley(deps: AppDeps, companyId: string, provider: string, ref: string): Promise<string> {
  const { carrier, rest } = await restOf(deps, companyId, provider);
  try {
    return await rest.pointNumber(ref, numberHooks(deps, carrier));
  } catch (e) {
    carrierFailed(carrier, e);
  }
}

/** Sets back what an imported number had (it is released in Parley). */
export async function restoreCarrierNumber(
  deps: AppDeps,
  companyId: string,
  row: { provider: string; carrier_ref: string | null; carrier_previous: string | null },
): Promise<void> {
  if (!row.carrier_ref || !row.carrier_previous) return;
  const { carrier, rest } = await restOf(deps, companyId, row.provider);
  try {
    await rest.restoreNumber(row.carrier_ref, row.carrier_previous);
  } catch (e) {
    carrierFailed(carrier, e);
  }
}
