/**
 * A company's provider key for a call, decrypted only in memory, with where to reach the
 * provider: the server's API base (AppConfig.providerUrls), or the company's own Base URL (a catalogue field
 * marked `url`, OpenAI's) when it set one, which then wins and is connected to only at public addresses (unless ALLOW_PRIVATE_PROVIDER_URLS).
 * A provider that is not connected, or whose stored key cannot be opened, throws ProviderKeyMissingError
 * with a message that names the provider to connect (src/api/contract/provider-keys.ts). A provider
 * registered outside the catalogue takes no key (server/voice/providers/registry.ts `register`).
 */

import { isProviderName, type ProviderName, providerInfo } from '@contract/provider.js';
import { PROVIDER_KEY_MESSAGES, PROVIDERS_PAGE, type ProviderKeyProblem } from '@contract/provider-keys.js';
import type { AppDeps } from '../../platform/deps.js';
import { normalizeBaseUrl } from '../../platform/net/base-url.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import type { ProviderAccess, ProviderId } from '../../voice/providers/types.js';
import { connectionByProvider } from './provider.repo.js';
import { openField } from './provider.store.js';

export class ProviderKeyMissingError extends Error {
  readonly link = PROVIDERS_PAGE;
  constructor(
    readonly provider: ProviderName,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderKeyMissingError';
  }

  /** The body the API answers (the UI links `link`). */
  toProblem(): ProviderKeyProblem {
    return { provider: this.provider, message: this.message, link: this.link };
  }
}

export type { ProviderAccess };

/**
 * The key and API base of `provider` for `companyId`. `purpose` completes the message when it is missing
 * ('GPT 4o', 'speech recognition'; see modelPurpose and providerPurpose).
 */
export async function providerAccess(
  deps: AppDeps,
  companyId: string,
  provider: ProviderId,
  purpose: string,
): Promise<ProviderAccess> {
  const serverBase = deps.config.providerUrls[provider] ?? callRuntimeOf(deps)?.providers.descriptor(provider)?.url.default ?? '';
  if (!isProviderName(provider)) return { apiKey: '', baseUrl: serverBase, publicOnly: false };
  const row = await connectionByProvider(deps, companyId, provider);
  if (!row) throw new ProviderKeyMissingError(provider, PROVIDER_KEY_MESSAGES.notConnected(provider, purpose));
  // the key is the card's 'API Key', or its one secret field on cards that name it otherwise (WhatsApp's Access Token)
  const info = providerInfo(provider);
  const keyField = info.fields.some((f) => f.name === 'API Key') ? 'API Key' : info.fields.find((f) => f.secret)?.name;
  const apiKey = keyField ? openField(deps, row, keyField) : undefined;
  if (!apiKey) throw new ProviderKeyMissingError(provider, PROVIDER_KEY_MESSAGES.unreadable(provider));
  // a card without an 'API Key' hands every field it has (the key alone does not reach the provider)
  const fields: Record<string, string> = {};
  if (keyField !== 'API Key')
    for (const f of info.fields) {
      const value = openField(deps, row, f.name);
      if (value) fields[f.name] = value;
    }
  const more = keyField !== 'API Key' ? { fields } : {};
  // a catalogue URL field (OpenAI's Base URL) is the company's own API base
  const urlField = info.fields.find((f) => f.url);
  const own = urlField ? openField(deps, row, urlField.name) : undefined;
  const ownBase = own ? normalizeBaseUrl(own) : null;
  if (ownBase) return { apiKey, baseUrl: ownBase, publicOnly: deps.config.allowPrivateProviderUrls !== true, ...more };
  return { apiKey, baseUrl: serverBase, publicOnly: false, ...more };
}
