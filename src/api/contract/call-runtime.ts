/**
 * Contract of the call runtime: the three ways to try an agent from the editor, and the call
 * detail view. Imported by the client AND the server.
 *
 * - Test LLM (text): `POST /chat` {agent_id, agent?, dynamic_variables?} -> {success, data: {chat_id}};
 *   `POST /chat/{chat_id}/message` {content} -> `text/event-stream` of ChatStreamEvent (`data: {...}` lines);
 *   `GET /chat/{chat_id}` -> the transcript; `POST /chat/{chat_id}/end` ends the chat now (closing the panel,
 *   New chat, leaving the page) and answers the transcript like GET; ending an ended chat changes nothing.
 * - Test (web call): `POST /call/web` {agent_id, agent?, dynamic_variables?} -> {success, data: {call_id,
 *   access_token}}; then the WebSocket `/call/web/{call_id}/stream?token={access_token}` (the token works
 *   once, within WEB_CALL_TOKEN_TTL_MS): binary frames of 16 kHz mono PCM16 little-endian both ways (20 ms
 *   each from the browser), and JSON text frames WebCallServerEvent from the server; the browser may send
 *   `{"type":"hangup"}`.
 * - Test Audio: `POST /voices/preview` {agent_id?, agent?, text?} -> `audio/wav` (16 kHz mono PCM16) spoken
 *   with the agent's voice and voice settings (the welcome message when `text` is absent).
 * - `GET /call/{id}` -> CallDetail; `GET /call/{id}/recording?token=` -> the recording (stereo WAV: caller
 *   left, agent right), through the signed `recording_url` of the detail (the owning company only).
 *
 * `agent` is the editor's current save payload, so a test runs unsaved edits; it is validated exactly like
 * a save (AgentSavePayloadSchema) and `agent_id` must still be one of the company's agents (or 'new' for
 * an agent not saved yet, which then requires `agent`).
 */
import * as v from 'valibot';
import { AgentSavePayloadSchema } from './agent/save';
import { CALL_STATUSES, CALL_TYPES } from './call-values';

export const WEB_CALL_SAMPLE_RATE = 16_000;
export const WEB_CALL_FRAME_MS = 20;
/** Bytes of one 20 ms frame of 16 kHz PCM16. */
export const WEB_CALL_FRAME_BYTES = (WEB_CALL_SAMPLE_RATE / 1000) * WEB_CALL_FRAME_MS * 2;
export const WEB_CALL_TOKEN_TTL_MS = 30_000;
export const CHAT_MESSAGE_MAX = 4000;
export const PREVIEW_TEXT_MAX = 500;
export const NEW_AGENT_ID = 'new';

export const CALL_RUNTIME_PATHS = {
  chat: '/chat',
  chatMessage: (chatId: string) => `/chat/${encodeURIComponent(chatId)}/message`,
  chatTranscript: (chatId: string) => `/chat/${encodeURIComponent(chatId)}`,
  chatEnd: (chatId: string) => `/chat/${encodeURIComponent(chatId)}/end`,
  webCall: '/call/web',
  webCallStream: (callId: string, token: string) =>
    `/call/web/${encodeURIComponent(callId)}/stream?token=${encodeURIComponent(token)}`,
  callDetail: (callId: string) => `/call/${encodeURIComponent(callId)}`,
  voicePreview: '/voices/preview',
} as const;

export const CALL_RUNTIME_MESSAGES = {
  agentNotFound: 'Agent not found',
  agentRequired: 'Send the agent being edited to try an agent that is not saved yet',
  chatNotFound: 'Chat not found',
  chatEnded: 'This chat has ended. Start a new one to go on.',
  chatBusy: 'The agent is still answering the previous message.',
  callNotFound: 'Call not found',
  callContentDeleted: 'The call content was deleted.',
  callStillLive: 'The call is still going on: delete its content once it has ended.',
  messageRequired: 'Type a message first',
  messageTooLong: `A message can have at most ${CHAT_MESSAGE_MAX} characters`,
  previewTextTooLong: `The text to speak can have at most ${PREVIEW_TEXT_MAX} characters`,
  previewTextRequired: 'There is no welcome message to speak: type a sentence to hear',
  tokenInvalid: 'This call link is not valid or has expired. Start the call again.',
  tooManySockets: 'Your company has too many calls open on this server right now. End one and try again.',
  microphoneDenied:
    'Parley cannot use your microphone. Allow microphone access for this site in your browser, then start the call again.',
  microphoneMissing: 'No microphone was found. Connect one and start the call again.',
  realtimeNoText: 'The Realtime models speak only: use Test (web call) to try this agent, or choose a text model for Test LLM.',
  /** `ended` of a line whose audio kept coming faster than real time (reason error_audio_flood) */
  audioFlood: 'The call was ended because its audio arrived faster than real time.',
} as const;

