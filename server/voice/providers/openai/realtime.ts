/**
 * OpenAI Realtime API, speech to speech over a WebSocket (RealtimeProvider), in its GA interface.
 *
 * Why GA and not the beta shape: OpenAI shut the beta interface (`OpenAI-Beta: realtime=v1`,
 * `input_audio_format: 'g711_ulaw'`, `response.audio.delta`) down on 2026-05-12; since then the server
 * answers it with an `error` event `beta_api_shape_disabled` and closes (tests/fakes/openai.ts cites the
 * reports). The GA interface carries the same features under new names, mapped below.
 *
 * Connects to `wss://{host}/v1/realtime?model=<model>` with `Authorization: Bearer <key>`, waits for
 * `session.created`, sends one `session.update`:
 *   {type: 'realtime', instructions, output_modalities: ['audio'], tools: [{type: 'function', name,
 *    description, parameters}], tool_choice: 'auto', audio: {
 *      input: {format, transcription: {model: 'whisper-1'}, turn_detection: {type: 'server_vad', threshold,
 *              silence_duration_ms, prefix_padding_ms: 300, create_response: true, interrupt_response: false}},
 *      output: {format, voice}}}
 * where format is `{type: 'audio/pcmu'}` for mu-law 8 kHz (passed through untouched) or
 * `{type: 'audio/pcm', rate: 24000}` for PCM16 (16 kHz transport audio is resampled to 24 kHz on the way in
 * and back to 16 kHz on the way out: the API has no 16 kHz PCM). `interrupt_response: false` leaves barge-in
 * to the engine (its interruption sensitivity), which calls `interrupt`. `temperature` has no place in the GA
 * session and is not sent. The connection is ready once `session.updated` confirms the configuration.
 *
 * Then: caller audio -> `input_audio_buffer.append`; a greeting -> `response.create` with instructions to say
 * it; barge-in -> `response.cancel` (while a response is in progress) and `conversation.item.truncate`
 * {item_id, content_index: 0, audio_end_ms} (clamped to the audio received for that item, since a longer
 * value is an error); the tool results of a response -> one `conversation.item.create` {type:
 * 'function_call_output', call_id, output} each, then ONE `response.create` (the Realtime conversations
 * guide, 'Function calling': adding an output does not trigger a response; the client asks for one, and
 * the server refuses a second `response.create` while one is active). Server events become RealtimeEvents: input_audio_buffer.speech_started /
 * speech_stopped, conversation.item.input_audio_transcription.completed (user_transcript),
 * response.output_audio.delta (audio), response.output_audio_transcript.delta (agent_transcript),
 * response.function_call_arguments.done or a function_call item of response.done (tool_call, once per call),
 * response.done (response_done with usage), error.
 *
 * The socket is a provider socket like the others (socket.ts PROVIDER_SOCKET_OPTIONS): a company's own Base
 * URL may answer anything, so a message past 4 MB fails the session and messages are handled one per turn of
 * the event loop.
 */

import { providerLabel } from '@contract/provider.js';
import WebSocket from 'ws';
import { blockedAddressClass, publicLookup, UnsafeUrlError } from '../../../platform/net/net-guard.js';
import { pcm16Bytes, pcm16Samples } from '../../audio/pcm16.js';
import { LinearResampler } from '../../audio/resample.js';
import { kindOfStatus } from '../http-stream.js';
import { isOversizedMessage, jsonMessage, oversizedError, PROVIDER_SOCKET_OPTIONS } from '../socket.js';
import { parseArguments } from '../tool-args.js';
import {
  type AudioFormat,
  ProviderError,
  type ProviderErrorKind,
  type RealtimeEvent,
  type RealtimeOptions,
  type RealtimeProvider,
  type RealtimeSession,
} from '../types.js';
import { wsUrl } from '../urls.js';

export interface RealtimeLimits {
  /** handshake + session.updated within this time (default 10 s) */
  connectMs?: number;
}

