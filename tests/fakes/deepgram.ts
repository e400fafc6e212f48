/**
 * A fake of Deepgram's live transcription WebSocket (`/v1/listen`), faithful to the documents read for it:
 * - https://developers.deepgram.com/reference/speech-to-text/listen-streaming (query, messages)
 * - https://developers.deepgram.com/docs/understand-endpointing-interim-results, /docs/endpointing,
 *   /docs/interim-results, /docs/utterance-end (is_final / speech_final / UtteranceEnd)
 * - https://developers.deepgram.com/docs/audio-keep-alive (KeepAlive; NET-0001 after 10 s of nothing)
 * - https://developers.deepgram.com/docs/finalize (Finalize, from_finalize), /docs/close-stream
 * - https://developers.deepgram.com/docs/keywords (Nova-2 `keywords=word:boost`; Nova-3 takes `keyterm`)
 * - https://developers.deepgram.com/docs/stt-troubleshooting-websocket-data-and-net-errors (401/400 on the
 *   upgrade, close frames 1008 DATA-0000 / 1011 NET-0000 / NET-0001)
 *
 * - https://developers.deepgram.com/reference/manage/projects/list (GET /v1/projects with `Authorization:
 *   Token <key>`, answers {projects: [{project_id, name}]}; a wrong key the same 401 INVALID_AUTH body as the
 *   socket's upgrade): the Providers page's key check.
 *
 * It checks what Deepgram checks: `Authorization: Token <key>` (401 otherwise, before anything else), the
 * encoding and sample rate (400: an unknown encoding, raw audio without sample_rate), the model and the
 * Nova-2 language list, keywords vs keyterm for the model, utterance_end_ms without interim_results. It
 * decodes the audio (linear16 or mulaw, 1 channel; other encodings Deepgram takes are refused as not
 * implemented) and runs an energy VAD on the audio's own clock, in 10 ms blocks:
 * SpeechStarted when speech begins, an interim Results every `interimEveryMs` of speech, a final Results
 * with speech_final=true after `endpointing` ms of silence, UtteranceEnd after `utterance_end_ms` without
 * words. The text of each finalised segment is the next entry of `script` (what the test says the caller
 * said; '' when it is empty). KeepAlive, Finalize and CloseStream act as documented; any other text frame
 * closes the stream with 1008 (this fake's reading: Deepgram takes only its documented control messages).
 * It can refuse the key (set `key` to another), fail mid-stream (`failStreams()`, `failAfterAudioMs`) and
 * be slow to accept (`connectDelayMs`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { rmsLevel } from '../../server/voice/audio/level.js';
import { mulawDecode } from '../../server/voice/audio/mulaw.js';
import { pcm16Samples } from '../../server/voice/audio/pcm16.js';
import { FakeProvider, refuseUpgrade, type StreamRecord } from './server.js';

const ENCODINGS = new Set([
  'linear16',
  'linear32',
  'flac',
  'alaw',
  'mulaw',
  'amr-nb',
  'amr-wb',
  'opus',
  'ogg-opus',
  'speex',
  'g729',
]);
const RAW_ENCODINGS = new Set(['linear16', 'linear32', 'alaw', 'mulaw', 'amr-nb', 'amr-wb', 'g729', 'speex', 'opus']);
const IMPLEMENTED = new Set(['linear16', 'mulaw']);
const MODEL = /^(nova-3|nova-2|nova|enhanced|base)(-[a-z]+)?$/;
const NOVA2_LANGUAGES = new Set(
  (
    'bg ca zh zh-CN zh-TW zh-HK cs da da-DK nl en en-US en-AU en-GB en-NZ en-IN et fi nl-BE fr fr-CA de de-CH el hi hu id ' +
    'it ja ko ko-KR lv lt ms multi no pl pt pt-BR pt-PT ro ru sk es es-419 sv sv-SE th th-TH tr uk vi'
  ).split(' '),
);
const BOOLEAN = /^(true|false)$/;

/** Why Deepgram would refuse this query (400), or null. */
export function listenQueryProblem(query: URLSearchParams): string | null {
  const encoding = query.get('encoding');
  if (encoding === null) return 'fake: containerized audio (no encoding) is not implemented';
  if (!ENCODINGS.has(encoding)) return `Invalid encoding: ${encoding}`;
  if (!IMPLEMENTED.has(encoding)) return `fake: encoding ${encoding} is not implemented`;
  const rate = query.get('sample_rate');
  if (RAW_ENCODINGS.has(encoding) && rate === null) return 'sample_rate is required for raw audio';
  if (!/^\d+$/.test(rate ?? '') || Number(rate) < 8000 || Number(rate) > 48000) return `Invalid sample_rate: ${rate}`;
  if ((query.get('channels') ?? '1') !== '1') return 'fake: only channels=1 is implemented';
  const model = query.get('model') ?? 'base';
  if (!MODEL.test(model)) return `No such model: ${model}`;
  const language = query.get('language') ?? 'en';
  if (model.startsWith('nova-2') && !NOVA2_LANGUAGES.has(language))
    return `No such model/language combination: ${model}/${language}`;
  const nova3 = model.startsWith('nova-3');
  if (nova3 && query.has('keywords')) return 'Keywords are not supported for Nova-3; use keyterm';
  if (!nova3 && query.has('keyterm')) return `Keyterm prompting is only available for Nova-3, not ${model}`;
  for (const keyword of query.getAll('keywords')) {
    if (!/^[^\s:]+(:-?\d+(\.\d+)?)?$/.test(keyword)) return `Invalid keyword: ${keyword}`;
  }
  for (const name of ['interim_results', 'vad_events', 'smart_format', 'punctuate']) {
    const value = query.get(name);
    if (value !== null && !BOOLEAN.test(value)) return `Invalid ${name}: ${value}`;
  }
  const endpointing = query.get('endpointing');
  if (endpointing !== null && endpointing !== 'false' && !/^\d+$/.test(endpointing)) return `Invalid endpointing: ${endpointing}`;
  const utteranceEnd = query.get('utterance_end_ms');
  if (utteranceEnd !== null) {
    if (!/^\d+$/.test(utteranceEnd)) return `Invalid utterance_end_ms: ${utteranceEnd}`;
    if (query.get('interim_results') !== 'true') return 'utterance_end_ms requires interim_results=true';
  }
  return null;
}