const DynamicVariablesSchema = v.pipe(
  v.record(v.pipe(v.string(), v.maxLength(100)), v.pipe(v.string(), v.maxLength(2000))),
  v.check((r) => Object.keys(r).length <= 100, 'At most 100 dynamic variables'),
);

const AgentIdSchema = v.pipe(v.string('agent_id is required'), v.nonEmpty('agent_id is required'), v.maxLength(100));

/** POST /chat and POST /call/web */
export const StartConversationBodySchema = v.pipe(
  v.object({
    agent_id: AgentIdSchema,
    agent: v.optional(AgentSavePayloadSchema),
    dynamic_variables: v.optional(DynamicVariablesSchema, {}),
  }),
  v.check((b) => b.agent_id !== NEW_AGENT_ID || b.agent !== undefined, CALL_RUNTIME_MESSAGES.agentRequired),
);
export type StartConversationBody = v.InferOutput<typeof StartConversationBodySchema>;
export type StartConversationInput = v.InferInput<typeof StartConversationBodySchema>;

export const StartChatResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ chat_id: v.string() }),
});

export const StartWebCallResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ call_id: v.string(), access_token: v.string() }),
});

/** POST /chat/{chat_id}/message */
export const ChatMessageBodySchema = v.object({
  content: v.pipe(
    v.string(CALL_RUNTIME_MESSAGES.messageRequired),
    v.trim(),
    v.nonEmpty(CALL_RUNTIME_MESSAGES.messageRequired),
    v.maxLength(CHAT_MESSAGE_MAX, CALL_RUNTIME_MESSAGES.messageTooLong),
  ),
});

/** One `data:` line of the message stream. */
export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool_call'; name: string; arguments: Record<string, unknown> }
  /** after each tool_call of a function the engine runs: its outcome as the model read it (cut), and how long it took */
  | { type: 'tool_result'; name: string; ok: boolean; result: string; ms: number }
  /** a conversation-flow agent entered a node (after a transition, or at the start) */
  | { type: 'node'; node_id: string; name: string }
  | { type: 'error'; message: string; reason: string }
  | { type: 'done'; ended: boolean };

export const ChatStreamEventSchema = v.variant('type', [
  v.object({ type: v.literal('delta'), text: v.string() }),
  v.object({ type: v.literal('tool_call'), name: v.string(), arguments: v.record(v.string(), v.unknown()) }),
  v.object({ type: v.literal('tool_result'), name: v.string(), ok: v.boolean(), result: v.string(), ms: v.number() }),
  v.object({ type: v.literal('node'), node_id: v.string(), name: v.string() }),
  v.object({ type: v.literal('error'), message: v.string(), reason: v.string() }),
  v.object({ type: v.literal('done'), ended: v.boolean() }),
]);

/**
 * One node a conversation-flow call went through: when it was entered and left, and the edge it left by
 * with why (`reason`: the condition the model chose, 'expression age >= 65', 'function ok', 'always',
 * 'else', 'global: <condition>' for a global node entered from here, 'back to where the call was').
 * Metadata only: the values of extracted variables are never in it.
 */
export const FlowPathStepSchema = v.object({
  node_id: v.string(),
  name: v.string(),
  /** ISO-8601 */
  entered_at: v.string(),
  left_at: v.nullable(v.string()),
  /** the edge taken out of the node; null while still there, or when a global node was entered */
  edge_id: v.nullable(v.string()),
  reason: v.nullable(v.string()),
});
export type FlowPathStep = v.InferOutput<typeof FlowPathStepSchema>;

