/**
 * Deepgram live speech-to-text over WebSocket (https://developers.deepgram.com/reference/speech-to-text/listen-streaming).
 *
 * Wire: `wss://<host>/v1/listen?model=&language=&encoding=linear16|mulaw&sample_rate=&channels=1&interim_results=true
 * &endpointing=<ms>&utterance_end_ms=<ms>&vad_events=true&smart_format=true` plus the boosted keywords
 * (`keywords=<word>:2` on Nova-2 and older, `keyterm=<phrase>` on Nova-3 and Flux), header
 * `Authorization: Token <key>`. Binary frames carry the audio; text frames `{"type":"KeepAlive"}` (sent by the
 * stream when no audio went out for `keepAliveMs`), `{"type":"Finalize"}`, `{"type":"CloseStream"}`.
 * Answers: `Results` (channel.alternatives[0].transcript, is_final, speech_final), `SpeechStarted`,
 * `UtteranceEnd`, `Metadata` (ignored). A refused key is a 401 on the upgrade; a failure mid-stream is a
 * close frame (1011 NET-0000, 1008 DATA-0000, NET-0001 after 10 s without audio or KeepAlive).
 */
import { closeError, jsonMessage, openSocket, safeDetail, socketUrl, statusError } from '../socket.js';
import { bytesPerMs, ProviderError, type SttEvent, type SttOptions, type SttProvider, type SttStream } from '../types.js';

/** Intensifier of each boosted keyword on Nova-2 (`keywords=word:2`; 1 is Deepgram's default). */
export const DEEPGRAM_KEYWORD_BOOST = 2;
/** Deepgram takes up to 100 keywords. */
const MAX_KEYWORDS = 100;
const MAX_KEYWORD_LENGTH = 100;
/** Tags Deepgram knows with their region; any other tag is sent as its language alone ('es-ES' -> 'es'). */
const REGIONAL_TAGS = new Set(
  'en-US en-GB en-AU en-IN en-NZ pt-BR pt-PT zh-CN zh-TW zh-HK ko-KR fr-CA de-CH es-419 nl-BE sv-SE da-DK th-TH'.split(' '),
);

/** The `language` Deepgram expects for an agent's BCP-47 language. */
export function deepgramLanguage(language: string): string {
  return REGIONAL_TAGS.has(language) ? language : language.split('-')[0]!.toLowerCase();
}

/** Nova-3 and Flux take `keyterm`; Nova-2 and older take `keywords` (each refuses the other's). */
const usesKeyterm = (model: string) => /^(nova-3|flux)/.test(model);

/** The query of the `/v1/listen` upgrade. */
export function deepgramListenQuery(options: SttOptions): URLSearchParams {
  const query = new URLSearchParams({
    model: options.model,
    language: deepgramLanguage(options.language),
    encoding: options.format.encoding === 'mulaw' ? 'mulaw' : 'linear16',
    sample_rate: String(options.format.sampleRate),
    channels: '1',
    interim_results: 'true',
    endpointing: String(Math.max(10, Math.round(options.endpointingMs))),
    utterance_end_ms: String(Math.max(1000, Math.round(options.utteranceEndMs))),
    vad_events: 'true',
    smart_format: 'true',
  });
  const terms = [...new Set(options.keywords.map((k) => k.replace(/\s+/g, ' ').trim().slice(0, MAX_KEYWORD_LENGTH)))].filter(
    Boolean,
  );
  if (usesKeyterm(options.model)) {
    for (const term of terms.slice(0, MAX_KEYWORDS)) query.append('keyterm', term);
  } else {
    // keywords are single words: a phrase is boosted word by word; a colon would read as the intensifier
    const words = [...new Set(terms.flatMap((t) => t.replaceAll(':', ' ').split(' ')).filter(Boolean))];
    for (const word of words.slice(0, MAX_KEYWORDS)) query.append('keywords', `${word}:${DEEPGRAM_KEYWORD_BOOST}`);
  }
  return query;
}

export interface DeepgramSttConfig {
  /** the upgrade must be answered within this (default 5000 ms) */
  connectTimeoutMs?: number;
  /** a KeepAlive goes out when no audio went out for this long (default 4000 ms; Deepgram closes at 10 s) */
  keepAliveMs?: number;
  /** close() waits this long for Deepgram's last results before it cuts the connection (default 2000 ms) */
  closeTimeoutMs?: number;
  /** audio waiting in the socket beyond this is dropped rather than queued (default 1 MiB, ~30 s at 16 kHz) */
  maxBufferedBytes?: number;
}

