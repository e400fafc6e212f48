/**
 * A fake of Plivo Voice, as Parley uses it, written from Plivo's documents:
 * - Call API, https://www.plivo.com/docs/voice/api/call/make-a-call (`POST /v1/Account/{auth_id}/Call/`,
 *   JSON, HTTP Basic auth with the Auth ID and Auth Token, 401 otherwise; from, to, answer_url required;
 *   answers 201 {api_id, message: 'call fired', request_uuid}), .../transfer-a-call (`POST .../Call/{uuid}/`
 *   with legs=aleg and aleg_url: the call runs the XML there), .../hangup-a-call (`DELETE .../Call/{uuid}/`,
 *   204), .../retrieve-a-call (`GET .../Call/{uuid}/`: the call detail record of an ended call, as the Call
 *   object of https://www.plivo.com/docs/voice/api/call/the-call-object: call_uuid, call_direction,
 *   from_number, to_number, initiation_time, answer_time, end_time, call_duration, bill_duration,
 *   hangup_cause_name / hangup_cause_code / hangup_source from
 *   https://www.plivo.com/docs/voice/troubleshooting/hangup-causes; a call still live has no record yet
 *   and answers 404, like an unknown uuid). Callbacks: answer_url (CallUUID, From, To without '+', Direction, CallStatus), hangup_url
 *   (CallStatus completed / busy / no-answer / failed / cancel, HangupCause), machine_detection_url
 *   (Machine=true).
 * - Signature validation V3, https://www.plivo.com/docs/voice/concepts/signature-validation: every callback
 *   carries X-Plivo-Signature-V3 and X-Plivo-Signature-V3-Nonce (HMAC-SHA256 of the URL, the sorted
 *   parameters and the nonce, keyed with the Auth Token; the rule of the SDKs' validateV3Signature); the
 *   nonce is "unique for every request" (ibid.: it protects the server from replays). Every request means
 *   the audio stream's WebSocket upgrade too: https://docs.plivo.com/docs/voice/xml/request/validation ("All
 *   requests Plivo makes to your server URLs include X-Plivo-Signature-V3 and X-Plivo-Signature-V3-Nonce")
 *   and https://www.plivo.com/docs/voice/audio-streaming/overview-doc ("Plivo establishes a WebSocket
 *   connection to your specified URL, validating signatures"). The fake signs the upgrade as a GET of the
 *   stream URL without parameters, with a fresh nonce.
 * - Account, https://www.plivo.com/docs/account/api/account#retrieve-account-details: `GET /v1/Account/{auth_id}/`
 *   with the same Basic auth (401 otherwise), answering {api_id, account_type, auth_id, cash_credits, name,
 *   resource_uri}: the Providers page's key check.
 * - Message API, https://www.plivo.com/docs/messaging/api/message/send-a-message and the responses of
 *   https://www.plivo.com/docs/messaging/api/response: `POST /v1/Account/{auth_id}/Message/` (JSON, the
 *   same Basic auth, 401 otherwise) with src (a number of the account: `numbers`), dst (one or more numbers
 *   joined by '<', country code first, '+' optional) and text, all required (400 invalid_parameter
 *   otherwise); answers 202 {api_id, message: 'message(s) queued', message_uuid: [one per destination]};
 *   errors {api_id, error}. Scripted refusals per destination: `messageRefusals`.
 * - XML, https://www.plivo.com/docs/voice/xml: <Stream bidirectional keepCallAlive contentType>url</Stream>,
 *   <Speak>, <Hangup/>, <Dial><Number>.
 * - Audio streaming, https://www.plivo.com/docs/voice/xml/the-stream-element and the bidirectional stream
 *   messages: to the server `start` (start.callId, streamId, mediaFormat audio/x-mulaw 8000), `media`
 *   (inbound, 20 ms of base64 mu-law), `dtmf` (a key the caller pressed: dtmf.digit, dtmf.track; the Stream
 *   Event Protocol, https://www.plivo.com/docs/voice/audio-streaming/audio-streaming#dtmf), `playedStream`
 *   (a checkpoint's audio has played), `clearedAudio`, `stop`; from it `playAudio` {media: {contentType, sampleRate, payload}}, `checkpoint` {name},
 *   `clearAudio`. A playAudio whose contentType or sampleRate is not the stream's is a violation.
 *
 * The caller's audio is sent every 20 ms on the stream's clock; the server's audio is played at real time
 * from a buffer, checkpoints are answered once their audio has played, and clearAudio drops what was not.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { CarrierStreamFake } from './carrier-stream.js';
import { type Listening, listen, readBody, type SentRequest, sendJson, sleep } from './listen.js';
import { parseXml } from './twilio.js';

export type PlivoOutcome = 'answer' | 'busy' | 'no-answer' | 'failed' | 'voicemail';

const sortedGroups = (pairs: [string, string][]) => {
  const map = new Map<string, string[]>();
  for (const [k, v] of pairs) map.set(k, [...(map.get(k) ?? []), v]);
  return [...map.keys()].sort().map((k) => [k, (map.get(k) ?? []).sort()] as const);
};

/** Plivo's V3 signature of a request to `url` (POST `params`, or a GET with none). */
export function plivoSignature(authToken: string, url: string, params: [string, string][], nonce: string, method = 'POST') {
  const u = new URL(url);
  const query = sortedGroups([...u.searchParams])
    .flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`))
    .join('&');
  const post = method === 'POST' ? params : [];
  let base = `${u.protocol}//${u.host}${u.pathname}`;
  if (query || post.length) base += `?${query}`;
  if (query && post.length) base += '.';
  for (const [k, vs] of sortedGroups(post)) for (const v of vs) base += k + v;
  return createHmac('sha256', authToken).update(`${base}.${nonce}`).digest('base64');
}

