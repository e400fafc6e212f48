/**
 * The call plan: what a conversation does, compiled once from the agent's stored document when the call
 * starts. The engine reads the plan, never the document: every setting is looked up, defaulted, clamped
 * and mapped to provider terms here (settings.ts has the table of what each editor setting does).
 *
 * A stored document is validated first with the contract's schema (AgentDocSchema in
 * src/api/contract/agent/save.ts): a document that does not pass (a model since retired, a field an old
 * version wrote) fails the call's start with InvalidAgentError, whose message names the fields.
 */
import type { Flow } from '@contract/agent/flow.js';
import type { AgentFunction } from '@contract/agent/functions.js';
import { type AgentDoc, AgentDocSchema } from '@contract/agent/save.js';
import * as v from 'valibot';
import type { CallSessionInput } from '../../../src/machines/callSession.machine.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { AudioFormat, TtsOptions } from '../providers/types.js';
import { type KeypadSettings, keypadSettings } from './keypad.js';
import { type Pipeline, pipelineOf, readsPhonemes, ttsModelId } from './pipeline.js';
import {
  type AgentTool,
  agentTools,
  boostedKeywords,
  type CallMode,
  endOfTurnMs,
  runnableFunctions,
  sessionInput,
} from './settings.js';
import { fillVariables } from './text.js';

/** The stored agent document did not pass the contract's schema. */
export class InvalidAgentError extends Error {
  constructor(readonly problems: string[]) {
    super(`The agent's settings are not valid (${problems.join('; ')}). Open the agent, check it and save it again.`);
    this.name = 'InvalidAgentError';
  }
}

/** At most this many problems are named in the message. */
const PROBLEMS_NAMED = 3;

/** A stored agent document (JSON text or parsed), validated; throws InvalidAgentError when it is not valid. */
export function parseAgentDoc(stored: string | unknown): AgentDoc {
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      throw new InvalidAgentError(['the document is not JSON']);
    }
  }
  const result = v.safeParse(AgentDocSchema, value);
  if (result.success) return result.output;
  throw new InvalidAgentError(
    result.issues.slice(0, PROBLEMS_NAMED).map((i) => {
      const path = v.getDotPath(i);
      return path ? `${path}: ${i.message}` : i.message;
    }),
  );
}

/** The stored document when it is valid, else undefined (for code that stores a call's end, never runs it). */
export function agentDocOrUndefined(stored: string | unknown): AgentDoc | undefined {
  try {
    return parseAgentDoc(stored);
  } catch (e) {
    if (e instanceof InvalidAgentError) return undefined;
    throw e;
  }
}

/** How the agent sounds: the voice provider's terms (voiceOptions adds the key and the line's format). */
export interface VoicePlan {
  voiceId: string;
  /** the voice provider's model id */
  model: string;
  language: string;
  speed: number;
  stability: number;
  similarity: number;
  volume: number;
  /** the voice reads the pronunciations as SSML phoneme tags */
  ssml: boolean;
  pronunciations: AgentDoc['editor']['pronunciations'];
}

export interface CallPlan {
  mode: CallMode;
  /** which providers run it */
  pipeline: Pipeline;
  /** the callSession machine's input (timings, greeting) */
  session: CallSessionInput;
  variables: Readonly<Record<string, string>>;
  /** the agent's prompt, variables filled */
  prompt: string;
  llm: {
    /** the model as the editor names it (usage and pricing) */
    editorModel: string;
    temperature: number;
  };
  stt: { language: string; model: string; keywords: string[] };
  voice: VoicePlan;
  /** end_call and transfer: carried out by the engine itself */
  tools: AgentTool[];
  /** the functions run through the tool registry (custom, mcp, calendars...), prepared at the conversation's start */
  functions: AgentFunction[];
  knowledgeBaseIds: string[];
  /** short acknowledgements while the caller talks at length (voice, cascaded only) */
  backchannel: { words: string; frequency: number } | null;
  /** the speech-to-speech session (a Realtime agent's voice call) */
  realtime: { voice: string; temperature: number; silenceMs: number } | null;
  /** the caller's keypad (phone calls): when an entry of keys ends */
  keypad: KeypadSettings;
  /** a conversation-flow agent's flow (flow.ts runs it); null for a single-prompt agent */
  flow: Flow | null;
}

