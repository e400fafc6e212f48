/**
 * The provider adapters of the call runtime: speech-to-text, LLM, text-to-speech and
 * speech-to-speech. Each adapter speaks its provider's documented wire protocol; the only thing a test
 * changes is the base URL (tests/fakes/* serve the same protocol on 127.0.0.1).
 *
 * Rules every adapter follows:
 * - The caller asks for the transport's own audio format (`AudioFormat`); the adapter asks the provider for
 *   exactly that (16 kHz PCM16 for the browser, 8 kHz mu-law for phones), so nothing is transcoded. The
 *   one exception is documented where it lives (OpenAI Realtime has no 16 kHz PCM).
 * - Keys are passed in per call (decrypted only in memory) and never logged or put in an error message.
 * - Every failure becomes a `ProviderError` naming the provider and a kind; nothing hangs: connects and
 *   first responses have time limits, and an `AbortSignal` cancels everything at once (barge-in, hang-up).
 * - Times are `performance.now()` milliseconds, so the engine can measure latency across adapters.
 */

import type { ProviderName } from '@contract/provider.js';

export type AudioEncoding = 'pcm16' | 'mulaw';

/** Mono audio. pcm16 = signed 16-bit little-endian; mulaw = G.711 mu-law, one byte per sample. */
export interface AudioFormat {
  encoding: AudioEncoding;
  sampleRate: 8000 | 16000 | 24000;
}

export const BROWSER_AUDIO: AudioFormat = { encoding: 'pcm16', sampleRate: 16000 };
export const PHONE_AUDIO: AudioFormat = { encoding: 'mulaw', sampleRate: 8000 };

/** Bytes of `ms` milliseconds of audio in `format`. */
export const bytesPerMs = (format: AudioFormat) => (format.sampleRate / 1000) * (format.encoding === 'pcm16' ? 2 : 1);

/**
 * A provider's id in the registry (server/voice/providers/registry.ts): a catalogue name
 * (`ProviderName`, src/api/contract/provider.ts) for the built-in ones.
 */
export type ProviderId = ProviderName | (string & {});

export type ProviderErrorKind =
  /** the key was refused (401/403, or the provider's own auth error) */
  | 'auth'
  /** 429 or the provider's quota answer */
  | 'rate_limited'
  /** the request was refused as malformed (400/404/422): a bug or an unsupported option */
  | 'bad_request'
  /** 5xx, a dropped connection, an unparseable answer */
  | 'unavailable'
  /** no answer within the time limit */
  | 'timeout';

/** A provider failure; `message` is safe to show and to log (no key, no request body). */
export class ProviderError extends Error {
  constructor(
    readonly provider: ProviderId,
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * A company's access to one provider for a call (server/modules/providers/call-keys.ts looks it up): the key,
 * decrypted only in memory, and the API base to use (no trailing slash).
 */
export interface ProviderAccess {
  apiKey: string;
  baseUrl: string;
  /** the base is the company's own: connect to public addresses only (LlmRequest/RealtimeOptions.publicOnly) */
  publicOnly: boolean;
  /** every filled field of the company's card, by field name, decrypted (cards with more than a key: WhatsApp's Phone Number ID) */
  fields?: Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// Speech-to-text (live streaming, e.g. Deepgram)

export interface SttOptions {
  apiKey: string;
  baseUrl: string;
  /** BCP-47, e.g. 'en-US' */
  language: string;
  /** e.g. 'nova-2' */
  model: string;
  format: AudioFormat;
  /** boosted keywords (the agent's 'boostedKeywords') */
  keywords: string[];
  /** silence (ms) after speech that finalises a segment (`endpointing`) */
  endpointingMs: number;
  /** gap (ms) in words that ends an utterance (`utterance_end_ms`, at least 1000) */
  utteranceEndMs: number;
}

export type SttEvent =
  /** VAD: the caller started speaking (`SpeechStarted`) */
  | { type: 'speech_started'; at: number }
  /** a transcript segment; `isFinal` = the segment will not change; `speechFinal` = endpointing fired */
  | { type: 'transcript'; text: string; isFinal: boolean; speechFinal: boolean; at: number }
  /** `UtteranceEnd`: no word for utterance_end_ms */
  | { type: 'utterance_end'; at: number }
  /** the stream failed or closed unexpectedly */
  | { type: 'error'; error: ProviderError };

export interface SttStream {
  /** One frame of caller audio in the format asked for. Never blocks. */
  sendAudio(frame: Uint8Array): void;
  /** Asks the provider to flush what it has heard (`Finalize`). */
  finalize(): void;
  /** Ends the stream (`CloseStream`) and closes the socket. */
  close(): Promise<void>;
  /** seconds of audio sent so far (usage for cost) */
  readonly audioSeconds: number;
}

export interface SttProvider {
  /** Opens a live stream; KeepAlive is sent by the stream itself while no audio flows. */
  connect(options: SttOptions, onEvent: (e: SttEvent) => void, signal: AbortSignal): Promise<SttStream>;
}

// ---------------------------------------------------------------------------------------------
// LLM (OpenAI Chat Completions, Anthropic Messages), streaming

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type: 'object') */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  apiKey: string;
  baseUrl: string;
  /** the provider's model id (e.g. 'gpt-4o', 'claude-3-5-sonnet-latest') */
  model: string;
  messages: LlmMessage[];
  tools: ToolSpec[];
  temperature: number;
  maxTokens: number;
  signal: AbortSignal;
  /**
   * `baseUrl` is a company's own (its OpenAI card's Base URL), not the server's: connect only to public
   * addresses, checked at connect time, no redirects (server/platform/net/net-guard.ts). Set from keys.ts; absent = false.
   */
  publicOnly?: boolean;
  /**
   * Ask the provider for an answer in this shape instead of free text (post-call analysis): OpenAI gets
   * `response_format: {type: 'json_schema', json_schema: {name, strict: true, schema}}`, Anthropic a forced
   * tool (`tool_choice: {type: 'tool', name}`) whose `input_schema` is the schema. Either way the answer
   * arrives as `delta` events whose text joined is one JSON object; the caller still validates it.
   */
  structuredOutput?: StructuredOutput;
}

/** The JSON shape an answer must have (LlmRequest.structuredOutput). */
export interface StructuredOutput {
  /** ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's schema name, Anthropic's tool name) */
  name: string;
  description: string;
  /**
   * JSON Schema, `type: 'object'`, written for OpenAI's strict mode: every object lists all its properties
   * in `required` and has `additionalProperties: false`; optional values are nullable instead.
   */
  schema: Record<string, unknown>;
}

export type LlmEvent =
  | { type: 'delta'; text: string; at: number }
  | { type: 'tool_call'; call: ToolCall; at: number }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'done'; finishReason: 'stop' | 'tool_calls' | 'length' | 'other' };