/** The API's own rate for PCM. */
const API_PCM_RATE = 24000;
/** Caller audio waiting in the socket beyond this is dropped rather than queued (the call is live). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Errors that say a request raced the server, not that the session is broken. */
const BENIGN_ERRORS = new Set(['response_cancel_not_active', 'conversation_already_has_active_response']);

const label = providerLabel('openai');

/** The API format of a transport format, and whether PCM has to be resampled. */
function apiFormat(format: AudioFormat): { format: Record<string, unknown>; resample: boolean; bytesPerMs: number } {
  if (format.encoding === 'mulaw' && format.sampleRate === 8000)
    return { format: { type: 'audio/pcmu' }, resample: false, bytesPerMs: 8 };
  if (format.encoding === 'pcm16' && format.sampleRate === API_PCM_RATE)
    return { format: { type: 'audio/pcm', rate: API_PCM_RATE }, resample: false, bytesPerMs: 48 };
  if (format.encoding === 'pcm16' && format.sampleRate === 16000)
    return { format: { type: 'audio/pcm', rate: API_PCM_RATE }, resample: true, bytesPerMs: 48 };
  throw new ProviderError('openai', 'bad_request', `${label} Realtime cannot use ${format.encoding} at ${format.sampleRate} Hz`);
}

function errorKind(type: string | undefined, code: string | undefined): ProviderErrorKind {
  if (code === 'invalid_api_key' || type === 'authentication_error') return 'auth';
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota' || type === 'rate_limit_error') return 'rate_limited';
  if (type === 'invalid_request_error') return 'bad_request';
  return 'unavailable';
}

