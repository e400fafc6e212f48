/**
 * Smallest (Waves): the call engine has no adapter for it yet (registry.ts NOT_RUN_HERE), but its card is
 * tried all the same. Authentication (https://waves-docs.smallest.ai/content/getting-started/authentication):
 * `Authorization: Bearer <key>` on every request, the documented example being GET
 * /api/v1/lightning/get_voices; a wrong key is 401.
 */
import type { KeyCheck } from '../../../platform/net/key-check.js';

export const SMALLEST_API_URL = { default: 'https://waves-api.smallest.ai', env: 'SMALLEST_API_URL' } as const;

export const smallestKeyCheck: KeyCheck = {
  field: 'API Key',
  request: (v) => ({ method: 'GET', path: '/api/v1/lightning/get_voices', headers: { authorization: `Bearer ${v('API Key')}` } }),
};
