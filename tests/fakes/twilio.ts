/**
 * A fake of Twilio Programmable Voice, as Parley uses it, written from Twilio's documents:
 * - Calls resource, https://www.twilio.com/docs/voice/api/call-resource: `POST
 *   /2010-04-01/Accounts/{AccountSid}/Calls.json` (form-encoded; HTTP Basic auth with the Account SID and
 *   Auth Token, 401 with code 20003 otherwise; To, From and one of Url/Twiml required, code 21201/21205
 *   style 400s), `POST .../Calls/{Sid}.json` with `Twiml` (the live call runs the new TwiML) or
 *   `Status=completed` (hang up) or `Status=canceled` (cancels a call still queued or ringing; an answered
 *   one is left as it is), `Timeout` on create (5-600 seconds of ringing, default 60, then `no-answer`), and `GET .../Calls/{Sid}.json` (fetch a call: the resource as it is now,
 *   `status` queued | ringing | in-progress | completed | busy | no-answer | failed | canceled, `start_time`
 *   and `end_time` as RFC 2822 dates or null, `duration` in seconds as a string, null until the call ended;
 *   an unknown Sid answers 404 with code 20404). Answers the call resource as JSON (sid, status, ...).
 * - Accounts, https://www.twilio.com/docs/iam/api/account: `GET /2010-04-01/Accounts/{Sid}.json` (the
 *   Providers page's key check) with the Basic auth: 401 code 20003 'Authenticate' for credentials that do not
 *   go together, 404 code 20404 for an account they may not read, else the account (sid, friendly_name, status).
 * - Message resource, https://www.twilio.com/docs/messaging/api/message-resource: `POST
 *   /2010-04-01/Accounts/{AccountSid}/Messages.json` (form-encoded, the same Basic auth) with To, From (a
 *   number of the account: `numbers`) and Body; answers 201 with the message (sid SM…, status queued).
 *   Errors as https://www.twilio.com/docs/api/errors lists them, JSON {code, message, more_info, status}:
 *   21604 no To, 21603 no From, 21602 no Body, 21617 a Body over 1,600 characters, 21211 a To that is not
 *   a valid phone number, 21606 a From that is not an SMS-capable number of the account, 20003 bad auth.
 *   Scripted refusals per destination: `messageRefusals` (e.g. 21610, a recipient who replied STOP).
 * - Status callbacks, https://www.twilio.com/docs/voice/api/call-resource#statuscallback and
 *   #statuscallbackevent: initiated, ringing, answered (CallStatus in-progress), completed (CallStatus
 *   completed, busy, no-answer, failed or canceled), POSTed in order, form-encoded, signed.
 * - Answering machine detection, https://www.twilio.com/docs/voice/answering-machine-detection:
 *   MachineDetection=DetectMessageEnd with AsyncAmd=true: the AsyncAmdStatusCallback gets AnsweredBy
 *   (human, machine_end_beep, ...) while the call's TwiML already runs.
 * - Webhook security, https://www.twilio.com/docs/usage/webhooks/webhooks-security: X-Twilio-Signature =
 *   base64 HMAC-SHA1(auth token, URL + sorted params); the media stream's WebSocket handshake is signed over
 *   its URL.
 * - Incoming call webhook (request parameters AccountSid, CallSid, From, To, CallStatus, Direction, ...),
 *   https://www.twilio.com/docs/voice/twiml#request-parameters; TwiML <Connect><Stream>, <Say>, <Hangup>,
 *   <Dial><Number>, https://www.twilio.com/docs/voice/twiml/stream.
 * - IncomingPhoneNumber resource (read, fetch, update), served by tests/fakes/carrier-numbers.ts
 *   TwilioIncomingNumbers with this account's Basic auth.
 * - TwiML <Dial><Conference>, https://www.twilio.com/docs/voice/twiml/conference: a named room of the
 *   account; startConferenceOnEnter and endConferenceOnExit must be "true" or "false" (errors 13232, 13231);
 *   a participant with startConferenceOnEnter=false waits (hold music) until one with true enters; one with
 *   endConferenceOnExit=true leaving ends the room and every other participant's call. `rooms` records each
 *   room's joins in order, and `timeline` what every call heard and did, in order.
 * - Media Streams WebSocket messages, https://www.twilio.com/docs/voice/media-streams/websocket-messages:
 *   connected, start (mediaFormat audio/x-mulaw 8000 1), media (inbound, 20 ms of base64 mu-law, chunk,
 *   timestamp), dtmf, mark, stop to the server; media, mark, clear from it. A mark is echoed once the audio
 *   sent before it has been played; `clear` empties the buffer and echoes the pending marks.
 *
 * An outbound call's callee can be scripted (`callee`): the fake IVR of tests/fakes/ivr.ts answers by menu
 * to the DTMF tones it hears in the agent's audio.
 *
 * It checks what Twilio checks: the Basic auth, the required parameters, the TwiML it is given (a Stream
 * URL must be wss:// or ws:// — Twilio requires wss; the fake allows ws on 127.0.0.1 — and Twilio drops its
 * query string), and the messages the server sends on the stream (known events, the stream's streamSid,
 * base64 mu-law payloads); anything else is recorded in `violations`. The caller's audio is sent every
 * 20 ms on the stream's own clock (silence, or what the test queued); the server's audio is "played" at
 * real time from a buffer, so marks come back only after their audio has played, and `clear` drops what
 * was not played yet.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { TwilioIncomingNumbers } from './carrier-numbers.js';
import { CarrierStreamFake, FRAME_BYTES, mulawFrames } from './carrier-stream.js';
import { type Listening, listen, readBody, type SentRequest, sendJson, sleep } from './listen.js';

/** 'ring': the phone rings until the call's Timeout (then no-answer) or until it is cancelled */
export type Outcome = 'answer' | 'busy' | 'no-answer' | 'failed' | 'voicemail' | 'ring';

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