interface ServerEvent {
  type: string;
  item_id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  delta?: string;
  transcript?: string;
  response?: {
    id?: string;
    status?: string;
    status_details?: { error?: { type?: string; code?: string; message?: string } } | null;
    output?: { type?: string; call_id?: string; name?: string; arguments?: string }[];
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  error?: { type?: string; code?: string; message?: string };
}

export function createOpenAiRealtime(limits: RealtimeLimits = {}): RealtimeProvider {
  const connectMs = limits.connectMs ?? 10_000;
  return {
    connect(options: RealtimeOptions, onEvent: (e: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeSession> {
      return new Promise<RealtimeSession>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        let io: ReturnType<typeof apiFormat>;
        let url: URL;
        try {
          io = apiFormat(options.format);
          url = new URL(wsUrl(options.baseUrl, `/v1/realtime?model=${encodeURIComponent(options.model)}`));
        } catch (e) {
          return reject(
            e instanceof ProviderError ? e : new ProviderError('openai', 'bad_request', `${label} Base URL is not usable`),
          );
        }
        const host = url.hostname.replace(/^\[|\]$/g, '');
        const literal = blockedAddressClass(host);
        if (options.publicOnly && literal && literal !== 'invalid')
          return reject(
            new ProviderError('openai', 'bad_request', `${label} Base URL refused: ${url.hostname} is a ${literal} address`),
          );

        const ws = new WebSocket(url, {
          ...PROVIDER_SOCKET_OPTIONS,
          headers: { Authorization: `Bearer ${options.apiKey}` },
          handshakeTimeout: connectMs,
          ...(options.publicOnly ? { lookup: publicLookup() } : {}),
        });
        const upsample = io.resample ? new LinearResampler(16000, API_PCM_RATE) : null;
        const downsample = io.resample ? new LinearResampler(API_PCM_RATE, 16000) : null;
        /** ms of agent audio received per item (truncation may not go past it) */
        const audioMs = new Map<string, number>();
        const toolCallsSeen = new Set<string>();
        let activeResponse: string | null = null;
        let ready = false;
        let closing = false;
        let failure: ProviderError | null = null;

        const timer = setTimeout(
          () => settleError(new ProviderError('openai', 'timeout', `${label} Realtime did not answer in time`)),
          connectMs,
        );
        const onAbort = () => {
          closing = true;
          ws.terminate();
          if (!ready) settle(() => reject(signal.reason));
        };
        signal.addEventListener('abort', onAbort, { once: true });

        let settled = false;
        function settle(fn: () => void) {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          fn();
        }
        /** A failure: before ready it rejects connect; after, it is reported once as an error event. */
        function settleError(error: ProviderError) {
          if (!ready) {
            settle(() => reject(error));
            closing = true;
            ws.terminate();
            return;
          }
          if (failure) return;
          failure = error;
          onEvent({ type: 'error', error });
        }
        const send = (event: Record<string, unknown>) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(event));
        };

        ws.on('unexpected-response', (_req, res) => {
          const status = res.statusCode ?? 0;
          res.resume();
          const kind = kindOfStatus(status);
          settleError(
            new ProviderError(
              'openai',
              kind,
              kind === 'auth'
                ? `${label} refused the API key (${status})`
                : `${label} Realtime refused the connection (${status})`,
              status,
            ),
          );
        });
        ws.on('error', (e: Error & { code?: string }) => {
          if (closing) return;
          // ws has sent its 1009 close frame: a server that never answers it must not hold the session
          if (isOversizedMessage(e)) ws.terminate();
          settleError(
            e instanceof UnsafeUrlError
              ? new ProviderError('openai', 'bad_request', `${label} Base URL refused: ${e.message}`)
              : isOversizedMessage(e)
                ? oversizedError('openai', `${label} Realtime`)
                : e.message.includes('Opening handshake has timed out')
                  ? new ProviderError('openai', 'timeout', `${label} Realtime did not answer in time`)
                  : new ProviderError('openai', 'unavailable', `${label} Realtime connection failed`),
          );
        });
        ws.on('close', (code, reason) => {
          signal.removeEventListener('abort', onAbort);
          if (closing) return;
          const why = reason.toString();
          const kind: ProviderErrorKind = why.includes('invalid_api_key') ? 'auth' : 'unavailable';
          settleError(
            new ProviderError(
              'openai',
              kind,
              kind === 'auth'
                ? `${label} refused the API key`
                : `${label} Realtime closed the connection (${code}${why ? ` ${why}` : ''})`,
            ),
          );
        });

        ws.on('message', (data, isBinary) => {
          if (isBinary) return;
          const event = jsonMessage(data, false) as ServerEvent | null;
          if (!event)
            return settleError(new ProviderError('openai', 'unavailable', `${label} Realtime sent an unreadable event`));
          const at = performance.now();
          switch (event.type) {
            case 'session.created':
              send({ type: 'session.update', session: sessionConfig(options, io.format) });
              return;
            case 'session.updated':
              if (ready) return;
              ready = true;
              settle(() => resolve(session));
              if (options.greeting)
                send({
                  type: 'response.create',
                  response: { instructions: `Greet the caller by saying exactly this, and nothing else: ${options.greeting}` },
                });
              return;
            case 'input_audio_buffer.speech_started':
              return onEvent({ type: 'speech_started', at });
            case 'input_audio_buffer.speech_stopped':
              return onEvent({ type: 'speech_stopped', at });
            case 'conversation.item.input_audio_transcription.completed':
              return onEvent({ type: 'user_transcript', text: event.transcript ?? '', at });
            case 'response.created':
              activeResponse = event.response?.id ?? 'unknown';
              return;
            case 'response.output_audio.delta': {
              const itemId = event.item_id ?? '';
              const raw = Buffer.from(event.delta ?? '', 'base64');
              audioMs.set(itemId, (audioMs.get(itemId) ?? 0) + raw.byteLength / io.bytesPerMs);
              const chunk = downsample ? pcm16Bytes(downsample.push(pcm16Samples(raw))) : new Uint8Array(raw);
              return onEvent({ type: 'audio', chunk, itemId, at });
            }
            case 'response.output_audio_transcript.delta':
              return onEvent({ type: 'agent_transcript', text: event.delta ?? '', itemId: event.item_id ?? '', at });
            case 'response.function_call_arguments.done':
              return emitToolCall(event.call_id ?? '', event.name ?? '', event.arguments ?? '');
            case 'response.done': {
              if (activeResponse === (event.response?.id ?? 'unknown')) activeResponse = null;
              for (const item of event.response?.output ?? [])
                if (item.type === 'function_call') emitToolCall(item.call_id ?? '', item.name ?? '', item.arguments ?? '');
              const usage = event.response?.usage;
              onEvent({
                type: 'response_done',
                inputTokens: usage?.input_tokens ?? 0,
                outputTokens: usage?.output_tokens ?? 0,
                at,
              });
              const failed = event.response?.status === 'failed' ? event.response.status_details?.error : undefined;
              if (failed)
                settleError(
                  new ProviderError(
                    'openai',
                    errorKind(failed.type, failed.code),
                    `${label} Realtime response failed (${failed.code ?? failed.type ?? 'error'})`,
                  ),
                );
              return;
            }
            case 'error': {
              const { type, code, message } = event.error ?? {};
              if (code && BENIGN_ERRORS.has(code)) return;
              const kind = errorKind(type, code);
              const text =
                kind === 'auth'
                  ? `${label} refused the API key`
                  : `${label} Realtime error (${code ?? type ?? 'error'})${message ? `: ${message.slice(0, 300)}` : ''}`;
              return settleError(new ProviderError('openai', kind, text));
            }
            default:
              return;
          }
        });

        function emitToolCall(callId: string, name: string, args: string) {
          if (!callId || toolCallsSeen.has(callId)) return;
          toolCallsSeen.add(callId);
          try {
            onEvent({
              type: 'tool_call',
              call: { id: callId, name, arguments: parseArguments('openai', name, args) },
              at: performance.now(),
            });
          } catch (e) {
            settleError(e as ProviderError);
          }
        }

        const session: RealtimeSession = {
          sendAudio(frame) {
            if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
            const bytes = upsample ? pcm16Bytes(upsample.push(pcm16Samples(frame))) : frame;
            if (bytes.byteLength === 0) return;
            send({
              type: 'input_audio_buffer.append',
              audio: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
            });
          },
          interrupt(itemId, playedMs) {
            if (activeResponse) send({ type: 'response.cancel' });
            const received = audioMs.get(itemId);
            if (received === undefined) return;
            const end = Math.max(0, Math.min(Math.floor(received), Math.round(playedMs)));
            send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: end });
          },
          sendToolResults(results) {
            if (results.length === 0) return;
            for (const { callId, output } of results)
              send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
            send({ type: 'response.create' });
          },
          close() {
            closing = true;
            signal.removeEventListener('abort', onAbort);
            if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
            return new Promise<void>((done) => {
              const force = setTimeout(() => ws.terminate(), 2000);
              ws.once('close', () => {
                clearTimeout(force);
                done();
              });
              if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
              else ws.close(1000);
            });
          },
        };
      });
    },
  };
}

/** The GA `session.update` payload for these options. */
export function sessionConfig(options: RealtimeOptions, format: Record<string, unknown>) {
  return {
    type: 'realtime',
    instructions: options.instructions,
    output_modalities: ['audio'],
    audio: {
      input: {
        format,
        transcription: { model: 'whisper-1' },
        turn_detection: {
          type: 'server_vad',
          threshold: Math.min(1, Math.max(0, options.vadThreshold)),
          silence_duration_ms: Math.max(0, Math.round(options.silenceMs)),
          prefix_padding_ms: 300,
          create_response: true,
          interrupt_response: false,
        },
      },
      output: { format, voice: options.voice },
    },
    tools: options.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
    tool_choice: 'auto',
  };
}