export type PlivoAction =
  | { verb: 'stream'; url: string; attrs: Record<string, string> }
  | { verb: 'speak'; text: string }
  | { verb: 'hangup' }
  | { verb: 'dial'; number: string; callerId?: string };

export function plivoActions(xml: string): PlivoAction[] {
  return parseXml(xml).children.map((el): PlivoAction => {
    if (el.name === 'Stream') return { verb: 'stream', url: el.text.trim(), attrs: el.attrs };
    if (el.name === 'Speak') return { verb: 'speak', text: el.text };
    if (el.name === 'Hangup') return { verb: 'hangup' };
    if (el.name === 'Dial') {
      const number = el.children.find((c) => c.name === 'Number')?.text.trim() ?? '';
      return { verb: 'dial', number, ...(el.attrs.callerId ? { callerId: el.attrs.callerId } : {}) };
    }
    throw new Error(`Plivo XML: unknown element <${el.name}>`);
  });
}

export class PlivoMediaStream extends CarrierStreamFake {
  readonly streamId = randomUUID();
  /** checkpoints whose audio has played */
  readonly played: string[] = [];

  constructor(
    url: string,
    headers: Record<string, string>,
    private readonly call: { authId: string; callUuid: string },
  ) {
    super(url, headers);
  }

  protected stopMessage() {
    return { event: 'stop', sequenceNumber: ++this.seq, streamId: this.streamId };
  }

  /** The caller presses a key: Plivo's `dtmf` message (Stream Event Protocol, messages from Plivo, dtmf). */
  press(digit: string) {
    this.send({ event: 'dtmf', sequenceNumber: ++this.seq, streamId: this.streamId, dtmf: { track: 'inbound', digit } });
  }

