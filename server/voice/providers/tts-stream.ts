/**
 * The part of a streaming TTS adapter that is the same for every provider: one WebSocket per agent turn,
 * text in, audio out, with the time limit, the end-of-turn `done`, barge-in and abort. A provider supplies
 * its `TtsWire`: how text, the end and a cancel are written, and what a provider message means.
 *
 * Time limit: after text that ends a sentence, and after `end()`, the provider must answer with audio
 * within `responseTimeoutMs` (after `end()`, every further message too, until `done`). Text that does not
 * end a sentence may legitimately wait in the provider's buffer, so it starts no clock.
 */

import { providerLabel } from '@contract/provider.js';
import type WebSocket from 'ws';
import { applyGain } from '../audio/pcm16.js';
import { closeError, jsonMessage, shutSocket } from './socket.js';
import { type AudioFormat, ProviderError, type ProviderId, type TtsEvent, type TtsStream } from './types.js';

export type TtsWireEvent = { type: 'audio'; chunk: Uint8Array } | { type: 'done' } | { type: 'error'; error: ProviderError };

export interface TtsWire {
  provider: ProviderId;
  /** the message carrying one piece of text (already ending with whitespace) */
  text(body: string, sentenceEnd: boolean): string;
  /** the message that says no more text comes this turn */
  end(): string;
  /** the message that stops generation, when the protocol has one (sent before the socket is closed) */
  cancel?(): string;
  /** what one JSON message from the provider says (nothing for messages that do not matter here) */
  read(message: Record<string, unknown>): TtsWireEvent[];
}

/** The time limits of a TTS adapter (both default to 5000 ms). */
export interface TtsTimeLimits {
  /** the upgrade must be answered within this */
  connectTimeoutMs?: number;
  /** audio must follow a finished sentence or the end within this */
  responseTimeoutMs?: number;
}

export const ttsTimeLimits = (limits: TtsTimeLimits) => ({
  connectTimeoutMs: limits.connectTimeoutMs ?? 5000,
  responseTimeoutMs: limits.responseTimeoutMs ?? 5000,
});

export interface TtsStreamSettings {
  format: AudioFormat;
  /** multiplies the audio when the provider has no volume of its own (1 = as is) */
  gain: number;
  responseTimeoutMs: number;
}

/** `value` within [min, max]; a value that is not a number counts as 1 (the neutral setting). */
export const clamp = (value: number, min: number, max: number) =>
  Math.min(max, Math.max(min, Number.isFinite(value) ? value : 1));

/** Ends with sentence punctuation, maybe followed by closing quotes or brackets. */
const SENTENCE_END = /[.!?…。！？]["'”’)\]]*\s*$/u;

export function streamTts(
  ws: WebSocket,
  wire: TtsWire,
  settings: TtsStreamSettings,
  onEvent: (e: TtsEvent) => void,
  signal: AbortSignal,
): TtsStream {
  const label = providerLabel(wire.provider);
  let stopped = false;
  let ended = false;
  let sentText = false;
  let characters = 0;
  let timer: NodeJS.Timeout | null = null;

  const clearClock = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const startClock = () => {
    clearClock();
    timer = setTimeout(
      () => fail(new ProviderError(wire.provider, 'timeout', `${label} sent no audio within ${settings.responseTimeoutMs} ms`)),
      settings.responseTimeoutMs,
    );
  };
  const stop = () => {
    stopped = true;
    clearClock();
    signal.removeEventListener('abort', cancel);
  };
  const fail = (error: ProviderError) => {
    if (stopped) return;
    stop();
    onEvent({ type: 'error', error });
    ws.terminate();
  };
  const send = (message: string) => {
    if (ws.readyState === ws.OPEN) ws.send(message);
  };
  function cancel() {
    if (stopped) return;
    stop();
    if (wire.cancel) send(wire.cancel());
    shutSocket(ws);
  }

  ws.on('message', (data, isBinary) => {
    if (stopped) return;
    const message = jsonMessage(data, isBinary);
    if (!message) {
      fail(new ProviderError(wire.provider, 'unavailable', `${label} sent a message that is not JSON`));
      return;
    }
    for (const event of wire.read(message)) {
      if (stopped) return;
      if (event.type === 'error') {
        fail(event.error);
      } else if (event.type === 'done') {
        stop();
        onEvent({ type: 'done' });
        shutSocket(ws);
      } else if (event.chunk.byteLength > 0) {
        if (ended) startClock();
        else clearClock();
        const chunk = settings.gain === 1 ? event.chunk : applyGain(event.chunk, settings.format.encoding, settings.gain);
        onEvent({ type: 'audio', chunk, at: performance.now() });
      }
    }
  });
  ws.on('close', (code, reason) => {
    if (!stopped) fail(closeError(wire.provider, ws, code, reason.toString()));
  });
  signal.addEventListener('abort', cancel, { once: true });
  if (signal.aborted) cancel();

  return {
    sendText(text: string) {
      if (stopped || ended || !/\S/.test(text)) return;
      const sentenceEnd = SENTENCE_END.test(text);
      send(wire.text(/\s$/.test(text) ? text : `${text} `, sentenceEnd));
      sentText = true;
      characters += text.length;
      if (sentenceEnd && !timer) startClock();
    },
    end() {
      if (stopped || ended) return;
      ended = true;
      if (!sentText) {
        stop();
        onEvent({ type: 'done' });
        shutSocket(ws);
        return;
      }
      send(wire.end());
      startClock();
    },
    cancel,
    get characters() {
      return characters;
    },
  };
}