/**
 * JSON text frames the server sends on a web call's socket. `ended.reason` is one of DISCONNECTION_REASONS
 * (src/api/contract/call.ts), shown in words by the call window; a browser whose audio keeps coming faster
 * than real time (16 kHz PCM16 is 32,000 bytes a second; the excess is dropped) is hung up with
 * `error_audio_flood` and CALL_RUNTIME_MESSAGES.audioFlood, and its socket closed with 1008.
 */
export type WebCallServerEvent =
  | { type: 'transcript'; role: 'user' | 'agent'; text: string; final: boolean }
  | { type: 'state'; value: 'listening' | 'thinking' | 'speaking' }
  | { type: 'clear' }
  /** a conversation-flow agent entered a node */
  | { type: 'node'; node_id: string; name: string }
  | { type: 'ended'; reason: string; message?: string };

export const WebCallServerEventSchema = v.variant('type', [
  v.object({ type: v.literal('transcript'), role: v.picklist(['user', 'agent']), text: v.string(), final: v.boolean() }),
  v.object({ type: v.literal('state'), value: v.picklist(['listening', 'thinking', 'speaking']) }),
  v.object({ type: v.literal('clear') }),
  v.object({ type: v.literal('node'), node_id: v.string(), name: v.string() }),
  v.object({ type: v.literal('ended'), reason: v.string(), message: v.optional(v.string()) }),
]);

/** JSON text frames the browser may send. */
export const WebCallClientEventSchema = v.variant('type', [v.object({ type: v.literal('hangup') })]);

/** POST /voices/preview */
export const VoicePreviewBodySchema = v.object({
  agent_id: v.optional(AgentIdSchema),
  agent: v.optional(AgentSavePayloadSchema),
  text: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(PREVIEW_TEXT_MAX, CALL_RUNTIME_MESSAGES.previewTextTooLong))),
});
export type VoicePreviewBody = v.InferOutput<typeof VoicePreviewBodySchema>;

// ---------------------------------------------------------------------------------------------
// Call detail

/**
 * One function call of an agent turn, as the transcript, the call detail and `call_ended` webhooks show
 * it. end_call and transfer have no result; a function the engine runs has its outcome: `status` 'ok',
 * 'error' (the tool answered an error or refused), 'timeout' (past its timeout_ms), 'cancelled' (the
 * caller barged in or the call ended; the result was dropped), 'invalid_arguments' (the model's arguments
 * failed the function's parameters schema; nothing was sent). `result` is what the model read, cut at
 * TOOL_RESULT_MAX_BYTES (src/api/contract/agent/functions.ts).
 */
export const TOOL_CALL_STATUSES = ['ok', 'error', 'timeout', 'cancelled', 'invalid_arguments'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];
export const ToolCallRecordSchema = v.object({
  name: v.string(),
  arguments: v.record(v.string(), v.unknown()),
  /** the function's type (custom, mcp, check_availability_cal...), when it is one the engine runs */
  type: v.optional(v.string()),
  status: v.optional(v.picklist(TOOL_CALL_STATUSES)),
  result: v.optional(v.string()),
  /** the tool's run time */
  ms: v.optional(v.number()),
});
export type ToolCallRecord = v.InferOutput<typeof ToolCallRecordSchema>;

export const TranscriptTurnSchema = v.object({
  role: v.picklist(['user', 'agent']),
  text: v.string(),
  /** ms from the start of the call */
  start_ms: v.number(),
  end_ms: v.number(),
  interrupted: v.optional(v.boolean()),
  tool_calls: v.optional(v.array(ToolCallRecordSchema)),
});
export type TranscriptTurn = v.InferOutput<typeof TranscriptTurnSchema>;

