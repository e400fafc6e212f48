/**
 * Which providers run an agent: its LLM model decides the LLM (OpenAI or Anthropic) or the speech-to-speech
 * path (the two Realtime models); its voice service the voice (ElevenLabs, else Cartesia); speech is
 * recognised by Deepgram. `requiredProviders` says which keys a call needs, so a missing one is named
 * before anything starts.
 */
import type { AgentDoc } from '@contract/agent/save.js';
import { cartesiaModelId } from '../providers/cartesia.js';
import { elevenLabsModelId, PHONEME_MODELS } from '../providers/elevenlabs.js';
import { LLM_ROUTES, llmRoute } from '../providers/models.js';
import type { LlmProvider, ProviderName, RealtimeProvider, SttProvider, TtsProvider } from '../providers/types.js';

export interface ProviderSet {
  stt: SttProvider;
  llm: { openai: LlmProvider; anthropic: LlmProvider };
  tts: { elevenlabs: TtsProvider; cartesia: TtsProvider };
  realtime: RealtimeProvider;
}

export interface Pipeline {
  mode: 'cascade' | 'realtime';
  llm: { provider: 'openai' | 'anthropic'; model: string; editorModel: string };
  tts: 'elevenlabs' | 'cartesia';
  stt: 'deepgram';
}

export function pipelineOf(agent: AgentDoc): Pipeline {
  const editorModel = agent.settings.llm.options.model;
  const route = llmRoute(editorModel) ?? LLM_ROUTES['gpt-4o'];
  return {
    mode: route.kind === 'realtime' ? 'realtime' : 'cascade',
    llm: { provider: route.provider, model: route.model, editorModel },
    tts: agent.settings.tts.service === 'cartesia' ? 'cartesia' : 'elevenlabs',
    stt: 'deepgram',
  };
}

/** The providers whose keys a conversation needs: text needs only the LLM; realtime voice only OpenAI. */
export function requiredProviders(p: Pipeline, mode: 'voice' | 'text'): ProviderName[] {
  if (mode === 'text') return [p.llm.provider];
  if (p.mode === 'realtime') return ['openai'];
  return [p.stt, p.llm.provider, p.tts];
}

/** The voice provider's model id for the agent's voice model (and language). */
export function ttsModelId(tts: Pipeline['tts'], agent: AgentDoc): string {
  const voiceModel = agent.settings.tts.options.model;
  return tts === 'cartesia' ? cartesiaModelId(voiceModel) : elevenLabsModelId(voiceModel, agent.settings.stt.options.language);
}

/**
 * Whether the voice reads the agent's pronunciations (SSML phoneme tags): ElevenLabs' English models that
 * take them. Elsewhere the words are spoken as written (docs: README, "Agents that talk").
 */
export const readsPhonemes = (tts: Pipeline['tts'], agent: AgentDoc) =>
  agent.editor.pronunciations.length > 0 && tts === 'elevenlabs' && PHONEME_MODELS.has(ttsModelId(tts, agent));
