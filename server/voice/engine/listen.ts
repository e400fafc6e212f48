/**
 * listen: the caller's side of a cascaded voice call. The speech-to-text stream hears the caller's audio
 * and its events become the machine's caller.* events (speech started, transcripts, utterance ended);
 * interim words also drive the backchannel. The speech-to-speech path listens in realtime.ts instead.
 */
import type { CallSessionRef } from '../../../src/machines/callSession.machine.js';
import type { SttStream } from '../providers/types.js';
import { type CallContext, untilAborted } from './context.js';
import { failureOf } from './failures.js';
import { STT_ENDPOINTING_MS, STT_UTTERANCE_END_MS } from './settings.js';

/** The listen actor of a cascaded voice call: the speech stream, until the machine stops it or it fails. */
export async function listen(c: CallContext, parent: CallSessionRef, signal: AbortSignal): Promise<void> {
  const { deps, providers, keys, plan } = c.options;
  const line = c.audio;
  if (!line) {
    await untilAborted(signal);
    return;
  }
  const stt = plan.pipeline.stt;
  const access = keys[stt];
  let fail: (e: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  let stream: SttStream;
  try {
    stream = await providers.stt(stt).connect(
      {
        apiKey: access?.apiKey ?? '',
        baseUrl: access?.baseUrl ?? deps.config.providerUrls[stt] ?? '',
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
