/**
 * Which providers run an agent, chosen from the provider registry (server/voice/providers/registry.ts): its
 * LLM model decides the LLM or the speech-to-speech path (the provider whose descriptor runs that editor
 * model); its voice service the voice, its speech service the recognition (each when a registered provider
 * serves it, else the registry's first of the kind: ElevenLabs, Deepgram). `requiredProviders` says which
 * keys a call needs, so a missing one is named before anything starts.
 */
import type { AgentDoc } from '@contract/agent/save.js';
import { DEFAULT_LLM_MODEL } from '@contract/models.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderId } from '../providers/types.js';

export interface Pipeline {
  mode: 'cascade' | 'realtime';
  llm: { provider: ProviderId; model: string; editorModel: string };
  tts: ProviderId;
  stt: ProviderId;
}

export function pipelineOf(agent: AgentDoc, providers: ProviderRegistry): Pipeline {
  const editorModel = agent.settings.llm.options.model;
  const route = providers.modelRoute(editorModel) ?? providers.modelRoute(DEFAULT_LLM_MODEL);
  if (!route) throw new Error(`No provider runs ${editorModel} or ${DEFAULT_LLM_MODEL}`);
  return {
    mode: route.kind === 'realtime' ? 'realtime' : 'cascade',
    llm: { provider: route.provider, model: route.providerModel, editorModel },
    tts: providers.pick('tts', agent.settings.tts.service),
    stt: providers.pick('stt', agent.settings.stt.service),
  };
}

/** The providers whose keys a conversation needs: text needs only the LLM; realtime voice only its provider. */
export function requiredProviders(p: Pipeline, mode: 'voice' | 'text'): ProviderId[] {
  if (mode === 'text' || p.mode === 'realtime') return [p.llm.provider];
  return [p.stt, p.llm.provider, p.tts];
}

/** The voice provider's model id for the agent's voice model (and language). */
export function ttsModelId(providers: ProviderRegistry, tts: ProviderId, agent: AgentDoc): string {
  const voiceModel = agent.settings.tts.options.model;
  return providers.descriptor(tts)?.voice?.modelId(voiceModel, agent.settings.stt.options.language) ?? voiceModel;
}

/**
 * Whether the voice reads the agent's pronunciations (SSML phoneme tags): the voice models whose descriptor
 * says so (ElevenLabs' English ones). Elsewhere the words are spoken as written (docs: README, "Agents that talk").
 */
export function readsPhonemes(providers: ProviderRegistry, tts: ProviderId, agent: AgentDoc): boolean {
  if (agent.editor.pronunciations.length === 0) return false;
  return providers.descriptor(tts)?.voice?.readsPhonemes?.(ttsModelId(providers, tts, agent)) ?? false;
}
