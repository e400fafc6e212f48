/**
 * The account's own Plivo numbers, written from Plivo's documentation (https://www.plivo.com/docs/numbers/api/
 * account-phone-number and https://www.plivo.com/docs/voice/api/application):
 * - list: `GET /v1/Account/{auth_id}/Number/?limit=20&offset=…` answers `meta: {limit, offset, next,
 *   total_count}` and `objects: [{number, alias, application, voice_enabled, …}]` (numbers without '+',
 *   `application` the linked application's URI `/v1/Account/{auth_id}/Application/{app_id}/` or null);
 * - retrieve: `GET …/Number/{number}/`; update: `POST …/Number/{number}/` with `app_id` (an empty `app_id`
 *   unlinks the number);
 * - a Plivo number rings the Answer URL of its application: importing creates one application
 *   (`POST …/Application/` with `app_name`, `answer_url`, `answer_method`, `hangup_url`, `hangup_method`;
 *   answers `app_id`) and links the number to it; releasing links the number back to the application it had
 *   and deletes Parley's (`DELETE …/Application/{app_id}/`).
 */
import { NUMBERS_LISTED, type NumberHooks, type OwnedNumber } from '../types.js';
import { PlivoApiError, type PlivoRest } from './rest.js';

/** Plivo lists at most 20 a page. */
const PAGE_SIZE = 20;
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const appIdOf = (uri: unknown) => /\/Application\/([^/]+)\/?$/.exec(str(uri))?.[1] ?? '';

interface PlivoNumberSettings {
  /** the application the number had ('' when none) */
  app_id: string;
  /** the application Parley created for it */
  parley_app_id: string;
}

export async function listPlivoNumbers(rest: PlivoRest): Promise<OwnedNumber[]> {
  const found: OwnedNumber[] = [];
  for (let offset = 0; found.length < NUMBERS_LISTED; offset += PAGE_SIZE) {
    const page = await rest.request('GET', `/Number/?limit=${PAGE_SIZE}&offset=${offset}`);
    const rows = Array.isArray(page.objects) ? (page.objects as Record<string, unknown>[]) : [];
    for (const row of rows) {
      const digits = str(row.number);
      if (!/^[1-9]\d{6,14}$/.test(digits)) continue;
      found.push({ phoneNumber: `+${digits}`, ref: digits, friendlyName: str(row.alias), voice: row.voice_enabled !== false });
    }
    const meta = (page.meta ?? {}) as Record<string, unknown>;
    if (rows.length < PAGE_SIZE || !meta.next) break;
  }
  return found.slice(0, NUMBERS_LISTED);
}

export async function pointPlivoNumber(rest: PlivoRest, number: string, hooks: NumberHooks): Promise<string> {
  if (!/^[1-9]\d{6,14}$/.test(number)) throw new PlivoApiError(404, 'Plivo has no such number on this account.');
  const row = await rest.request('GET', `/Number/${number}/`);
  const created = await rest.request('POST', '/Application/', {
    app_name: `Parley +${number}`,
    answer_url: hooks.voiceUrl,
    answer_method: 'POST',
    hangup_url: hooks.statusUrl,
    hangup_method: 'POST',
  });
  const appId = str(created.app_id);
  if (!appId) throw new PlivoApiError(502, 'Plivo answered without an application.');
  await rest.request('POST', `/Number/${number}/`, { app_id: appId });
  const before: PlivoNumberSettings = { app_id: appIdOf(row.application), parley_app_id: appId };
  return JSON.stringify(before);
}

export async function restorePlivoNumber(rest: PlivoRest, number: string, previous: string): Promise<void> {
  const before = JSON.parse(previous) as Partial<PlivoNumberSettings>;
  await rest.request('POST', `/Number/${number}/`, { app_id: str(before.app_id) });
  const ours = str(before.parley_app_id);
  if (ours) await rest.request('DELETE', `/Application/${encodeURIComponent(ours)}/`).catch(() => undefined);
}
