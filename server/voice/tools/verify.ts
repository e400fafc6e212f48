/**
 * The check of a tool provider's card (POST /provider/check): one cheap authenticated request with the
 * company's stored key, so a wrong key shows on the Providers page and not in the middle of a call.
 * - Cal.com: GET /v2/me (https://cal.com/docs/api-reference/v2/me/get-my-profile), Bearer API key.
 * - Calendly: GET /users/me (https://developer.calendly.com/api-docs/calendly-api/users/get-current-user),
 *   Bearer Personal Access Token.
 * - Perplexity: no free endpoint checks a key: the smallest chat completion (model sonar, one word,
 *   max_tokens 1).
 * - WhatsApp: GET /{version}/{phone_number_id} with the Access Token (whatsapp/cloud-api.ts).
 */
import { realHttpClient } from '../../platform/deps.js';
import type { ProviderAccess } from '../providers/types.js';
import { failureOf, providerRequest } from './provider-request.js';
import { TOOL_PROVIDER_URLS } from './tool-urls.js';
import { ToolError } from './types.js';
import { checkWhatsAppCard } from './whatsapp/cloud-api.js';

export type CheckedToolProvider = keyof typeof TOOL_PROVIDER_URLS;
export const isCheckedToolProvider = (name: string): name is CheckedToolProvider => Object.hasOwn(TOOL_PROVIDER_URLS, name);

const LABELS: Record<CheckedToolProvider, string> = {
  calcom: 'Cal.com',
  calendly: 'Calendly',
  perplexity: 'Perplexity',
  whatsapp: 'WhatsApp',
};

const REQUESTS = {
  calcom: { method: 'GET', path: '/v2/me' },
  calendly: { method: 'GET', path: '/users/me' },
  perplexity: {
    method: 'POST',
    path: '/chat/completions',
    body: { model: 'sonar', max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] },
  },
} as const;

/** Whether the provider accepts the key, with a sentence for the Providers page. */
export async function checkToolProvider(
  name: CheckedToolProvider,
  access: ProviderAccess,
  signal: AbortSignal,
): Promise<{ ok: boolean; msg: string }> {
  const label = LABELS[name];
  if (name === 'whatsapp') {
    const phoneNumberId = access.fields?.['Phone Number ID'] ?? '';
    const accessToken = access.fields?.['Access Token'] ?? access.apiKey;
    return checkWhatsAppCard(realHttpClient, access.baseUrl, { phoneNumberId, accessToken }, signal);
  }
  const request = REQUESTS[name];
  try {
    const reply = await providerRequest(label, access, TOOL_PROVIDER_URLS[name].default, {
      method: request.method,
      path: request.path,
      ...('body' in request ? { body: request.body } : {}),
      signal,
    });
    if (reply.status === 200) return { ok: true, msg: `${label} accepted the key.` };
    return { ok: false, msg: failureOf(label, reply.status, undefined) };
  } catch (e) {
    if (e instanceof ToolError) return { ok: false, msg: e.message };
    if (signal.aborted) return { ok: false, msg: `${label} did not answer in time` };
    throw e;
  }
}