  protected begin() {
    this.send({
      event: 'start',
      sequenceNumber: this.seq,
      start: {
        callId: this.call.callUuid,
        streamId: this.streamId,
        accountId: this.call.authId,
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 },
      },
      extra_headers: '{}',
    });
  }

  protected sendFrame(frame: Uint8Array) {
    this.send({
      event: 'media',
      sequenceNumber: ++this.seq,
      streamId: this.streamId,
      media: {
        track: 'inbound',
        timestamp: String(this.ticks * 20),
        chunk: this.ticks,
        payload: Buffer.from(frame).toString('base64'),
      },
      extra_headers: '{}',
    });
  }

  /** a checkpoint's audio has played: `playedStream` */
  protected reached(name: string) {
    this.played.push(name);
    this.send({ event: 'playedStream', sequenceNumber: ++this.seq, streamId: this.streamId, name });
  }

  protected receive(text: string) {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.violations.push('not JSON');
      return;
    }
    this.received.push(msg);
    if (msg.event === 'playAudio') {
      const media = msg.media as { contentType?: unknown; sampleRate?: unknown; payload?: unknown } | undefined;
      if (media?.contentType !== 'audio/x-mulaw' || Number(media.sampleRate) !== 8000)
        this.violations.push('playAudio: not the stream’s audio/x-mulaw 8000');
      if (typeof media?.payload !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(media.payload)) {
        this.violations.push('playAudio: payload is not base64');
        return;
      }
      this.buffer.audio(new Uint8Array(Buffer.from(media.payload, 'base64')));
    } else if (msg.event === 'checkpoint') {
      if (typeof msg.name !== 'string') this.violations.push('checkpoint: no name');
      else this.buffer.mark(msg.name);
    } else if (msg.event === 'clearAudio') {
      // Plivo drops the checkpoints of the audio it cleared
      this.buffer.clear();
      this.send({ event: 'clearedAudio', sequenceNumber: ++this.seq, streamId: this.streamId });
    } else this.violations.push(`unknown event ${String(msg.event)}`);
  }
}

export interface PlivoCall {
  uuid: string;
  requestUuid: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  request?: Record<string, unknown>;
  actions: PlivoAction[];
  said: string[];
  dialed?: string;
  stream?: PlivoMediaStream;
  callbacks: { url: string; status: string; code: number }[];
  transfers: string[];
  hungUpByApi: boolean;
  ended: boolean;
  done: Promise<void>;
  /** for the call detail record: when it was placed, answered and ended (Date.now()), and its CallStatus at the end */
  placedAt: number;
  answeredAt?: number;
  endedAt?: number;
  endStatus?: string;
}

/** The hangup cause of the CDR for a CallStatus the hangup callback carries (Plivo's list of causes). */
const HANGUP_CAUSES: Record<string, { name: string; code: number | null; source: string }> = {
  completed: { name: 'Normal Hangup', code: 4000, source: 'Callee' },
  busy: { name: 'Busy Line', code: null, source: 'Callee' },
  'no-answer': { name: 'No Answer', code: null, source: 'Callee' },
  failed: { name: 'Destination Out Of Service', code: 2010, source: 'Carrier' },
  cancel: { name: 'Canceled', code: 1000, source: 'API Request' },
};