export function twilioSignature(authToken: string, url: string, params: [string, string][] = []): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return createHmac('sha1', authToken)
    .update(sorted.reduce((s, [k, v]) => s + k + v, url))
    .digest('base64');
}

// ---------------------------------------------------------------------------------------------
// TwiML (a small XML reader: elements, attributes, text)

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const xmlUnescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

export function parseXml(input: string): XmlNode {
  const src = input.replace(/^\s*<\?xml[^>]*\?>/, '');
  const root: XmlNode = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  // biome-ignore lint/suspicious/noAssignInExpressions: a tokenizer loop
  while ((m = re.exec(src)) !== null) {
    if (m.index !== consumed) throw new Error(`TwiML: cannot read at ${consumed}`);
    consumed = re.lastIndex;
    const top = stack[stack.length - 1] as XmlNode;
    if (m[5] !== undefined) {
      top.text += xmlUnescape(m[5]);
      continue;
    }
    if (m[1]) {
      if (top.name !== m[2]) throw new Error(`TwiML: </${m[2]}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1] as string] = xmlUnescape(a[2] as string);
    const node: XmlNode = { name: m[2] as string, attrs, children: [], text: '' };
    top.children.push(node);
    if (!m[4]) stack.push(node);
  }
  if (consumed !== src.length || stack.length !== 1) throw new Error('TwiML: not well-formed');
  const response = root.children.filter((c) => c.name === 'Response');
  if (response.length !== 1 || root.children.length !== 1) throw new Error('TwiML: the root must be one <Response>');
  return response[0] as XmlNode;
}

export type TwimlAction =
  | { verb: 'stream'; url: string; parameters: Record<string, string> }
  | { verb: 'say'; text: string }
  | { verb: 'hangup' }
  | { verb: 'dial'; number: string; callerId?: string }
  | { verb: 'conference'; room: string; startConferenceOnEnter: boolean; endConferenceOnExit: boolean };

/** A <Conference> attribute that must be "true" or "false" (Twilio's default when absent). */
function flag(node: XmlNode, name: string, fallback: boolean, code: number): boolean {
  const v = node.attrs[name];
  if (v === undefined) return fallback;
  if (v !== 'true' && v !== 'false') throw new Error(`${code} Dial->Conference: Invalid ${name} value`);
  return v === 'true';
}

export function twimlActions(twiml: string): TwimlAction[] {
  const out: TwimlAction[] = [];
  for (const verb of parseXml(twiml).children) {
    if (verb.name === 'Connect') {
      const stream = verb.children.find((c) => c.name === 'Stream');
      if (!stream?.attrs.url) throw new Error('TwiML: <Connect> needs a <Stream url>');
      const parameters: Record<string, string> = {};
      for (const p of stream.children)
        if (p.name === 'Parameter' && p.attrs.name !== undefined) parameters[p.attrs.name] = p.attrs.value ?? '';
      out.push({ verb: 'stream', url: stream.attrs.url, parameters });
    } else if (verb.name === 'Say') out.push({ verb: 'say', text: verb.text });
    else if (verb.name === 'Hangup') out.push({ verb: 'hangup' });
    else if (verb.name === 'Dial' && verb.children.some((c) => c.name === 'Conference')) {
      const room = verb.children.find((c) => c.name === 'Conference') as XmlNode;
      if (!room.text.trim()) throw new Error('TwiML: <Conference> needs a room name');
      out.push({
        verb: 'conference',
        room: room.text.trim(),
        startConferenceOnEnter: flag(room, 'startConferenceOnEnter', true, 13232),
        endConferenceOnExit: flag(room, 'endConferenceOnExit', false, 13231),
      });
    } else if (verb.name === 'Dial') {
      const number = verb.children.find((c) => c.name === 'Number')?.text ?? verb.text;
      out.push({ verb: 'dial', number: number.trim(), ...(verb.attrs.callerId ? { callerId: verb.attrs.callerId } : {}) });
    } else throw new Error(`TwiML: unknown verb <${verb.name}>`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The media stream (Twilio's end of the WebSocket)

export { FRAME_BYTES, mulawFrames };

export class FakeMediaStream extends CarrierStreamFake {
  readonly streamSid = sid('MZ');
  /** marks echoed (played, or pending when a clear came) */
  readonly echoedMarks: string[] = [];
  /** when (performance.now()) each of the caller's voiced frames was sent, and each media message came */
  readonly voicedAt: number[] = [];
  readonly mediaAt: { at: number; bytes: number }[] = [];
  private voicedFrames = new WeakSet<Uint8Array>();
  private chunk = 0;

  constructor(
    url: string,
    readonly signature: string,
    private readonly call: { accountSid: string; callSid: string; parameters: Record<string, string> },
  ) {
    super(url, { 'X-Twilio-Signature': signature });
  }

  /** The caller presses a key. */
  press(digit: string) {
    this.send({
      event: 'dtmf',
      streamSid: this.streamSid,
      sequenceNumber: String(++this.seq),
      dtmf: { track: 'inbound_track', digit },
    });
  }

  protected override voiced(frames: Uint8Array[]) {
    for (const f of frames) this.voicedFrames.add(f);
    return frames;
  }

  /** `stop` (the call ended at Twilio) */
  protected stopMessage() {
    return {
      event: 'stop',
      sequenceNumber: String(++this.seq),
      streamSid: this.streamSid,
      stop: { accountSid: this.call.accountSid, callSid: this.call.callSid },
    };
  }

  protected begin() {
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.send({
      event: 'start',
      sequenceNumber: String(++this.seq),
      streamSid: this.streamSid,
      start: {
        accountSid: this.call.accountSid,
        streamSid: this.streamSid,
        callSid: this.call.callSid,
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: this.call.parameters,
      },
    });
  }

  protected sendFrame(frame: Uint8Array) {
    if (this.voicedFrames.has(frame)) this.voicedAt.push(performance.now());
    this.send({
      event: 'media',
      sequenceNumber: String(++this.seq),
      streamSid: this.streamSid,
      media: {
        track: 'inbound',
        chunk: String(++this.chunk),
        timestamp: String(this.ticks * 20),
        payload: Buffer.from(frame).toString('base64'),
      },
    });
  }

  /** Twilio echoes a mark once the audio before it has played */
  protected reached(name: string) {
    this.echoedMarks.push(name);
    this.send({ event: 'mark', sequenceNumber: String(++this.seq), streamSid: this.streamSid, mark: { name } });
  }

  protected receive(text: string, binary: boolean) {
    if (binary) {
      this.violations.push('binary frame');
      return;
    }
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.violations.push('not JSON');
      return;
    }
    this.received.push(msg);
    if (msg.streamSid !== this.streamSid) this.violations.push(`${String(msg.event)}: wrong streamSid`);
    if (msg.event === 'media') {
      const payload = (msg.media as { payload?: unknown } | undefined)?.payload;
      if (typeof payload !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) {
        this.violations.push('media: payload is not base64');
        return;
      }
      const bytes = new Uint8Array(Buffer.from(payload, 'base64'));
      this.mediaAt.push({ at: performance.now(), bytes: bytes.byteLength });
      this.buffer.audio(bytes);
    } else if (msg.event === 'mark') {
      const name = (msg.mark as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') this.violations.push('mark: no name');
      else this.buffer.mark(name);
    } else if (msg.event === 'clear') {
      // Twilio echoes the marks still pending on a clear
      for (const name of this.buffer.clear()) this.reached(name);
    } else this.violations.push(`unknown event ${String(msg.event)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Calls

export interface FakeCall {
  sid: string;
  direction: 'inbound' | 'outbound-api';
  from: string;
  to: string;
  status: string;
  /** status callback URL and events asked for (outbound) */
  statusCallback?: string;
  events: string[];
  amdCallback?: string;
  machineDetection?: string;
  /** every form the REST API received for this call (create, then updates) */
  requests: [string, string][][];
  /** TwiML actions run, in order */
  actions: TwimlAction[];
  /** status callbacks sent: [CallStatus, the answer's status] */
  callbacks: { status: string; answeredBy?: string; code: number }[];
  stream?: FakeMediaStream;
  said: string[];
  dialed?: string;
  /** how the call ended at Twilio */
  ended?: 'caller' | 'api' | 'hangup-verb' | 'dial' | 'outcome' | 'conference';
  /** seconds it may ring (Timeout on create) */
  timeoutSeconds: number;
  /** the conference room it is in, and whether it left it ending the room */
  room?: string;
  endsRoom?: boolean;
  /** cancelled through the API before it was answered (Status=canceled) */
  cancelled?: boolean;
  cancelRinging?: () => void;
  done: Promise<void>;
  /** when (performance.now()) the call was created: placed through the API, or came in */
  placedAt: number;
  /** when it was answered and when it ended (Date.now()), for the resource's start_time, end_time, duration */
  answeredAt?: number;
  endedAt?: number;
}

export class TwilioFake {
  readonly accountSid = `AC${randomBytes(16).toString('hex')}`;
  authToken = randomBytes(16).toString('hex');
  readonly calls: FakeCall[] = [];
  /** every webhook and stream upgrade sent to the server, as sent (for the replay tests) */
  readonly sent: SentRequest[] = [];
  /** scripted outcome per number dialled (default: answer) */
  readonly outcomes = new Map<string, Outcome>();
  /** REST requests refused (status, reason) */
  readonly refusals: { status: number; reason: string }[] = [];
  /** ms between a call's progress steps (ringing, answer) */
  stepMs = 20;
  /** how long an outbound call rings before its outcome (default: stepMs) */
  ringMs: number | undefined;
  /** GET requests of the Calls resource (fetch a call), by Sid */
  readonly fetched: string[] = [];
  /** the account's IncomingPhoneNumbers resource (Phone Numbers > 'Import from Twilio'; tests/fakes/carrier-numbers.ts) */
  readonly incoming = new TwilioIncomingNumbers(() => this.accountSid);
  /** the account's SMS-capable numbers (E.164): the only From a message may have */
  readonly numbers = new Set<string>();
  /** messages accepted (Message resource, create) */
  readonly messages: { sid: string; from: string; to: string; body: string }[] = [];
  /** a destination Twilio refuses to text, with its error code and message */
  readonly messageRefusals = new Map<string, { code: number; message: string }>();
  /** an answered outbound call's callee hangs up after this long on the stream (undefined: never) */
  calleeHangsUpAfterMs: number | undefined;
  /** an answered outbound call's callee speaks (`ms` of voice) this long after the stream opened (undefined: silent) */
  calleeSays: { afterMs: number; ms: number } | undefined;
  /** an answered outbound call's callee, once its stream is open (the fake IVR of tests/fakes/ivr.ts) */
  callee: ((stream: FakeMediaStream, call: FakeCall) => void) | undefined;
  /** calls placed and not yet ended, now and at most */
  active = 0;
  maxActive = 0;
  /** conference rooms: who joined, in order, and whether the room had started (a participant that starts it entered) */
  readonly rooms = new Map<string, { joined: { sid: string; waiting: boolean }[]; started: boolean; members: Set<FakeCall> }>();
  /** what every call heard and did, in order: `${sid} say ${text}`, `${sid} joined ${room}`, `${room} started` */
  readonly timeline: string[] = [];
  private finishers = new Map<string, () => void>();

  private constructor(private readonly server: Listening) {}

  static async start(): Promise<TwilioFake> {
    let fake: TwilioFake | undefined;
    const server = await listen((req, res) => {
      void fake?.handle(req, res).catch((e) => sendJson(res, 500, { message: String(e) }));
    });
    fake = new TwilioFake(server);
    return fake;
  }

  get url() {
    return this.server.url;
  }

  close() {
    for (const c of this.calls) c.stream?.stop();
    return this.server.close();
  }

  private refuse(res: http.ServerResponse, status: number, code: number, message: string) {
    this.refusals.push({ status, reason: message });
    sendJson(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
  }

  private resource(c: FakeCall) {
    const date = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toUTCString());
    const ended = c.endedAt !== undefined;
    return {
      sid: c.sid,
      account_sid: this.accountSid,
      to: c.to,
      from: c.from,
      status: c.status,
      direction: c.direction,
      start_time: date(c.answeredAt),
      end_time: date(c.endedAt),
      duration: ended ? String(Math.round(((c.endedAt ?? 0) - (c.answeredAt ?? c.endedAt ?? 0)) / 1000)) : null,
      api_version: '2010-04-01',
      uri: `/2010-04-01/Accounts/${this.accountSid}/Calls/${c.sid}.json`,
    };
  }

  /** The request's Basic auth is the account's, on the account's own path. */
  private authorized(req: http.IncomingMessage, pathSid: string | undefined) {
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [user, pass] = auth
      ? Buffer.from(auth[1] as string, 'base64')
          .toString()
          .split(':')
      : [];
    return user === this.accountSid && pass === this.authToken && pathSid === this.accountSid;
  }

  /** Message resource, create: From must be one of the account's numbers; To, From and Body required. */
  private async message(req: http.IncomingMessage, res: http.ServerResponse) {
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return this.refuse(res, 400, 20001, 'Content-Type must be application/x-www-form-urlencoded');
    const form = [...new URLSearchParams(await readBody(req))];
    const get = (k: string) => form.find(([n]) => n === k)?.[1] ?? '';
    const [to, from, body] = [get('To'), get('From'), get('Body')];
    if (!to) return this.refuse(res, 400, 21604, "A 'To' phone number is required.");
    if (!from) return this.refuse(res, 400, 21603, "A 'From' phone number is required.");
    if (!body) return this.refuse(res, 400, 21602, 'Message body is required.');
    if (body.length > 1600)
      return this.refuse(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (!/^\+[1-9]\d{7,14}$/.test(to)) return this.refuse(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!this.numbers.has(from))
      return this.refuse(
        res,
        400,
        21606,
        `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
      );
    const refused = this.messageRefusals.get(to);
    if (refused) return this.refuse(res, 400, refused.code, refused.message);
    const message = { sid: sid('SM'), from, to, body };
    this.messages.push(message);
    sendJson(res, 201, {
      sid: message.sid,
      account_sid: this.accountSid,
      from,
      to,
      body,
      status: 'queued',
      direction: 'outbound-api',
      num_segments: String(Math.ceil(body.length / 153)),
      api_version: '2010-04-01',
      error_code: null,
      error_message: null,
      uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${message.sid}.json`,
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const account = /^\/2010-04-01\/Accounts\/([^/]+)\.json$/.exec(url.pathname);
    if (account && req.method === 'GET') {
      // Fetch an Account: the credentials first (401 20003), then the account they may read (404 20404)
      if (!this.authorized(req, this.accountSid)) return this.refuse(res, 401, 20003, 'Authenticate');
      if (account[1] !== this.accountSid) return this.refuse(res, 404, 20404, 'The requested resource was not found');
      return sendJson(res, 200, {
        sid: this.accountSid,
        owner_account_sid: this.accountSid,
        friendly_name: 'Fake Twilio account',
        status: 'active',
        type: 'Full',
        uri: `/2010-04-01/Accounts/${this.accountSid}.json`,
      });
    }
    if (/^\/2010-04-01\/Accounts\/[^/]+\/IncomingPhoneNumbers/.test(url.pathname)) {
      const sid = /^\/2010-04-01\/Accounts\/([^/]+)\//.exec(url.pathname)?.[1];
      if (!this.authorized(req, sid)) return this.refuse(res, 401, 20003, 'Authenticate');
      return this.incoming.serve(req, res, url, await readBody(req));
    }
    const msg = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(url.pathname);
    if (msg && req.method === 'POST') {
      if (!this.authorized(req, msg[1])) return this.refuse(res, 401, 20003, 'Authenticate');
      return this.message(req, res);
    }
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(url.pathname);
    const fetch = req.method === 'GET' && m?.[2] !== undefined;
    if (!m || !(req.method === 'POST' || fetch)) return this.refuse(res, 404, 20404, 'The requested resource was not found');
    if (!this.authorized(req, m[1])) return this.refuse(res, 401, 20003, 'Authenticate');
    if (fetch) {
      this.fetched.push(m[2] as string);
      const call = this.calls.find((c) => c.sid === m[2]);
      if (!call) return this.refuse(res, 404, 20404, 'The requested resource was not found');
      return sendJson(res, 200, this.resource(call));
    }
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return this.refuse(res, 400, 20001, 'Content-Type must be application/x-www-form-urlencoded');
    const form = [...new URLSearchParams(await readBody(req))];
    const get = (k: string) => form.find(([n]) => n === k)?.[1];
    if (m[2]) {
      const call = this.calls.find((c) => c.sid === m[2]);
      if (!call) return this.refuse(res, 404, 20404, 'The requested resource was not found');
      call.requests.push(form);
      const twiml = get('Twiml');
      if (get('Status') === 'completed') {
        sendJson(res, 200, this.resource(call));
        this.end(call, 'api');
        return;
      }
      if (get('Status') === 'canceled') {
        // only a call that has not been answered can be cancelled; an answered one goes on
        if (call.direction === 'outbound-api' && ['queued', 'initiated', 'ringing'].includes(call.status)) {
          call.cancelled = true;
          call.cancelRinging?.();
        }
        return sendJson(res, 200, this.resource(call));
      }
      if (get('Status') !== undefined) return this.refuse(res, 400, 21218, 'Invalid parameter: Status');
      if (twiml === undefined) return this.refuse(res, 400, 21218, 'Invalid parameter');
      let actions: TwimlAction[];
      try {
        actions = twimlActions(twiml);
      } catch (e) {
        return this.refuse(res, 400, 21220, `Invalid TwiML: ${(e as Error).message}`);
      }
      sendJson(res, 200, this.resource(call));
      // the live call leaves its current TwiML (the stream stops) and runs the new one
      call.stream?.stop();
      void this.run(call, actions);
      return;
    }
    const to = get('To');
    const from = get('From');
    if (!to) return this.refuse(res, 400, 21201, "Missing required parameter 'To'");
    if (!from) return this.refuse(res, 400, 21603, "Missing required parameter 'From'");
    const twiml = get('Twiml');
    if (!twiml && !get('Url')) return this.refuse(res, 400, 21205, "Missing required parameter 'Url' or 'Twiml'");
    let actions: TwimlAction[];
    try {
      actions = twimlActions(twiml ?? '');
    } catch (e) {
      return this.refuse(res, 400, 21220, `Invalid TwiML: ${(e as Error).message}`);
    }
    const timeout = get('Timeout');
    if (timeout !== undefined && (!/^\d+$/.test(timeout) || Number(timeout) < 5 || Number(timeout) > 600))
      return this.refuse(res, 400, 21218, 'Invalid parameter: Timeout');
    const call = this.newCall('outbound-api', from, to, form);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    void call.done.then(() => this.active--);
    call.statusCallback = get('StatusCallback');
    call.events = form.filter(([k]) => k === 'StatusCallbackEvent').map(([, v]) => v);
    call.machineDetection = get('MachineDetection');
    call.timeoutSeconds = timeout === undefined ? 60 : Number(timeout);
    call.amdCallback = get('AsyncAmd') === 'true' ? get('AsyncAmdStatusCallback') : undefined;
    call.status = 'queued';
    sendJson(res, 201, this.resource(call));
    void this.dial(call, actions);
  }

  private newCall(direction: FakeCall['direction'], from: string, to: string, form: [string, string][] = []): FakeCall {
    let finish: () => void = () => {};
    const call: FakeCall = {
      sid: sid('CA'),
      direction,
      from,
      to,
      status: 'ringing',
      events: [],
      requests: form.length ? [form] : [],
      actions: [],
      callbacks: [],
      said: [],
      timeoutSeconds: 60,
      placedAt: performance.now(),
      done: new Promise<void>((r) => {
        finish = r;
      }),
    };
    this.finishers.set(call.sid, finish);
    this.calls.push(call);
    return call;
  }

  /** A status callback, signed, awaited (they arrive in order). */
  private async callback(call: FakeCall, event: string, status: string, extra: [string, string][] = []) {
    call.status = status;
    if (!call.statusCallback || !call.events.includes(event)) return;
    const params: [string, string][] = [
      ['AccountSid', this.accountSid],
      ['ApiVersion', '2010-04-01'],
      ['CallSid', call.sid],
      ['CallStatus', status],
      ['CallbackSource', 'call-progress-events'],
      ['Direction', call.direction],
      ['From', call.from],
      ['To', call.to],
      ['SequenceNumber', String(call.callbacks.length)],
      ['Timestamp', new Date().toUTCString()],
      ...extra,
    ];
    call.callbacks.push({ status, code: await this.post(call.statusCallback, params) });
  }

  /** A signed callback; 0 when the server could not be reached (it closed at the end of a test). */
  private async post(url: string, params: [string, string][]) {
    try {
      return await this.postOnce(url, params);
    } catch {
      return 0;
    }
  }

  private async postOnce(url: string, params: [string, string][]) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': twilioSignature(this.authToken, url, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    await res.arrayBuffer();
    return res.status;
  }

  private async dial(call: FakeCall, actions: TwimlAction[]) {
    const outcome = this.outcomes.get(call.to) ?? 'answer';
    await this.callback(call, 'initiated', 'initiated');
    await sleep(this.stepMs);
    if (!call.cancelled) await this.callback(call, 'ringing', 'ringing');
    await sleep(this.ringMs ?? this.stepMs);
    if (outcome === 'ring' || call.cancelled) {
      // rings until the Timeout, or until the API cancels it
      const how = await new Promise<'canceled' | 'no-answer'>((resolve) => {
        if (call.cancelled) return resolve('canceled');
        const t = setTimeout(() => resolve('no-answer'), call.timeoutSeconds * 1000);
        call.cancelRinging = () => {
          clearTimeout(t);
          resolve('canceled');
        };
      });
      call.endedAt = Date.now();
      await this.callback(call, 'completed', how);
      this.settle(call, 'outcome');
      return;
    }
    if (outcome === 'busy' || outcome === 'no-answer' || outcome === 'failed') {
      call.endedAt = Date.now();
      await this.callback(call, 'completed', outcome);
      this.settle(call, 'outcome');
      return;
    }
    call.answeredAt = Date.now();
    await this.callback(call, 'answered', 'in-progress');
    if (outcome === 'voicemail' && call.amdCallback) {
      const amdUrl = call.amdCallback;
      // the greeting plays, then the beep: AMD answers while the TwiML already runs
      setTimeout(() => {
        const params: [string, string][] = [
          ['AccountSid', this.accountSid],
          ['AnsweredBy', 'machine_end_beep'],
          ['CallSid', call.sid],
          ['MachineDetectionDuration', '2100'],
        ];
        void this.post(amdUrl, params).then((code) =>
          call.callbacks.push({ status: 'amd', answeredBy: 'machine_end_beep', code }),
        );
      }, this.stepMs * 10);
    }
    await this.run(call, actions);
  }

  /** Runs TwiML on a live call. */
  private async run(call: FakeCall, actions: TwimlAction[]) {
    for (const action of actions) {
      if (call.ended) return;
      call.actions.push(action);
      if (action.verb === 'say') {
        call.said.push(action.text);
        this.timeline.push(`${call.sid} say ${action.text}`);
      } else if (action.verb === 'conference') {
        const room = this.rooms.get(action.room) ?? { joined: [], started: false, members: new Set<FakeCall>() };
        this.rooms.set(action.room, room);
        room.joined.push({ sid: call.sid, waiting: !room.started && !action.startConferenceOnEnter });
        room.members.add(call);
        call.room = action.room;
        call.endsRoom = action.endConferenceOnExit;
        this.timeline.push(`${call.sid} joined ${action.room}`);
        if (action.startConferenceOnEnter && !room.started) {
          room.started = true;
          this.timeline.push(`${action.room} started`);
        }
        // in the room until the call ends (or the room does)
        await call.done;
        return;
      } else if (action.verb === 'hangup') {
        this.end(call, 'hangup-verb');
        return;
      } else if (action.verb === 'dial') {
        call.dialed = action.number;
        this.end(call, 'dial');
        return;
      } else if (action.verb === 'stream') {
        const url = new URL(action.url);
        if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && url.hostname === '127.0.0.1')) {
          call.said.push('An application error has occurred.');
          this.end(call, 'hangup-verb');
          return;
        }
        url.search = ''; // Twilio does not pass a query string on
        const signature = twilioSignature(this.authToken, url.toString());
        this.sent.push({ method: 'GET', url: url.toString(), headers: { 'X-Twilio-Signature': signature }, body: '' });
        const stream = new FakeMediaStream(url.toString(), signature, {
          accountSid: this.accountSid,
          callSid: call.sid,
          parameters: action.parameters,
        });
        call.stream = stream;
        await stream.opened.catch(() => {});
        const hangUpAfter = this.calleeHangsUpAfterMs;
        if (call.direction === 'outbound-api' && hangUpAfter !== undefined)
          setTimeout(() => this.hangUpCaller(call), hangUpAfter);
        const says = this.calleeSays;
        if (call.direction === 'outbound-api' && says) setTimeout(() => stream.say(says.ms), says.afterMs);
        if (call.direction === 'outbound-api' && stream.ws.readyState === stream.ws.OPEN) this.callee?.(stream, call);
        await stream.closed;
        // the server closed the stream (or it was stopped): the next verb runs, none ends the call
        if (!call.ended && !stream.stopped) continue;
        return;
      }
    }
    if (!call.ended) this.end(call, 'hangup-verb');
  }

  private end(call: FakeCall, how: NonNullable<FakeCall['ended']>) {
    if (call.ended) return;
    call.ended = how;
    call.endedAt = Date.now();
    call.stream?.stop();
    const room = call.room === undefined ? undefined : this.rooms.get(call.room);
    if (room) {
      room.members.delete(call);
      this.timeline.push(`${call.sid} left ${call.room}`);
      // a participant with endConferenceOnExit ends the room: everyone else's call ends with it
      if (call.endsRoom) for (const other of [...room.members]) this.end(other, 'conference');
    }
    void this.callback(call, 'completed', 'completed', [['CallDuration', '1']]).finally(() => this.settle(call, how));
  }

  private settle(call: FakeCall, how: NonNullable<FakeCall['ended']>) {
    call.ended ??= how;
    this.finishers.get(call.sid)?.();
  }

  /** The caller hangs up (the stream stops, then `completed`). */
  hangUpCaller(call: FakeCall) {
    this.end(call, 'caller');
  }

  /**
   * An incoming call to `to`: the signed voice webhook to `voiceUrl`, then the TwiML it answers runs
   * (a stream opens, or something is said). Answers the call (its webhook status in `webhookStatus`).
   */
  async inbound(
    voiceUrl: string,
    from: string,
    to: string,
    sign: (url: string, params: [string, string][]) => string = (u, p) => twilioSignature(this.authToken, u, p),
  ) {
    const call = this.newCall('inbound', from, to);
    const params: [string, string][] = [
      ['AccountSid', this.accountSid],
      ['ApiVersion', '2010-04-01'],
      ['CallSid', call.sid],
      ['CallStatus', 'ringing'],
      ['Called', to],
      ['Caller', from],
      ['Direction', 'inbound'],
      ['From', from],
      ['To', to],
    ];
    const request: SentRequest = {
      method: 'POST',
      url: voiceUrl,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sign(voiceUrl, params) },
      body: new URLSearchParams(params).toString(),
    };
    this.sent.push(request);
    const res = await fetch(voiceUrl, request);
    const body = await res.text();
    const webhookStatus = res.status;
    if (res.status !== 200) {
      call.said.push('We are sorry, an application error has occurred.');
      this.settle(call, 'hangup-verb');
      return { call, webhookStatus, twiml: body };
    }
    call.status = 'in-progress';
    call.answeredAt = Date.now();
    const actions = twimlActions(body);
    void this.run(call, actions);
    return { call, webhookStatus, twiml: body };
  }
}
