/**
 * Providers for the engine's own tests: they implement the adapter interfaces in memory (no wire
 * protocol: the adapters' protocol tests run against the fakes in tests/fakes). Each is scripted by the
 * test and records what the engine asked of it, so the tests check turn-taking, barge-in, latency and
 * storage exactly.
 */
import { createProviderRegistry, type ProviderRegistry } from '../../../server/voice/providers/registry.js';
import type {
  AudioFormat,
  LlmEvent,
  LlmProvider,
  LlmRequest,
  ProviderError,
  RealtimeEvent,
  RealtimeOptions,
  RealtimeProvider,
  SttEvent,
  SttOptions,
  SttProvider,
  TtsEvent,
  TtsOptions,
  TtsProvider,
} from '../../../server/voice/providers/types.js';

interface InProcessSet {
  stt: SttProvider;
  llm: { openai: LlmProvider; anthropic: LlmProvider };
  tts: { elevenlabs: TtsProvider; cartesia: TtsProvider };
  realtime: RealtimeProvider;
}

export interface SttHandle {
  options: SttOptions;
  emit(e: SttEvent): void;
  audioBytes: number;
  closed: boolean;
}

export interface RealtimeHandle {
  options: RealtimeOptions;
  emit(e: RealtimeEvent): void;
  audioBytes: number;
  interrupts: { itemId: string; playedMs: number }[];
  toolResults: { callId: string; output: string }[];
  /** the call ids of each sendToolResults (one request for the next response each) */
  toolBatches: string[][];
}

export interface LlmReply {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  error?: ProviderError;
  /** ms before the first event */
  delayMs?: number;
  /** awaited after the tool calls, before the rest of the answer (its usage, its end) */
  beforeEnd?: () => Promise<void>;
}

export class InProcessProviders {
  stt: SttHandle[] = [];
  llmRequests: LlmRequest[] = [];
  ttsTexts: { text: string; options: TtsOptions }[] = [];
  /** what the LLM answers, in order (the last one repeats) */
  replies: LlmReply[] = [{ text: 'Hello there.' }];
  sttError: ProviderError | undefined;
  ttsError: ProviderError | undefined;
  realtime: RealtimeHandle[] = [];
  /** ms of audio per character the voice makes */
  msPerChar = 10;

  /** The built-in providers with these in-process adapters instead of theirs, for createCallRuntime. */
  set(): ProviderRegistry {
    const self = this;
    const s: InProcessSet = {
      stt: {
        async connect(options, onEvent) {
          if (self.sttError) throw self.sttError;
          const handle: SttHandle = { options, emit: onEvent, audioBytes: 0, closed: false };
          self.stt.push(handle);
          return {
            sendAudio(frame) {
              handle.audioBytes += frame.byteLength;
            },
            finalize() {},
            async close() {
              handle.closed = true;
            },
            get audioSeconds() {
              return handle.audioBytes / bytesPerSecond(options.format);
            },
          };
        },
      },
      llm: {
        openai: { name: 'openai', stream: (r) => self.stream(r) },
        anthropic: { name: 'anthropic', stream: (r) => self.stream(r) },
      },
      tts: {
        elevenlabs: { name: 'elevenlabs', connect: (o, on, signal) => self.tts(o, on, signal) },
        cartesia: { name: 'cartesia', connect: (o, on, signal) => self.tts(o, on, signal) },
      },
      realtime: {
        async connect(options, onEvent) {
          const handle: RealtimeHandle = {
            options,
            emit: onEvent,
            audioBytes: 0,
            interrupts: [],
            toolResults: [],
            toolBatches: [],
          };
          self.realtime.push(handle);
          return {
            sendAudio(frame) {
              handle.audioBytes += frame.byteLength;
            },
            interrupt(itemId, playedMs) {
              handle.interrupts.push({ itemId, playedMs });
            },
            sendToolResults(results) {
              handle.toolResults.push(...results);
              handle.toolBatches.push(results.map((r) => r.callId));
            },
            async close() {},
          };
        },
      },
    };
    return createProviderRegistry().withAdapters({
      deepgram: { stt: s.stt },
      openai: { llm: s.llm.openai, realtime: s.realtime },
      anthropic: { llm: s.llm.anthropic },
      elevenlabs: { tts: s.tts.elevenlabs },
      cartesia: { tts: s.tts.cartesia },
    });
  }

  private async *stream(r: LlmRequest): AsyncIterable<LlmEvent> {
    this.llmRequests.push(r);
    const reply = this.replies.length > 1 ? (this.replies.shift() as LlmReply) : (this.replies[0] as LlmReply);
    if (reply.delayMs) await sleep(reply.delayMs, r.signal);
    if (reply.error) throw reply.error;
    for (const word of (reply.text ?? '').split(/(?<= )/)) {
      if (r.signal.aborted) return;
      yield { type: 'delta', text: word, at: performance.now() };
      await new Promise((res) => setImmediate(res));
    }
    for (const [i, call] of (reply.toolCalls ?? []).entries())
      yield { type: 'tool_call', call: { id: `call_${i}`, ...call }, at: performance.now() };
    await reply.beforeEnd?.();
    yield { type: 'usage', inputTokens: 100, outputTokens: 20 };
    yield { type: 'done', finishReason: reply.toolCalls?.length ? 'tool_calls' : 'stop' };
  }

  private async tts(options: TtsOptions, onEvent: (e: TtsEvent) => void, signal: AbortSignal) {
    if (this.ttsError) throw this.ttsError;
    let text = '';
    let cancelled = false;
    signal.addEventListener('abort', () => {
      cancelled = true;
    });
    const self = this;
    return {
      sendText(t: string) {
        text += t;
      },
      end() {
        self.ttsTexts.push({ text, options });
        const bytes = Math.round((text.length * self.msPerChar * bytesPerSecond(options.format)) / 1000) & ~1;
        const chunk = Math.max(2, Math.round(bytesPerSecond(options.format) / 10) & ~1);
        void (async () => {
          for (let i = 0; i < bytes && !cancelled; i += chunk) {
            await new Promise((res) => setImmediate(res));
            if (cancelled) return;
            onEvent({ type: 'audio', chunk: tone(Math.min(chunk, bytes - i), options.format), at: performance.now() });
          }
          if (!cancelled) onEvent({ type: 'done' });
        })();
      },
      cancel() {
        cancelled = true;
      },
      get characters() {
        return text.length;
      },
    };
  }
}

export const bytesPerSecond = (f: AudioFormat) => f.sampleRate * (f.encoding === 'pcm16' ? 2 : 1);

/** A loud square wave (PCM16) or its mu-law form. */
export function tone(bytes: number, format: AudioFormat): Uint8Array {
  const out = new Uint8Array(bytes);
  if (format.encoding === 'mulaw') {
    for (let i = 0; i < bytes; i++) out[i] = (i >> 4) % 2 ? 0x20 : 0xa0;
    return out;
  }
  const view = new DataView(out.buffer);
  for (let i = 0; i + 1 < bytes; i += 2) view.setInt16(i, (i >> 5) % 2 ? 8000 : -8000, true);
  return out;
}

function sleep(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
