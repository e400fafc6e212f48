/**
 * What the agent API answers: GET /agent, GET /agent/{id}, POST /agent, PUT /agent/{id}, DELETE /agent/{id}.
 */
import * as v from 'valibot';
import { AgentEditorSchema } from './editor';
import { AgentKindSchema, FlowSchema } from './flow';
import { AgentSettingsSchema } from './save';

const AgentDialogViewEntries = {
  agent_name: v.string(),
  voice_id: v.string(),
  voice_model: v.string(),
  language: v.string(),
  voice_temperature: v.number(),
  voice_speed: v.number(),
  volume: v.number(),
  enable_backchannel: v.boolean(),
  backchannel_frequency: v.number(),
  interruption_sensitivity: v.number(),
  ambient_sound_volume: v.number(),
  opt_out_sensitive_data_storage: v.boolean(),
  normalize_for_speech: v.boolean(),
  end_call_after_silence_ms: v.number(),
  enable_voicemail_detection: v.boolean(),
  max_call_duration_ms: v.number(),
  voicemail_detection_timeout_ms: v.number(),
};

/**
 * An agent as the server answers it: the stored document (name, prompt, message, settings, editor),
 * the dialog view (agent_name = name, voice_id, voice_model, language, ...), ownership and metadata.
 */
export const AgentSchema = v.object({
  _id: v.string(),
  name: v.string(),
  prompt: v.string(),
  message: v.string(),
  settings: AgentSettingsSchema,
  editor: AgentEditorSchema,
  /** `single_prompt` or `conversation_flow` (an answer without it is a single-prompt agent) */
  kind: v.optional(AgentKindSchema, 'single_prompt'),
  /** a conversation_flow agent's flow */
  flow: v.optional(FlowSchema),
  ...AgentDialogViewEntries,
  company: v.string(),
  account: v.string(),
  /** starts at 1, +1 on every update; send it back with PUT to detect conflicting saves */
  version: v.number(),
  /** ISO-8601 UTC */
  createdAt: v.string(),
  /** ISO-8601 UTC */
  updatedAt: v.string(),
});
export type Agent = v.InferOutput<typeof AgentSchema>;

/**
 * A row of GET /agent: the agent without its long texts (prompt, message), editor object and flow, which
 * GET /agent/{id} answers. Everything the table and the Update Agent dialog show is here, the kind included.
 */
export const AgentListItemSchema = v.omit(AgentSchema, ['prompt', 'message', 'editor', 'flow']);
export type AgentListItem = v.InferOutput<typeof AgentListItemSchema>;

/** GET /agent */
export const AgentListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ agents: v.array(AgentListItemSchema), total: v.number() }),
});
export type AgentListResponse = v.InferOutput<typeof AgentListResponseSchema>;

/** GET /agent/{id}, POST /agent (201), PUT /agent/{id} */
export const AgentResponseSchema = v.object({
  success: v.literal(true),
  msg: v.optional(v.string()),
  data: v.object({ agent: AgentSchema }),
});
export type AgentResponse = v.InferOutput<typeof AgentResponseSchema>;

/** DELETE /agent/{id} */
export const AgentDeleteResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  data: v.object({ _id: v.string() }),
});
export type AgentDeleteResponse = v.InferOutput<typeof AgentDeleteResponseSchema>;