export function createDeepgramStt(config: DeepgramSttConfig = {}): SttProvider {
  const connectTimeoutMs = config.connectTimeoutMs ?? 5000;
  const keepAliveMs = config.keepAliveMs ?? 4000;
  const closeTimeoutMs = config.closeTimeoutMs ?? 2000;
  const maxBufferedBytes = config.maxBufferedBytes ?? 1024 * 1024;
  return {
    async connect(options, onEvent, signal) {
      const ws = await openSocket({
        provider: 'deepgram',
        url: socketUrl('deepgram', options.baseUrl, '/v1/listen', deepgramListenQuery(options)),
        headers: { Authorization: `Token ${options.apiKey}` },
        timeoutMs: connectTimeoutMs,
        signal,
        refused: (status, body) => statusError('deepgram', status, refusalDetail(body)),
      });
      /** open: streaming; closing: CloseStream sent, results still delivered; closed: nothing more */
      let state: 'open' | 'closing' | 'closed' = 'open';
      let audioBytes = 0;
      let audioSinceTick = false;
      const emit = (event: SttEvent) => {
        if (state !== 'closed') onEvent(event);
      };
      const keepAlive = setInterval(() => {
        if (state === 'open' && !audioSinceTick) ws.send(JSON.stringify({ type: 'KeepAlive' }));
        audioSinceTick = false;
      }, keepAliveMs);
      keepAlive.unref();
      let closeTimer: NodeJS.Timeout | undefined;
      let markClosed: () => void = () => {};
      const closed = new Promise<void>((resolve) => {
        markClosed = resolve;
      });
      const shut = () => {
        state = 'closed';
        clearInterval(keepAlive);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        shut();
        ws.terminate();
      };
      signal.addEventListener('abort', onAbort, { once: true });

      ws.on('message', (data, isBinary) => {
        const message = jsonMessage(data, isBinary);
        if (!message) return;
        const at = performance.now();
        switch (message.type) {
          case 'Results': {
            const alternatives = (message.channel as { alternatives?: { transcript?: unknown }[] } | undefined)?.alternatives;
            const transcript = alternatives?.[0]?.transcript;
            const text = typeof transcript === 'string' ? transcript : '';
            const isFinal = message.is_final === true;
            if (text || isFinal) emit({ type: 'transcript', text, isFinal, speechFinal: message.speech_final === true, at });
            break;
          }
          case 'SpeechStarted':
            emit({ type: 'speech_started', at });
            break;
          case 'UtteranceEnd':
            emit({ type: 'utterance_end', at });
            break;
          case 'Error': {
            const detail = [message.err_code, message.description, message.message]
              .filter((x) => typeof x === 'string')
              .join(': ');
            emit({
              type: 'error',
              error: new ProviderError('deepgram', 'unavailable', `Deepgram reported an error: ${safeDetail(detail)}`),
            });
            shut();
            ws.terminate();
            break;
          }
        }
      });
      ws.on('close', (code, reason) => {
        if (state === 'open') onEvent({ type: 'error', error: closeError('deepgram', ws, code, reason.toString()) });
        shut();
        markClosed();
      });

      const stream: SttStream = {
        sendAudio(frame) {
          if (state !== 'open' || ws.readyState !== ws.OPEN || ws.bufferedAmount > maxBufferedBytes) return;
          ws.send(frame);
          audioBytes += frame.byteLength;
          audioSinceTick = true;
        },
        finalize() {
          if (state === 'open' && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'Finalize' }));
        },
        async close() {
          if (state === 'closed') return;
          if (state === 'open') {
            state = 'closing';
            clearInterval(keepAlive);
            if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'CloseStream' }));
            closeTimer = setTimeout(() => ws.terminate(), closeTimeoutMs);
          }
          await closed;
          clearTimeout(closeTimer);
        },
        get audioSeconds() {
          return audioBytes / bytesPerMs(options.format) / 1000;
        },
      };
      return stream;
    },
  };
}

/** Deepgram's refusal body: `{"err_code","err_msg","request_id"}`. */
function refusalDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { err_msg?: unknown; err_code?: unknown };
    return [parsed.err_code, parsed.err_msg].filter((x) => typeof x === 'string').join(': ');
  } catch {
    return '';
  }
}

export const deepgramStt = createDeepgramStt();
