/**
 * A company's provider key for a call, decrypted only in memory, with where to reach the
 * provider: the server's API base (AppConfig.providerUrls), or for OpenAI the company's own Base URL when it
 * set one, which then wins and is connected to only at public addresses (unless ALLOW_PRIVATE_PROVIDER_URLS).
 * A provider that is not connected, or whose stored key cannot be opened, throws ProviderKeyMissingError
 * with a message that names the provider to connect (src/api/contract/provider-keys.ts).
 */
import { PROVIDER_KEY_MESSAGES, PROVIDERS_PAGE, type ProviderKeyProblem } from '@contract/provider-keys.js';
import type { AppDeps } from '../../platform/deps.js';
import type { ProviderName } from '../../voice/providers/types.js';
import { normalizeBaseUrl } from '../../voice/providers/urls.js';
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

export interface ProviderAccess {
  apiKey: string;
  /** the API base to use (no trailing slash) */
  baseUrl: string;
  /** the base is the company's own: connect to public addresses only (LlmRequest/RealtimeOptions.publicOnly) */
  publicOnly: boolean;
}

/**
 * The key and API base of `provider` for `companyId`. `purpose` completes the message when it is missing
 * ('GPT 4o', 'speech recognition'; see modelPurpose and PROVIDER_PURPOSES).
 */
export async function providerAccess(
  deps: AppDeps,
  companyId: string,
  provider: ProviderName,
  purpose: string,
): Promise<ProviderAccess> {
  const row = await connectionByProvider(deps, companyId, provider);
  if (!row) throw new ProviderKeyMissingError(provider, PROVIDER_KEY_MESSAGES.notConnected(provider, purpose));
  const apiKey = openField(deps, row, 'API Key');
  if (!apiKey) throw new ProviderKeyMissingError(provider, PROVIDER_KEY_MESSAGES.unreadable(provider));
  const own = provider === 'openai' ? openField(deps, row, 'Base URL') : undefined;
  const ownBase = own ? normalizeBaseUrl(own) : null;
  if (ownBase) return { apiKey, baseUrl: ownBase, publicOnly: deps.config.allowPrivateProviderUrls !== true };
  return { apiKey, baseUrl: deps.config.providerUrls[provider], publicOnly: false };
}