export interface ListenRecord extends StreamRecord {
  query: URLSearchParams;
  /** the text frames received, by type (or 'invalid') */
  controls: string[];
  audioBytes: number;
  /** every message sent to the client */
  sent: Record<string, unknown>[];
  /** when each of them was sent (performance.now(), for the benchmarks) */
  sentAt: number[];
}

export class DeepgramFake extends FakeProvider<ListenRecord> {
  key = 'dg-fake-key';
  protected readonly failure = { code: 1011, reason: 'NET-0000: The service has encountered an internal error.' };
  /** what the caller says: one entry per finalised speech segment */
  script: string[] = [];
  /** Deepgram closes after 10 s with neither audio nor KeepAlive */
  idleTimeoutMs = 10_000;
  /** audio time between interim results while speech goes on */
  interimEveryMs = 200;
  /** RMS level (0..1) above which a 10 ms block is speech */
  vadLevel = 0.02;
  /** the stream fails (1011) once this much audio has arrived */
  failAfterAudioMs = Number.POSITIVE_INFINITY;

  static async start(): Promise<DeepgramFake> {
    const fake = new DeepgramFake();
    await fake.listen();
    return fake;
  }

  /** the projects the key sees, served at GET /v1/projects */
  projects = [{ project_id: 'fake-project-1', name: 'Fake project' }];

