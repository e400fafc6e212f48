/**
 * The account's own Twilio numbers, written from Twilio's documentation of the IncomingPhoneNumber resource
 * (https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource):
 * - read: `GET /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json?PageSize=…` answers
 *   `incoming_phone_numbers: [{sid, phone_number, friendly_name, voice_url, voice_method, status_callback,
 *   status_callback_method, voice_application_sid, capabilities: {voice, sms, mms}}]` and `next_page_uri`
 *   (a path from the API's origin, null on the last page);
 * - fetch: `GET …/IncomingPhoneNumbers/{Sid}.json`;
 * - update: `POST …/IncomingPhoneNumbers/{Sid}.json` with `VoiceUrl`, `VoiceMethod`, `StatusCallback`,
 *   `StatusCallbackMethod`, `VoiceApplicationSid` (a number with a voice application ignores its voice URLs,
 *   so importing clears it and releasing sets it back).
 */
import { NUMBERS_LISTED, type NumberHooks, type OwnedNumber } from '../types.js';
import { TwilioApiError, type TwilioRest } from './rest.js';

const PAGE_SIZE = 100;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** What a number had before Parley pointed it at itself (restored when it is released). */
interface TwilioNumberSettings {
  VoiceUrl: string;
  VoiceMethod: string;
  StatusCallback: string;
  StatusCallbackMethod: string;
  VoiceApplicationSid: string;
}

export async function listTwilioNumbers(rest: TwilioRest): Promise<OwnedNumber[]> {
  const found: OwnedNumber[] = [];
  let path: string | null = `/IncomingPhoneNumbers.json?PageSize=${PAGE_SIZE}`;
  while (path && found.length < NUMBERS_LISTED) {
    const page = await rest.send(path);
    const rows = Array.isArray(page.incoming_phone_numbers) ? (page.incoming_phone_numbers as Record<string, unknown>[]) : [];
    for (const row of rows) {
      const phoneNumber = str(row.phone_number);
      const sid = str(row.sid);
      if (!/^\+[1-9]\d{6,14}$/.test(phoneNumber) || !sid) continue;
      const capabilities = (row.capabilities ?? {}) as Record<string, unknown>;
      found.push({ phoneNumber, ref: sid, friendlyName: str(row.friendly_name), voice: capabilities.voice !== false });
    }
    // next_page_uri is a path from the API's origin: keep only what follows the account
    const next = str(page.next_page_uri);
    const at = next.indexOf('/IncomingPhoneNumbers.json');
    path = next && at >= 0 ? next.slice(at) : null;
  }
  return found.slice(0, NUMBERS_LISTED);
}

export async function pointTwilioNumber(rest: TwilioRest, sid: string, hooks: NumberHooks): Promise<string> {
  if (!/^PN[0-9a-fA-F]{32}$/.test(sid)) throw new TwilioApiError(404, 'Twilio has no such number on this account.');
  const row = await rest.send(`/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`);
  const before: TwilioNumberSettings = {
    VoiceUrl: str(row.voice_url),
    VoiceMethod: str(row.voice_method) || 'POST',
    StatusCallback: str(row.status_callback),
    StatusCallbackMethod: str(row.status_callback_method) || 'POST',
    VoiceApplicationSid: str(row.voice_application_sid),
  };
  await rest.send(`/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`, [
    ['VoiceUrl', hooks.voiceUrl],
    ['VoiceMethod', 'POST'],
    ['StatusCallback', hooks.statusUrl],
    ['StatusCallbackMethod', 'POST'],
    ['VoiceApplicationSid', ''],
  ]);
  return JSON.stringify(before);
}

export async function restoreTwilioNumber(rest: TwilioRest, sid: string, previous: string): Promise<void> {
  const before = JSON.parse(previous) as Partial<TwilioNumberSettings>;
  const keys: (keyof TwilioNumberSettings)[] = [
    'VoiceUrl',
    'VoiceMethod',
    'StatusCallback',
    'StatusCallbackMethod',
    'VoiceApplicationSid',
  ];
  await rest.send(
    `/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`,
    keys.map((k) => [k, str(before[k])]),
  );
}
