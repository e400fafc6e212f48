/**
 * What a call (web call, Test LLM, Test Audio, phone) says when a provider it needs is not connected
 *: a message naming the provider to connect and what it is for, and where to connect it, so the
 * UI can show the message with a link to the Providers page. Shared by the server (which raises it) and the
 * client (which links it).
 */
import { LLM_MODELS } from './models';
import { type ProviderKind, type ProviderName, providerInfo, providerLabel } from './provider';

/** The Providers page, where keys are connected. */
export const PROVIDERS_PAGE = '/dashboard/providers';

export const PROVIDER_KEY_MESSAGES = {
  /** e.g. 'Connect OpenAI on the Providers page to use GPT 4o' */
  notConnected: (provider: ProviderName, purpose: string) =>
    `Connect ${providerInfo(provider).label} on the Providers page to use ${purpose}`,
  /** a stored key that no longer opens (the master key changed): it must be entered again */
  unreadable: (provider: ProviderName) =>
    `The ${providerInfo(provider).label} key can no longer be read. Enter it again on the Providers page.`,
} as const;

/** What a speech or voice provider is for, in the words of the message ('speech recognition', 'Cartesia voices'). */
export function providerPurpose(name: string, kinds: readonly ProviderKind[]): string {
  if (kinds.includes('stt')) return 'speech recognition';
  if (kinds.includes('tts')) return `${providerLabel(name)} voices`;
  return providerLabel(name);
}

/** The purpose of an LLM: the editor's label of the model ('GPT 4o'), or its id when unknown. */
export const modelPurpose = (modelId: string) => LLM_MODELS.find((m) => m.id === modelId)?.label ?? modelId;

/** The error body of an answer refused for a missing key: the message, the provider, and the link. */
export interface ProviderKeyProblem {
  provider: ProviderName;
  message: string;
  link: typeof PROVIDERS_PAGE;
}