/** Per agent turn: end of the caller's speech -> the agent's first audio, and its parts. */
export const TurnLatencySchema = v.object({
  /** index of the agent's turn in the transcript */
  turn: v.number(),
  total_ms: v.number(),
  /** end of the caller's speech -> the final transcript */
  stt_ms: v.number(),
  /** the agent's end-of-turn wait (responsiveness) */
  wait_ms: v.number(),
  /** request -> the LLM's first token */
  llm_ms: v.number(),
  /** first sentence to the voice -> its first audio byte */
  tts_ms: v.number(),
});
export type TurnLatency = v.InferOutput<typeof TurnLatencySchema>;

export const CallUsageSchema = v.object({
  stt_seconds: v.number(),
  llm_input_tokens: v.number(),
  llm_output_tokens: v.number(),
  tts_characters: v.number(),
  /** minutes on the line (phone calls) */
  telephony_minutes: v.number(),
  llm_model: v.string(),
  stt_provider: v.string(),
  tts_provider: v.string(),
});
export type CallUsage = v.InferOutput<typeof CallUsageSchema>;

export const CostBreakdownSchema = v.object({
  stt: v.number(),
  llm: v.number(),
  tts: v.number(),
  telephony: v.number(),
  total: v.number(),
});
export type CostBreakdown = v.InferOutput<typeof CostBreakdownSchema>;

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];
export const ANALYSIS_STATUSES = ['pending', 'done', 'failed'] as const;

/**
 * The post-call analysis of a call: made by the agent's LLM after the call from its transcript
 * and the agent's 'Post Call Analysis' settings. `successful` (the call achieved its goal) fills the call's
 * 'Successful' column; `custom` holds the agent's custom fields by name, each of its type (null when the
 * call did not say).
 */
export const CallAnalysisSchema = v.object({
  status: v.picklist(ANALYSIS_STATUSES),
  summary: v.nullable(v.string()),
  sentiment: v.nullable(v.picklist(SENTIMENTS)),
  successful: v.nullable(v.boolean()),
  custom: v.record(v.string(), v.nullable(v.union([v.string(), v.number(), v.boolean()]))),
  /** why it failed (after its retries) */
  error: v.nullable(v.string()),
});
export type CallAnalysis = v.InferOutput<typeof CallAnalysisSchema>;

export const CallDetailSchema = v.object({
  _id: v.string(),
  type: v.picklist(CALL_TYPES),
  status: v.picklist(CALL_STATUSES),
  agent_id: v.nullable(v.string()),
  agent_name: v.string(),
  from: v.string(),
  to: v.string(),
  /** ISO-8601 */
  start_time: v.nullable(v.string()),
  end_time: v.nullable(v.string()),
  duration: v.number(),
  disconnection_reason: v.string(),
  error_message: v.nullable(v.string()),
  call_successful: v.boolean(),
  transcript: v.array(TranscriptTurnSchema),
  latency: v.array(TurnLatencySchema),
  usage: v.nullable(CallUsageSchema),
  cost: CostBreakdownSchema,
  /** a signed URL (valid about an hour) of the recording, or null */
  recording_url: v.nullable(v.string()),
  dynamic_variables: v.record(v.string(), v.string()),
  /** null: no analysis for this call (chats, imported calls) */
  analysis: v.optional(v.nullable(CallAnalysisSchema), null),
  /** ISO-8601: when the call's content (transcript, recording, analysis text) was deleted; null = still there */
  content_deleted_at: v.optional(v.nullable(v.string()), null),
  /**
   * Why the call shows less than was said, from the agent's data storage when the call ran: null (kept as
   * heard), 'everything_but_pii' (personal data replaced by markers, no recording kept) or 'metadata_only'
   * (no transcript, recording, analysis text, function arguments or results were kept).
   */
  content_withheld: v.optional(v.nullable(v.picklist(['everything_but_pii', 'metadata_only'])), null),
  /** a conversation-flow call's path through its flow, in order ([] for a single-prompt agent's call) */
  flow_path: v.optional(v.array(FlowPathStepSchema), []),
});
export type CallDetail = v.InferOutput<typeof CallDetailSchema>;

export const CallDetailResponseSchema = v.object({ success: v.literal(true), data: CallDetailSchema });

export const ChatTranscriptResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({
    chat_id: v.string(),
    ended: v.boolean(),
    transcript: v.array(TranscriptTurnSchema),
  }),
});
