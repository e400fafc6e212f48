/**
 * The catalogues of the specification: LLM models with their price per minute, languages (BCP-47 codes,
 * sent as `settings.stt.options.language`) and voice models (sent as `settings.tts.options.model`).
 * Shared by the client pickers and the server validators.
 */
import type { ProviderOfKind } from './provider';

export interface LlmModel {
  /** sent as `settings.llm.options.model` */
  id: string;
  label: string;
  /** USD per minute of call */
  pricePerMinute: number;
  /** 'llm': speech is recognised and spoken by the agent's other providers; 'realtime': the model hears and speaks */
  kind: 'llm' | 'realtime';
  provider: ProviderOfKind<'llm' | 'realtime'>;
  /** the provider's model id a call runs (server/voice/providers/registry.ts routes it) */
  providerModel: string;
  /** when the provider retired the named model: what runs instead, shown under the picker */
  runsAs?: string;
}

export const LLM_MODELS = [
  {
    id: 'gpt-4o-realtime',
    label: 'GPT 4o Realtime',
    pricePerMinute: 0.5,
    kind: 'realtime',
    provider: 'openai',
    providerModel: 'gpt-realtime',
    runsAs: 'Runs as gpt-realtime: OpenAI retired gpt-4o-realtime-preview in 2026.',
  },
  {
    id: 'gpt-4o-mini-realtime',
    label: 'GPT 4o mini Realtime',
    pricePerMinute: 0.125,
    kind: 'realtime',
    provider: 'openai',
    providerModel: 'gpt-realtime-mini',
    runsAs: 'Runs as gpt-realtime-mini: OpenAI retired gpt-4o-mini-realtime-preview in 2026.',
  },
  { id: 'gpt-4o', label: 'GPT 4o', pricePerMinute: 0.05, kind: 'llm', provider: 'openai', providerModel: 'gpt-4o' },
  {
    id: 'gpt-4o-mini',
    label: 'GPT 4o mini',
    pricePerMinute: 0.006,
    kind: 'llm',
    provider: 'openai',
    providerModel: 'gpt-4o-mini',
  },
  {
    id: 'claude-3.5-sonnet',
    label: 'Claude 3.5 Sonnet',
    pricePerMinute: 0.06,
    kind: 'llm',
    provider: 'anthropic',
    providerModel: 'claude-sonnet-4-5',
    runsAs: 'Runs as Claude Sonnet 4.5: Anthropic retired Claude 3.5 Sonnet on 2025-10-28.',
  },
  {
    id: 'claude-3.5-haiku',
    label: 'Claude 3.5 Haiku',
    pricePerMinute: 0.02,
    kind: 'llm',
    provider: 'anthropic',
    providerModel: 'claude-haiku-4-5',
    runsAs: 'Runs as Claude Haiku 4.5: Anthropic retired Claude 3.5 Haiku on 2026-02-19.',
  },
  {
    id: 'claude-3-haiku',
    label: 'Claude 3 Haiku',
    pricePerMinute: 0.012,
    kind: 'llm',
    provider: 'anthropic',
    providerModel: 'claude-haiku-4-5',
    runsAs: 'Runs as Claude Haiku 4.5: Anthropic retired Claude 3 Haiku on 2026-04-20.',
  },
] as const satisfies readonly LlmModel[];
export type LlmModelId = (typeof LLM_MODELS)[number]['id'];
export const LLM_MODEL_IDS = LLM_MODELS.map((m) => m.id) as LlmModelId[];
export const DEFAULT_LLM_MODEL: LlmModelId = 'gpt-4o';

export interface Language {
  /** BCP-47 code */
  code: string;
  label: string;
}

export const LANGUAGES = [
  { code: 'en-US', label: 'English' },
  { code: 'es-ES', label: 'Spanish' },
  { code: 'fr-FR', label: 'French' },
  { code: 'de-DE', label: 'German' },
  { code: 'it-IT', label: 'Italian' },
  { code: 'pt-BR', label: 'Portuguese' },
  { code: 'zh-CN', label: 'Chinese' },
  { code: 'ja-JP', label: 'Japanese' },
  { code: 'ko-KR', label: 'Korean' },
  { code: 'ru-RU', label: 'Russian' },
] as const satisfies readonly Language[];
export type LanguageCode = (typeof LANGUAGES)[number]['code'];
export const LANGUAGE_CODES = LANGUAGES.map((l) => l.code) as LanguageCode[];
export const DEFAULT_LANGUAGE: LanguageCode = 'en-US';

export interface VoiceModel {
  /** sent as `settings.tts.options.model` */
  id: string;
  label: string;
  note: string;
  multilingual: boolean;
}

export const VOICE_MODELS = [
  { id: 'auto', label: 'Auto', note: 'English only', multilingual: false },
  { id: 'turbo', label: 'Turbo', note: 'English only', multilingual: false },
  { id: 'flash', label: 'Flash', note: 'English only, fastest', multilingual: false },
  { id: 'turbo25', label: 'Turbo 2.5', note: 'Multilingual', multilingual: true },
  { id: 'flash25', label: 'Flash 2.5', note: 'Multilingual, fastest', multilingual: true },
  { id: 'multilingual_v2', label: 'Multilingual v2', note: 'Multilingual, slowest, highest quality', multilingual: true },
] as const satisfies readonly VoiceModel[];
export type VoiceModelId = (typeof VOICE_MODELS)[number]['id'];
export const VOICE_MODEL_IDS = VOICE_MODELS.map((m) => m.id) as VoiceModelId[];
export const DEFAULT_VOICE_MODEL: VoiceModelId = 'auto';

/** Voice and telephony per minute, added to the model price: $0.05 (GPT 4o) + $0.031 = the default $0.081/min. */
export const VOICE_AND_TELEPHONY_PER_MINUTE = 0.031;
export const DEFAULT_LATENCY = '1150-1400ms';

/** Cost per minute of an agent using this model (USD), e.g. 0.081 for GPT 4o. */
export function agentCostPerMinute(modelId: string): number {
  const model = LLM_MODELS.find((m) => m.id === modelId) ?? LLM_MODELS.find((m) => m.id === DEFAULT_LLM_MODEL)!;
  return Math.round((model.pricePerMinute + VOICE_AND_TELEPHONY_PER_MINUTE) * 1000) / 1000;
}
