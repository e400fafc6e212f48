/**
 * Which provider and model id run each model the editor offers (src/api/contract/models.ts).
 *
 * The editor's list (the spec's) names models several of which their providers have since retired (checked
 * 2026-11 on the providers' deprecation pages): OpenAI shut down gpt-4o-realtime-preview and
 * gpt-4o-mini-realtime-preview in 2026 (their GA successors are gpt-realtime and gpt-realtime-mini) and
 * retires gpt-4o and gpt-4o-mini on 2027-01-14; Anthropic retired claude-3-5-sonnet-20241022 (2025-10-28),
 * claude-3-5-haiku-20241022 (2026-02-19) and claude-3-haiku-20240307 (2026-04-20). A retired id would make
 * every call fail, so each runs as its provider's named successor, and the editor says so under the model
 * (`runsAs` in the contract): the label and the price per minute stay the spec's. Changing a row here is all
 * it takes to move on again.
 */
import { LLM_MODELS, type LlmModelId } from '@contract/models.js';

export type LlmRoute =
  /** cascaded pipeline: STT -> this chat model -> TTS */
  | { kind: 'chat'; provider: 'openai' | 'anthropic'; model: string }
  /** speech to speech over the OpenAI Realtime API */
  | { kind: 'realtime'; provider: 'openai'; model: string };

const KIND: Record<LlmModelId, LlmRoute['kind']> = {
  'gpt-4o-realtime': 'realtime',
  'gpt-4o-mini-realtime': 'realtime',
  'gpt-4o': 'chat',
  'gpt-4o-mini': 'chat',
  'claude-3.5-sonnet': 'chat',
  'claude-3.5-haiku': 'chat',
  'claude-3-haiku': 'chat',
};

export const LLM_ROUTES = Object.fromEntries(
  LLM_MODELS.map((m) => [
    m.id,
    KIND[m.id] === 'realtime'
      ? { kind: 'realtime', provider: 'openai', model: m.providerModel }
      : { kind: 'chat', provider: m.provider, model: m.providerModel },
  ]),
) as Record<LlmModelId, LlmRoute>;

export const llmRoute = (modelId: string): LlmRoute | undefined =>
  Object.hasOwn(LLM_ROUTES, modelId) ? LLM_ROUTES[modelId as LlmModelId] : undefined;
