/**
 * listen: the caller's side of a cascaded voice call. The speech-to-text stream hears the caller's audio
 * and its events become the machine's caller.* events (speech started, transcripts, utterance ended);
 * interim words also drive the backchannel. The speech-to-speech path listens in realtime.ts instead.
 *
 * CallerAudio routes the line's frames: to the speech stream (or the speech-to-speech session) once it is
 * connected, kept meanwhile (lines/early-audio.ts).
 */
import type { CallSessionRef } from '../../../src/machines/callSession.machine.js';
import { EarlyAudio } from '../lines/early-audio.js';
import type { SttStream } from '../providers/types.js';
import type { Conversation } from './conversation.js';
import { failureOf } from './failures.js';
import { STT_ENDPOINTING_MS, STT_UTTERANCE_END_MS } from './settings.js';

/** Where the caller's audio goes: the connected stream, else kept until one connects. */
export class CallerAudio {
  private sink: ((frame: Uint8Array) => void) | undefined;
  /** audio that arrived before the stream was connected (sent to it once it is); none after the first */
  private early: EarlyAudio | undefined = new EarlyAudio();

  push(frame: Uint8Array, at: number): void {
    if (this.sink) this.sink(frame);
    else this.early?.keep(frame, at);
  }

  /** The stream is connected: it gets the audio kept so far, then every frame. */
  connect(sink: (frame: Uint8Array) => void): void {
    this.early?.drain((frame) => sink(frame));
    this.early = undefined;
    this.sink = sink;
  }

  /** The stream is gone: frames are dropped from now on. */
  disconnect(): void {
    this.sink = undefined;
  }
}

/** The listen actor of a cascaded voice call: the speech stream, until the machine stops it or it fails. */
export async function listen(c: Conversation, parent: CallSessionRef, signal: AbortSignal): Promise<void> {
  const { deps, providers, keys, plan } = c.options;
  const line = c.audio;
  if (!line) {
    await untilAborted(signal);
    return;
  }
  const access = keys.deepgram;
  let fail: (e: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  let stream: SttStream;
  try {
    stream = await providers.stt.connect(
      {
        apiKey: access?.apiKey ?? '',
        baseUrl: access?.baseUrl ?? deps.config.providerUrls.deepgram,
        language: plan.stt.language,
        model: plan.stt.model,
        format: line.format,
        keywords: plan.stt.keywords,
        endpointingMs: STT_ENDPOINTING_MS,
        utteranceEndMs: STT_UTTERANCE_END_MS,
      },
      (e) => {
        const now = performance.now();
        const times = c.clock.times;
        if (e.type === 'speech_started') {
          times.callerStartAt ??= now;
          parent.send({ type: 'caller.speech_started' });
        } else if (e.type === 'transcript') {
          if (e.text) {
            times.callerStartAt ??= now;
            line.notify({ type: 'transcript', role: 'user', text: e.text, final: false });
            c.heardInterim(e.text, e.isFinal);
          }
          if (e.isFinal) times.sttFinalAt = now;
          parent.send({ type: 'caller.transcript', text: e.text, final: e.isFinal });
          if (e.speechFinal) parent.send({ type: 'caller.utterance_ended' });
        } else if (e.type === 'utterance_end') {
          times.sttFinalAt ??= now;
          parent.send({ type: 'caller.utterance_ended' });
        } else if (e.type === 'error') fail(failureOf(e.error, 'error_stt_provider'));
      },
      signal,
    );
  } catch (e) {
    throw failureOf(e, 'error_stt_provider');
  }
  c.callerAudio.connect((frame) => stream.sendAudio(frame));
  try {
    await Promise.race([untilAborted(signal), failed]);
  } finally {
    c.callerAudio.disconnect();
    // billed by the call's clock: never more seconds than the line has been open, whatever was sent
    const lineSeconds = (performance.now() - line.callerAudio.openedAt) / 1000;
    const heard = Math.min(c.usage.stt_seconds + stream.audioSeconds, lineSeconds);
    c.usage.stt_seconds = Math.round(heard * 100) / 100;
    void stream.close().catch(() => {});
  }
}

export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