const plivoTime = (ms: number | undefined) =>
  ms === undefined ? null : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}+00:00`;

export class PlivoFake {
  readonly authId = `MA${randomBytes(9).toString('hex').toUpperCase()}`;
  readonly authToken = randomBytes(20).toString('hex');
  readonly calls: PlivoCall[] = [];
  readonly outcomes = new Map<string, PlivoOutcome>();
  readonly refusals: { status: number; reason: string }[] = [];
  /** every callback and stream upgrade sent to the server, as sent (for the replay tests) */
  readonly sent: SentRequest[] = [];
  stepMs = 20;
  /** how long an outbound call rings before its outcome (default: stepMs) */
  ringMs: number | undefined;
  /** GET requests of a call's record, by uuid */
  readonly fetched: string[] = [];
  /** the account's numbers (E.164): the only `src` a message may have */
  readonly numbers = new Set<string>();
  /** messages accepted, one per destination */
  readonly messages: { uuid: string; src: string; dst: string; text: string }[] = [];
  /** a destination (E.164) Plivo refuses to text, with its status and error */
  readonly messageRefusals = new Map<string, { status: number; error: string }>();
  private finishers = new Map<string, () => void>();

  private constructor(private readonly server: Listening) {}

  static async start(): Promise<PlivoFake> {
    let fake: PlivoFake | undefined;
    const server = await listen((req, res) => {
      void fake?.handle(req, res).catch((e) => sendJson(res, 500, { error: String(e) }));
    });
    fake = new PlivoFake(server);
    return fake;
  }

  get url() {
    return this.server.url;
  }

  close() {
    for (const c of this.calls) c.stream?.stop();
    return this.server.close();
  }

  /** Signed headers of a request to `url`. */
  signed(url: string, params: [string, string][], method = 'POST') {
    const nonce = String(Math.floor(Math.random() * 1e15));
    return {
      'X-Plivo-Signature-V3': plivoSignature(this.authToken, url, params, nonce, method),
      'X-Plivo-Signature-V3-Nonce': nonce,
    };
  }

  private refuse(res: http.ServerResponse, status: number, error: string) {
    this.refusals.push({ status, reason: error });
    sendJson(res, status, { api_id: randomUUID(), error });
  }

  /** The request's Basic auth is the account's, on the account's own path. */
  private authorized(req: http.IncomingMessage, pathAuthId: string | undefined) {
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [user, pass] = auth
      ? Buffer.from(auth[1] as string, 'base64')
          .toString()
          .split(':')
      : [];
    return user === this.authId && pass === this.authToken && pathAuthId === this.authId;
  }

  /** Send a message: src must be one of the account's numbers; every field required. */
  private async message(req: http.IncomingMessage, res: http.ServerResponse) {
    if (req.method !== 'POST') return this.refuse(res, 405, 'method not allowed');
    if (!String(req.headers['content-type']).startsWith('application/json'))
      return this.refuse(res, 400, 'content type must be JSON');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    } catch {
      return this.refuse(res, 400, 'invalid JSON');
    }
    for (const k of ['src', 'dst', 'text'])
      if (typeof body[k] !== 'string' || body[k] === '') return this.refuse(res, 400, `invalid_parameter: ${k} is required`);
    const plus = (n: string) => (n.startsWith('+') ? n : `+${n}`);
    const src = plus(body.src as string);
    if (!/^\+[1-9]\d{7,14}$/.test(src) || !this.numbers.has(src))
      return this.refuse(res, 400, `invalid_parameter: src ${body.src} is not a number of this account`);
    const dsts = (body.dst as string).split('<').map(plus);
    for (const dst of dsts) {
      if (!/^\+[1-9]\d{7,14}$/.test(dst)) return this.refuse(res, 400, `invalid_parameter: dst ${dst} is not a valid number`);
      const refused = this.messageRefusals.get(dst);
      if (refused) return this.refuse(res, refused.status, refused.error);
    }
    const uuids = dsts.map((dst) => {
      const uuid = randomUUID();
      this.messages.push({ uuid, src, dst, text: body.text as string });
      return uuid;
    });
    sendJson(res, 202, { api_id: randomUUID(), message: 'message(s) queued', message_uuid: uuids });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const account = /^\/v1\/Account\/([^/]+)\/$/.exec(url.pathname);
    if (account && req.method === 'GET') {
      // Retrieve account details: the same Basic auth on the account's own path
      if (!this.authorized(req, account[1])) return this.refuse(res, 401, 'Authentication failed');
      return sendJson(res, 200, {
        api_id: randomUUID(),
        account_type: 'standard',
        auth_id: this.authId,
        cash_credits: '10.00000',
        name: 'Fake Plivo account',
        resource_uri: `/v1/Account/${this.authId}/`,
      });
    }
    const msg = /^\/v1\/Account\/([^/]+)\/Message\/$/.exec(url.pathname);
    if (msg) {
      if (!this.authorized(req, msg[1])) return this.refuse(res, 401, 'Authentication failed');
      return this.message(req, res);
    }
    const m = /^\/v1\/Account\/([^/]+)\/Call\/(?:([^/]+)\/)?$/.exec(url.pathname);
    if (!m) return this.refuse(res, 404, 'not found');
    if (!this.authorized(req, m[1])) return this.refuse(res, 401, 'Authentication failed');
    if (m[2] && req.method === 'GET') {
      this.fetched.push(m[2]);
      const call = this.calls.find((c) => c.uuid === m[2]);
      if (!call?.ended) return this.refuse(res, 404, 'call not found');
      return sendJson(res, 200, this.record(call));
    }
    if (m[2]) {
      const call = this.calls.find((c) => c.uuid === m[2]);
      if (!call || call.ended) return this.refuse(res, 404, 'call not found');
      if (req.method === 'DELETE') {
        res.writeHead(204).end();
        call.hungUpByApi = true;
        void this.end(call, 'completed');
        return;
      }
      if (req.method !== 'POST') return this.refuse(res, 405, 'method not allowed');
      const body = JSON.parse((await readBody(req)) || '{}') as Record<string, string>;
      if (body.legs !== 'aleg' || !body.aleg_url) return this.refuse(res, 400, 'legs and aleg_url are required');
      sendJson(res, 202, { api_id: randomUUID(), message: 'call transferred' });
      call.transfers.push(body.aleg_url);
      call.stream?.stop();
      const xml = await this.fetchXml(call, body.aleg_url);
      if (xml) void this.run(call, plivoActions(xml));
      return;
    }
    if (req.method !== 'POST') return this.refuse(res, 405, 'method not allowed');
    if (!String(req.headers['content-type']).startsWith('application/json'))
      return this.refuse(res, 400, 'content type must be JSON');
    const body = JSON.parse((await readBody(req)) || '{}') as Record<string, string>;
    for (const k of ['from', 'to', 'answer_url']) if (!body[k]) return this.refuse(res, 400, `${k} is required`);
    const call = this.newCall('outbound', body.from as string, body.to as string);
    call.request = body;
    sendJson(res, 201, { api_id: randomUUID(), message: 'call fired', request_uuid: call.requestUuid });
    void this.dial(call, body);
  }

  /** The call detail record of an ended call (the Call object). */
  private record(call: PlivoCall) {
    const cause = HANGUP_CAUSES[call.endStatus ?? 'completed'] ?? HANGUP_CAUSES.completed;
    const seconds = call.answeredAt !== undefined ? Math.round(((call.endedAt ?? call.answeredAt) - call.answeredAt) / 1000) : 0;
    return {
      api_id: randomUUID(),
      answer_time: plivoTime(call.answeredAt),
      bill_duration: seconds,
      billed_duration: seconds === 0 ? 0 : Math.ceil(seconds / 60) * 60,
      call_direction: call.direction,
      call_duration: seconds,
      call_uuid: call.uuid,
      end_time: plivoTime(call.endedAt),
      from_number: call.from,
      initiation_time: plivoTime(call.placedAt),
      parent_call_uuid: null,
      resource_uri: `/v1/Account/${this.authId}/Call/${call.uuid}/`,
      to_number: call.to,
      total_amount: '0.00000',
      total_rate: '0.00850',
      hangup_cause_name: cause?.name,
      hangup_cause_code: cause?.code,
      hangup_source: cause?.source,
    };
  }

  private newCall(direction: PlivoCall['direction'], from: string, to: string): PlivoCall {
    let finish: () => void = () => {};
    const call: PlivoCall = {
      uuid: randomUUID(),
      requestUuid: randomUUID(),
      direction,
      from,
      to,
      actions: [],
      said: [],
      callbacks: [],
      transfers: [],
      hungUpByApi: false,
      ended: false,
      placedAt: Date.now(),
      done: new Promise<void>((r) => {
        finish = r;
      }),
    };
    this.finishers.set(call.uuid, finish);
    this.calls.push(call);
    return call;
  }

  private params(call: PlivoCall, status: string, extra: [string, string][] = []): [string, string][] {
    return [
      ['CallUUID', call.uuid],
      ['CallStatus', status],
      ['Direction', call.direction],
      ['Event', 'StartApp'],
      ['From', call.from],
      ['To', call.to],
      ['RequestUUID', call.requestUuid],
      ...extra,
    ];
  }

  private async post(call: PlivoCall, url: string, params: [string, string][], status: string) {
    let res: Response;
    let text: string;
    try {
      const request: SentRequest = {
        method: 'POST',
        url,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...this.signed(url, params) },
        body: new URLSearchParams(params).toString(),
      };
      this.sent.push(request);
      res = await fetch(url, request);
      text = await res.text();
    } catch {
      // the server closed (the end of a test)
      call.callbacks.push({ url, status, code: 0 });
      return { status: 0, text: '' };
    }
    call.callbacks.push({ url, status, code: res.status });
    return { status: res.status, text };
  }

  private async fetchXml(call: PlivoCall, url: string) {
    const r = await this.post(call, url, this.params(call, 'in-progress'), 'xml');
    return r.status === 200 ? r.text : undefined;
  }

  private async dial(call: PlivoCall, body: Record<string, string>) {
    const outcome = this.outcomes.get(`+${call.to}`) ?? 'answer';
    await sleep(this.ringMs ?? this.stepMs);
    if (outcome === 'busy' || outcome === 'no-answer' || outcome === 'failed') {
      call.ended = true;
      call.endedAt = Date.now();
      call.endStatus = outcome;
      if (body.hangup_url)
        await this.post(
          call,
          body.hangup_url,
          this.params(call, outcome, [['HangupCause', outcome === 'busy' ? 'USER_BUSY' : 'NO_ANSWER']]),
          outcome,
        );
      this.finishers.get(call.uuid)?.();
      return;
    }
    if (outcome === 'voicemail' && body.machine_detection === 'true' && body.machine_detection_url) {
      const mdUrl = body.machine_detection_url;
      setTimeout(
        () => void this.post(call, mdUrl, [...this.params(call, 'in-progress'), ['Machine', 'true']], 'machine'),
        this.stepMs * 10,
      );
    }
    call.answeredAt = Date.now();
    const xml = await this.fetchXml(call, body.answer_url as string);
    if (!xml) return this.end(call, 'completed');
    await this.run(call, plivoActions(xml));
  }

  private async run(call: PlivoCall, actions: PlivoAction[]) {
    for (const action of actions) {
      if (call.ended) return;
      call.actions.push(action);
      if (action.verb === 'speak') call.said.push(action.text);
      else if (action.verb === 'hangup') return this.end(call, 'completed');
      else if (action.verb === 'dial') {
        call.dialed = action.number;
        return this.end(call, 'completed');
      } else if (action.verb === 'stream') {
        if (action.attrs.bidirectional !== 'true' || action.attrs.contentType !== 'audio/x-mulaw;rate=8000') {
          call.said.push('stream attributes not as expected');
          return this.end(call, 'completed');
        }
        const url = action.url;
        // the upgrade is signed like every request Plivo makes (V3, a GET without parameters, its own nonce)
        const headers = this.signed(url, [], 'GET');
        this.sent.push({ method: 'GET', url, headers, body: '' });
        const stream = new PlivoMediaStream(url, headers, { authId: this.authId, callUuid: call.uuid });
        call.stream = stream;
        await stream.opened.catch(() => {});
        await stream.closed;
        if (stream.stopped) return; // a transfer or a hang-up took the call elsewhere
        // keepCallAlive: the call ends with the stream
        return this.end(call, 'completed');
      }
    }
    if (!call.ended) return this.end(call, 'completed');
  }

  private async end(call: PlivoCall, status: string) {
    if (call.ended) return;
    call.ended = true;
    call.endedAt = Date.now();
    call.endStatus = status;
    call.stream?.stop();
    const hangupUrl = call.request?.hangup_url;
    if (typeof hangupUrl === 'string')
      await this.post(call, hangupUrl, this.params(call, status, [['HangupCause', 'NORMAL_CLEARING']]), status);
    this.finishers.get(call.uuid)?.();
  }

  hangUpCaller(call: PlivoCall) {
    void this.end(call, 'completed');
  }

  /** An incoming call: the signed answer webhook (numbers without '+', as Plivo sends them), then its XML runs. */
  async inbound(
    answerUrl: string,
    from: string,
    to: string,
    sign?: (url: string, params: [string, string][]) => Record<string, string>,
  ) {
    const call = this.newCall('inbound', from.replace(/^\+/, ''), to.replace(/^\+/, ''));
    const params = this.params(call, 'ringing');
    const request: SentRequest = {
      method: 'POST',
      url: answerUrl,
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        ...(sign ?? ((u, p) => this.signed(u, p)))(answerUrl, params),
      },
      body: new URLSearchParams(params).toString(),
    };
    this.sent.push(request);
    const res = await fetch(answerUrl, request);
    const xml = await res.text();
    call.answeredAt = Date.now();
    if (res.status !== 200) {
      call.ended = true;
      call.endedAt = Date.now();
      this.finishers.get(call.uuid)?.();
      return { call, status: res.status, xml };
    }
    void this.run(call, plivoActions(xml));
    return { call, status: res.status, xml };
  }
}
