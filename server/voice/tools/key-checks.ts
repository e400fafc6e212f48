/**
 * The key checks of the tool providers' cards, tried when a company connects or updates one (the same
 * requests as the on-demand check, verify.ts):
 * - Cal.com: GET /v2/me (https://cal.com/docs/api-reference/v2/me/get-my-profile), Bearer API key; 401 otherwise.
 * - Calendly: GET /users/me (https://developer.calendly.com/api-docs/calendly-api/users/get-current-user),
 *   Bearer Personal Access Token; 401 {title: 'Unauthenticated', message} otherwise.
 * - Perplexity: no free endpoint checks a key: the smallest chat completion (model sonar, max_tokens 1),
 *   Bearer key (https://docs.perplexity.ai/api-reference/chat-completions-post); 401 otherwise.
 * - WhatsApp: GET /{version}/{phone_number_id} with the Access Token (whatsapp/cloud-api.ts): 401 with code 190
 *   for a token Meta refuses, 400 with code 100 for a Phone Number ID it does not know or the token cannot
 *   see (https://developers.facebook.com/docs/graph-api/guides/error-handling).
 */
import type { KeyCheck } from '../../platform/net/key-check.js';
import type { CheckedToolProvider } from './verify.js';
import { WHATSAPP_GRAPH_VERSION } from './whatsapp/cloud-api.js';

const bearer = (field: string, path: string): KeyCheck => ({
  field,
  request: (v) => ({ method: 'GET', path, headers: { authorization: `Bearer ${v(field)}` } }),
});

const graphCode = (body: unknown) =>
  body && typeof body === 'object' ? (body as { error?: { code?: unknown } }).error?.code : undefined;

export const TOOL_KEY_CHECKS: Record<CheckedToolProvider, KeyCheck> = {
  calcom: bearer('API Key', '/v2/me'),
  calendly: bearer('Personal Access Token', '/users/me'),
  perplexity: {
    field: 'API Key',
    request: (v) => ({
      method: 'POST',
      path: '/chat/completions',
      headers: { authorization: `Bearer ${v('API Key')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sonar', max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] }),
    }),
  },
  whatsapp: {
    field: 'Access Token',
    request: (v) => ({
      method: 'GET',
      path: `/${WHATSAPP_GRAPH_VERSION}/${encodeURIComponent(v('Phone Number ID'))}`,
      headers: { authorization: `Bearer ${v('Access Token')}` },
    }),
    refusedField: (status, body) => (status === 400 && graphCode(body) === 100 ? 'Phone Number ID' : undefined),
  },
};