export interface LlmProvider {
  readonly name: ProviderId;
  /** Streams one completion; throws ProviderError (also for an error event inside the stream). */
  stream(request: LlmRequest): AsyncIterable<LlmEvent>;
}

// ---------------------------------------------------------------------------------------------
// Text-to-speech (ElevenLabs stream-input, Cartesia), one stream per agent turn

export interface TtsOptions {
  apiKey: string;
  baseUrl: string;
  voiceId: string;
  /** the provider's model id (mapped from the agent's voice model by the adapter's own table) */
  model: string;
  /** BCP-47 of the agent */
  language: string;
  format: AudioFormat;
  /** 0.7-1.2 at ElevenLabs; the agent's voice speed (clamped by the adapter to the provider's range) */
  speed: number;
  stability: number;
  similarity: number;
  volume: number;
  /** the text carries SSML phoneme tags (the agent's pronunciations) for the provider to read */
  ssml?: boolean;
}

export type TtsEvent =
  /** audio in the format asked for; `at` when it arrived */
  | { type: 'audio'; chunk: Uint8Array; at: number }
  /** every text sent has been spoken (after `end()`) */
  | { type: 'done' }
  | { type: 'error'; error: ProviderError };

export interface TtsStream {
  /** Text as it arrives (sentence by sentence); the adapter adds what the protocol needs (trailing space, flush). */
  sendText(text: string): void;
  /** No more text this turn: flush and finish; `done` follows the last audio. */
  end(): void;
  /** Barge-in / hang-up: stop at once, drop what is not yet received, close. */
  cancel(): void;
  /** characters sent so far (usage for cost) */
  readonly characters: number;
}

export interface TtsProvider {
  readonly name: ProviderId;
  connect(options: TtsOptions, onEvent: (e: TtsEvent) => void, signal: AbortSignal): Promise<TtsStream>;
}

// ---------------------------------------------------------------------------------------------
// Speech-to-speech (OpenAI Realtime), the second path of the same machine

export interface RealtimeOptions {
  apiKey: string;
  baseUrl: string;
  /** e.g. 'gpt-4o-realtime-preview', 'gpt-4o-mini-realtime-preview' */
  model: string;
  instructions: string;
  /** an OpenAI voice (alloy, ash, ballad, coral, echo, sage, shimmer, verse) */
  voice: string;
  /** the transport's format: mu-law 8 kHz is sent as g711_ulaw; PCM16 16 kHz is resampled to and from the API's 24 kHz PCM16 */
  format: AudioFormat;
  tools: ToolSpec[];
  temperature: number;
  /** server VAD: silence that ends the caller's turn, and the speech threshold (0-1) */
  silenceMs: number;
  vadThreshold: number;
  /** the first thing the agent says, if any (sent as a response with these instructions) */
  greeting?: string;
  /**
   * `baseUrl` is a company's own (its OpenAI card's Base URL), not the server's: connect only to public
   * addresses, checked at connect time, no redirects (server/platform/net/net-guard.ts). Set from keys.ts; absent = false.
   */
  publicOnly?: boolean;
}

export type RealtimeEvent =
  | { type: 'speech_started'; at: number }
  | { type: 'speech_stopped'; at: number }
  | { type: 'user_transcript'; text: string; at: number }
  | { type: 'audio'; chunk: Uint8Array; itemId: string; at: number }
  | { type: 'agent_transcript'; text: string; itemId: string; at: number }
  | { type: 'tool_call'; call: ToolCall; at: number }
  | { type: 'response_done'; inputTokens: number; outputTokens: number; at: number }
  | { type: 'error'; error: ProviderError };

export interface RealtimeSession {
  sendAudio(frame: Uint8Array): void;
  /** Barge-in: cancel the response in progress and truncate the item at what the caller heard. */
  interrupt(itemId: string, playedMs: number): void;
  /**
   * Answer every tool call of a response: each result as its own output item, then ONE request for the
   * next response (adding an output does not start a response; asking once per output would start one
   * before the others are in, and the API refuses a second while one is active).
   */
  sendToolResults(results: { callId: string; output: string }[]): void;
  close(): Promise<void>;
}

export interface RealtimeProvider {
  connect(options: RealtimeOptions, onEvent: (e: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeSession>;
}
