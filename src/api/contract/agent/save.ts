/**
 * The save payload (the specification's 'Agent save', POST /agent) = the stored document. ONE stored document per agent,
 * `AgentDoc`: exactly the editor's save payload (plus the `editor` object holding every other editor
 * field), without company/account (those come from the token).
 */
import * as v from 'valibot';
import { AGENT_FIXED_SETTINGS } from './defaults';
import { AgentEditorSchema, VOICE_STORED } from './editor';
import { LanguageSchema, LlmModelSchema, range, requiredText, text, VoiceModelSchema } from './fields';
import { AgentKindSchema, FlowSchema } from './flow';
import { AGENT_MESSAGE_MAX, AGENT_MESSAGES, AGENT_PROMPT_MAX } from './messages';

export const AgentSettingsSchema = v.object({
  llm: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.llmService),
    /** `model` is the chosen LLM model */
    options: v.object({ model: LlmModelSchema }),
  }),
  tts: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.ttsService),
    options: v.object({
      voice_id: requiredText(AGENT_MESSAGES.voiceRequired),
      model: VoiceModelSchema,
      speed: v.optional(VOICE_STORED.speed, 1),
      stability: v.optional(range(0, 1), AGENT_FIXED_SETTINGS.stability),
      similarity: v.optional(range(0, 1), AGENT_FIXED_SETTINGS.similarity),
      temperature: v.optional(VOICE_STORED.temperature),
      volume: v.optional(range(0, 1)),
    }),
  }),
  stt: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.sttService),
    /** `language` is the chosen language's BCP-47 code */
    options: v.object({ language: LanguageSchema, model: v.optional(text(50), AGENT_FIXED_SETTINGS.sttModel) }),
  }),
});
export type AgentSettings = v.InferOutput<typeof AgentSettingsSchema>;

export const saveEntries = {
  name: requiredText(AGENT_MESSAGES.agentNameRequired),
  /** ignored by the server: the owner comes from the access token */
  company: v.optional(v.string()),
  /** ignored by the server: the owner comes from the access token */
  account: v.optional(v.string()),
  prompt: v.optional(text(AGENT_PROMPT_MAX), ''),
  /** the welcome message */
  message: v.optional(text(AGENT_MESSAGE_MAX), ''),
  settings: AgentSettingsSchema,
  editor: v.optional(AgentEditorSchema, {}),
  /** `single_prompt` (missing = single_prompt) or `conversation_flow` */
  kind: v.optional(AgentKindSchema),
  /** a conversation_flow agent's flow (src/api/contract/agent/flow.ts); checked by validateFlow on save */
  flow: v.optional(FlowSchema),
};

/** POST /agent (and PUT /agent/{id} with the full payload). */
export const AgentSavePayloadSchema = v.object(saveEntries);
export type AgentSavePayload = v.InferOutput<typeof AgentSavePayloadSchema>;
export type AgentSavePayloadInput = v.InferInput<typeof AgentSavePayloadSchema>;

const { company: _company, account: _account, ...docEntries } = saveEntries;

/**
 * What the server stores for an agent (its single source of truth), as a schema: a call validates the
 * document stored with it once, when it starts (server/voice/engine/plan.ts).
 */
export const AgentDocSchema = v.object(docEntries);

/** What the server stores for an agent (its single source of truth). */
export type AgentDoc = Omit<AgentSavePayload, 'company' | 'account'>;
