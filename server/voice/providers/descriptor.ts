/** What a provider descriptor holds (the registry: registry.ts; the recipe: docs/call-providers.md). */
import { LLM_MODELS } from '@contract/models.js';
import { PROVIDERS, type ProviderField, type ProviderKind, type ProviderName } from '@contract/provider.js';
import type { KeyCheck } from '../../platform/net/key-check.js';
import type { LlmProvider, ProviderId, RealtimeProvider, SttProvider, TtsProvider } from './types.js';

/** The kinds of provider the call engine runs. */
export type VoiceKind = Extract<ProviderKind, 'stt' | 'llm' | 'tts' | 'realtime'>;

/** The adapters of one provider, one per kind it serves. */
export interface ProviderAdapters {
  stt?: SttProvider;
  llm?: LlmProvider;
  tts?: TtsProvider;
  realtime?: RealtimeProvider;
}

/** An editor model (`settings.llm.options.model`) a provider runs, and the provider's own model id. */
export interface ProviderModel {
  /** the editor's model id (src/api/contract/models.ts LLM_MODELS) */
  id: string;
  /** 'llm': the cascaded pipeline (speech-to-text, this model, text-to-speech); 'realtime': speech to speech */
  kind: 'llm' | 'realtime';
  /** the id sent to the provider */
  providerModel: string;
}

/** How a voice provider names its models. */
export interface VoiceModels {
  /** the provider's model id for the agent's voice model (`settings.tts.options.model`) and language */
  modelId(voiceModel: string, language: string): string;
  /** the model reads SSML phoneme tags (the agent's pronunciations); absent = never */
  readsPhonemes?(modelId: string): boolean;
}

export interface ProviderDescriptor {
  id: ProviderId;
  label: string;
  kinds: readonly ProviderKind[];
  /** what a company enters on the Providers page; none = the provider takes no key (a self-hosted one) */
  fields: readonly ProviderField[];
  /** its API's default base and the environment variable that replaces it (tests, gateways) */
  url: { default: string; env: string };
  /**
   * Its cheapest authenticated request, tried when a company connects or updates its card (Connect and
   * Update refuse credentials the provider refuses: server/platform/net/key-check.ts); absent = no key to try.
   */
  keyCheck?: KeyCheck;
  /** the editor models it runs (llm and realtime providers) */
  models?: readonly ProviderModel[];
  /** its voice models (tts providers) */
  voice?: VoiceModels;
  /** builds its adapters (once per registry) */
  create(): ProviderAdapters;
}

/** The server half of a catalogue provider's descriptor. */
export type ServerPart = Omit<ProviderDescriptor, 'id' | 'label' | 'kinds' | 'fields' | 'models'> & {
  /** more editor models than the catalogue gives it (LLM_MODELS rows whose provider it is) */
  models?: readonly ProviderModel[];
};

/** A catalogue provider's descriptor: its name, label, kinds, fields and editor models come from the contract. */
export function defineProvider<const N extends ProviderName>(name: N, server: ServerPart): ProviderDescriptor & { id: N } {
  const info = PROVIDERS.find((p) => p.name === name);
  if (!info) throw new Error(`${name} is not in the provider catalogue (src/api/contract/provider.ts)`);
  const models = LLM_MODELS.filter((m) => m.provider === name).map((m) => ({
    id: m.id,
    kind: m.kind,
    providerModel: m.providerModel,
  }));
  return {
    ...server,
    id: name,
    label: info.label,
    kinds: info.kinds,
    fields: info.fields,
    models: [...models, ...(server.models ?? [])],
  };
}