/** The editor's voices are ElevenLabs voices: a Realtime agent speaks with this OpenAI voice. */
export const REALTIME_VOICE = 'alloy';
const OPENAI_VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);
/** Deepgram's model when the agent names none. */
const STT_MODEL = 'nova-2';

/**
 * The plan of one conversation of `agent` (a validated document). A voice call greets with the welcome
 * message (variables filled); a chat's greeting is already in its transcript.
 */
export function compileCallPlan(
  agent: AgentDoc,
  mode: CallMode,
  variables: Readonly<Record<string, string>>,
  providers: ProviderRegistry,
): CallPlan {
  const pipeline = pipelineOf(agent, providers);
  const e = agent.editor;
  const tts = agent.settings.tts.options;
  const voice = mode === 'voice';
  const speechToSpeech = voice && pipeline.mode === 'realtime';
  const flow = agent.kind === 'conversation_flow' && agent.flow ? agent.flow : null;
  // the flow's tools and prompts change within a turn: a speech-to-speech session cannot follow them
  if (flow && speechToSpeech)
    throw new InvalidAgentError(['a conversation flow runs on a text model: choose one that is not a Realtime model']);
  // the recording notice is spoken first, before the welcome message (or alone when there is none)
  const greeting = voice
    ? [e.recordingNotice?.trim() ?? '', fillVariables(agent.message, variables).trim()].filter(Boolean).join(' ')
    : '';
  return {
    mode,
    pipeline,
    session: sessionInput(agent, mode, greeting, speechToSpeech),
    variables,
    prompt: fillVariables(agent.prompt, variables),
    llm: { editorModel: agent.settings.llm.options.model, temperature: e.llmSettings.temperature },
    stt: {
      language: agent.settings.stt.options.language,
      model: agent.settings.stt.options.model ?? STT_MODEL,
      keywords: boostedKeywords(agent),
    },
    voice: {
      voiceId: tts.voice_id,
      model: ttsModelId(providers, pipeline.tts, agent),
      language: agent.settings.stt.options.language,
      speed: tts.speed ?? e.voiceSettings.speed,
      stability: tts.stability ?? 0.5,
      similarity: tts.similarity ?? 0.75,
      volume: e.voiceSettings.volume,
      ssml: readsPhonemes(providers, pipeline.tts, agent),
      pronunciations: e.pronunciations,
    },
    tools: agentTools(agent),
    functions: runnableFunctions(agent),
    knowledgeBaseIds: e.selectedKnowledgeBases
      .map((k) => k.knowledge_base_id)
      .filter((id): id is string => typeof id === 'string'),
    backchannel:
      voice && !speechToSpeech && e.backchanneling ? { words: e.backchannelWords, frequency: e.backchannelFrequency } : null,
    realtime: speechToSpeech
      ? {
          voice: OPENAI_VOICES.has(tts.voice_id) ? tts.voice_id : REALTIME_VOICE,
          temperature: Math.max(0.6, e.llmSettings.temperature),
          silenceMs: endOfTurnMs(e.responsiveness),
        }
      : null,
    keypad: keypadSettings(e),
    flow,
  };
}

/** A stored document (JSON text), validated and compiled; throws InvalidAgentError when it is not valid. */
export function planCall(
  stored: string,
  mode: CallMode,
  variables: Readonly<Record<string, string>>,
  providers: ProviderRegistry,
) {
  const agent = parseAgentDoc(stored);
  return { agent, plan: compileCallPlan(agent, mode, variables, providers) };
}

/** What the voice provider is asked: the plan's voice with the company's access and the line's format. */
export function voiceOptions(
  voice: VoicePlan,
  access: { apiKey: string; baseUrl: string } | undefined,
  defaultUrl: string | undefined,
  format: AudioFormat,
): TtsOptions {
  return {
    apiKey: access?.apiKey ?? '',
    baseUrl: access?.baseUrl ?? defaultUrl ?? '',
    voiceId: voice.voiceId,
    model: voice.model,
    language: voice.language,
    format,
    speed: voice.speed,
    stability: voice.stability,
    similarity: voice.similarity,
    volume: voice.volume,
  };
}