  /** GET /v1/projects (List Projects): `Authorization: Token <key>` (401 INVALID_AUTH otherwise), then the projects. */
  protected override request(req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const requestId = randomUUID();
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://fake').pathname !== '/v1/projects') {
      json(404, { err_code: 'NOT_FOUND', err_msg: 'Not found', request_id: requestId });
      return;
    }
    if (req.headers.authorization !== `Token ${this.key}`) {
      json(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: requestId });
      return;
    }
    json(200, { projects: this.projects });
  }

  protected async upgrade(req: IncomingMessage, socket: Duplex, accept: () => Promise<WebSocket>) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const requestId = randomUUID();
    if (url.pathname !== '/v1/listen') {
      refuseUpgrade(socket, 404, { err_code: 'NOT_FOUND', err_msg: 'Not found', request_id: requestId });
      return;
    }
    if (req.headers.authorization !== `Token ${this.key}`) {
      refuseUpgrade(
        socket,
        401,
        { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: requestId },
        { 'dg-error': 'Invalid credentials.', 'dg-request-id': requestId },
      );
      return;
    }
    const problem = listenQueryProblem(url.searchParams);
    if (problem) {
      refuseUpgrade(socket, 400, { err_code: 'Bad Request', err_msg: problem, request_id: requestId }, { 'dg-error': problem });
      return;
    }
    const ws = await accept();
    let session: ListenSession | null = null;
    const record = this.track(ws, { query: url.searchParams, controls: [], audioBytes: 0, sent: [], sentAt: [] }, () =>
      session?.stop(),
    );
    session = new ListenSession(this, ws, record, requestId);
  }
}

/** One open /v1/listen stream. */
class ListenSession {
  private readonly encoding: string;
  private readonly rate: number;
  private readonly blockSize: number;
  private readonly interim: boolean;
  private readonly vadEvents: boolean;
  private readonly endpointing: number | false;
  private readonly utteranceEndMs: number | null;
  private readonly model: string;
  private pending = new Int16Array(0);
  private carry: number | null = null;
  private blocks = 0;
  private inSpeech = false;
  private segmentStart = 0;
  private lastVoiceEnd = 0;
  private lastInterimAt = 0;
  private interims = 0;
  /** end of the last finalised words not yet followed by an UtteranceEnd */
  private wordsEndAt: number | null = null;
  private idle: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(
    private readonly fake: DeepgramFake,
    private readonly ws: WebSocket,
    private readonly record: ListenRecord,
    private readonly requestId: string,
  ) {
    const q = record.query;
    this.encoding = q.get('encoding')!;
    this.rate = Number(q.get('sample_rate'));
    this.blockSize = this.rate / 100;
    this.interim = q.get('interim_results') === 'true';
    this.vadEvents = q.get('vad_events') === 'true';
    const endpointing = q.get('endpointing');
    this.endpointing = endpointing === 'false' ? false : Number(endpointing ?? 10);
    this.utteranceEndMs = q.has('utterance_end_ms') ? Number(q.get('utterance_end_ms')) : null;
    this.model = q.get('model') ?? 'base';
    this.resetIdle();
    ws.on('message', (data: Buffer, isBinary) => (isBinary ? this.audio(data) : this.control(data.toString())));
  }

  stop(): void {
    this.ended = true;
    if (this.idle) clearTimeout(this.idle);
  }

  closeWith(code: number, reason: string): void {
    this.stop();
    this.fake.closeStream(this.ws, code, reason);
  }

  private send(message: Record<string, unknown>) {
    this.record.sent.push(message);
    this.record.sentAt.push(performance.now());
    this.ws.send(JSON.stringify(message));
  }

  private resetIdle() {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.closeWith(1011, 'NET-0001: Deepgram did not receive audio data or a text message within the timeout window'),
      this.fake.idleTimeoutMs,
    );
  }

  private control(text: string) {
    if (this.ended) return;
    let type = 'invalid';
    try {
      const message = JSON.parse(text) as { type?: unknown };
      if (typeof message.type === 'string') type = message.type;
    } catch {
      // stays invalid
    }
    this.record.controls.push(type);
    if (type === 'KeepAlive') this.resetIdle();
    else if (type === 'Finalize') this.finalize();
    else if (type === 'CloseStream') {
      this.finalize();
      this.send({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: this.requestId,
        sha256: '',
        created: new Date().toISOString(),
        duration: (this.blocks * 10) / 1000,
        channels: 1,
        models: ['fake-model-uuid'],
        model_info: { 'fake-model-uuid': { name: this.model, version: 'fake', arch: 'fake' } },
      });
      this.closeWith(1000, '');
    } else this.closeWith(1008, `DATA-0000: unrecognised message ${type === 'invalid' ? '(not JSON with a type)' : type}`);
  }

  private audio(data: Buffer) {
    if (this.ended) return;
    this.resetIdle();
    this.record.audioBytes += data.length;
    let samples: Int16Array;
    if (this.encoding === 'mulaw') samples = mulawDecode(data);
    else {
      let bytes: Uint8Array = data;
      if (this.carry !== null) bytes = Uint8Array.from([this.carry, ...data]);
      this.carry = bytes.length % 2 ? bytes[bytes.length - 1]! : null;
      samples = pcm16Samples(new Uint8Array(bytes.subarray(0, bytes.length - (bytes.length % 2))));
    }
    const all = new Int16Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    let offset = 0;
    for (; offset + this.blockSize <= all.length && !this.ended; offset += this.blockSize) {
      this.block(all.subarray(offset, offset + this.blockSize));
      if (this.blocks * 10 >= this.fake.failAfterAudioMs) {
        this.closeWith(1011, 'NET-0000: The service has encountered an internal error.');
      }
    }
    this.pending = all.slice(offset);
  }

  /** One 10 ms block of audio at audio time [start, end). */
  private block(samples: Int16Array) {
    const start = this.blocks * 10;
    this.blocks++;
    const end = start + 10;
    const voiced = rmsLevel(samples) >= this.fake.vadLevel;
    if (voiced) {
      if (!this.inSpeech) {
        this.inSpeech = true;
        this.segmentStart = start;
        this.lastInterimAt = start;
        this.interims = 0;
        if (this.vadEvents) this.send({ type: 'SpeechStarted', channel: [0, 1], timestamp: start / 1000 });
      }
      this.lastVoiceEnd = end;
      if (this.interim && end - this.lastInterimAt >= this.fake.interimEveryMs) {
        this.lastInterimAt = end;
        this.interims++;
        const words = (this.fake.script[0] ?? '').split(/\s+/).filter(Boolean);
        this.results(words.slice(0, this.interims).join(' '), { isFinal: false, speechFinal: false, fromFinalize: false });
      }
    } else if (this.inSpeech) {
      const silence = end - this.lastVoiceEnd;
      if (this.endpointing !== false && silence >= this.endpointing) this.finalizeSegment(true, false);
      else if (this.endpointing === false && silence >= 1000) this.finalizeSegment(false, false);
    }
    if (
      this.wordsEndAt !== null &&
      !this.inSpeech &&
      this.utteranceEndMs !== null &&
      end - this.wordsEndAt >= this.utteranceEndMs
    ) {
      this.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: this.wordsEndAt / 1000 });
      this.wordsEndAt = null;
    }
  }

  private finalize() {
    if (this.inSpeech) this.finalizeSegment(false, true);
  }

  private finalizeSegment(speechFinal: boolean, fromFinalize: boolean) {
    const text = this.fake.script.shift() ?? '';
    this.results(text, { isFinal: true, speechFinal, fromFinalize });
    this.inSpeech = false;
    if (text) this.wordsEndAt = this.lastVoiceEnd;
  }

  private results(transcript: string, flags: { isFinal: boolean; speechFinal: boolean; fromFinalize: boolean }) {
    const start = this.segmentStart / 1000;
    const duration = (Math.max(this.lastVoiceEnd, this.segmentStart) - this.segmentStart) / 1000;
    const words = transcript.split(/\s+/).filter(Boolean);
    const step = words.length ? duration / words.length : 0;
    this.send({
      type: 'Results',
      channel_index: [0, 1],
      duration,
      start,
      is_final: flags.isFinal,
      speech_final: flags.speechFinal,
      from_finalize: flags.fromFinalize,
      channel: {
        alternatives: [
          {
            transcript,
            confidence: words.length ? 0.98 : 0,
            words: words.map((word, i) => ({
              word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
              start: start + i * step,
              end: start + (i + 1) * step,
              confidence: 0.98,
              punctuated_word: word,
            })),
          },
        ],
      },
      metadata: {
        request_id: this.requestId,
        model_info: { name: this.model, version: 'fake', arch: 'fake' },
        model_uuid: 'fake-model-uuid',
      },
    });
  }
}
