/**
 * A phone carrier as Parley uses it: everything that differs between Twilio, Plivo or a third one lives
 * behind this interface, and everything else (numbers, limits, call rows, the conversation) is written once
 * over it (server/modules/telephony/service.ts). A carrier is one folder under server/carriers/ and one line
 * in server/carriers/registry.ts; docs/telephony.md has the recipe.
 *
 * A carrier has:
 * - its webhook and stream paths (`hooks`): the last segments of the URLs under /api/v1/telephony/{id}/;
 * - the check of its signatures over a request it made (`verify`), with the company's account;
 * - its markup: what a webhook answers to connect the media stream, say something and hang up, hang up, or
 *   move the caller to another number (`markup`);
 * - its REST API (`rest`): place a call, hang up, redirect a live call, send digits, and the end of a call it
 *   already ended (asked when a server starts, server/modules/telephony/recovery.ts);
 * - the reading of its callbacks (`inbound`, `callback`) and its media-stream protocol (`dialect`, run by
 *   the one transport of server/carriers/stream.ts).
 *
 * Carriers import the platform and the voice floors only: the module reads the company's credentials
 * (Providers) and hands them in (`account`).
 */

import type { HttpClient } from '../platform/deps.js';
import type { KeyCheck } from '../platform/net/key-check.js';
import type { WarmTransferEnd } from '../voice/lines/types.js';

/** A call's end as the carrier reports it, for a call no agent talked in. */
export interface DialEnd {
  status: 'busy' | 'no-answer' | 'failed' | 'canceled';
  reason: string;
}

/** A request the carrier made to one of Parley's webhooks or its stream's upgrade, as it was signed. */
export interface CarrierRequest {
  /** the full public URL the carrier called (PUBLIC_URL, path and query: what it signed) */
  url: string;
  method: 'GET' | 'POST';
  /** the form parameters, in order (duplicates kept) */
  params: [string, string][];
  header(name: string): string | undefined;
}

/** What `verify` found: a good signature (with the request's nonce when the carrier sends one), or not. */
export type Verdict = { ok: true; nonce?: string } | { ok: false };

/** An inbound call's webhook, read. */
export interface InboundCall {
  /** E.164 */
  from: string;
  to: string;
  /** the carrier's id of the call */
  callId: string;
}

/** A status callback (or answering-machine detection's answer), read. */
export interface CarrierCallback {
  /** the carrier's id of the call ('' when the callback has none) */
  callId: string;
  /** the carrier's status word, stored as it is ('' when none) */
  status: string;
  /** who answered, as stored on the call ('' when not said; 'machine…' for an answering machine) */
  answeredBy: string;
  /** an answering machine's greeting has ended: the agent's voicemail action runs now */
  voicemail: boolean;
  /** the final status of a call that did not complete (busy, no answer, failed, canceled) */
  end: DialEnd | undefined;
  /** the call completed */
  completed: boolean;
}

/** What the carrier is asked to dial. */
export interface PlaceCall {
  /** E.164 */
  from: string;
  to: string;
  /** the stream's URL (carriers with `outboundStream: 'dial'`: the markup goes with the dial) */
  streamUrl?: string;
  /** the URL that answers the stream markup once the call is answered (`outboundStream: 'answer'`) */
  answerUrl?: string;
  /** the URL of the status callbacks and answering-machine detection's answer */
  statusUrl: string;
  /** Parley's id of the call (a <Parameter> of the stream for carriers that take one) */
  parleyCallId: string;
  /** answering-machine detection, with the agent's detection time in seconds (0: the carrier's default) */
  machineDetection?: { seconds: number };
}

/** A live call sent to new instructions: inline markup, and the same as a URL Parley serves (signed). */
export interface Redirect {
  markup: string;
  url: string;
}

/** A text message (SMS) the carrier is asked to send from one of the account's numbers. */
export interface OutboundMessage {
  /** E.164: a number of the account */
  from: string;
  /** E.164 */
  to: string;
  text: string;
}

/** A number on the company's own carrier account (Phone Numbers > 'Import from Twilio' / 'Import from Plivo'). */
export interface OwnedNumber {
  /** E.164 */
  phoneNumber: string;
  /** the carrier's handle of the number (Twilio's IncomingPhoneNumber Sid, Plivo's number) */
  ref: string;
  friendlyName: string;
  /** it can take calls */
  voice: boolean;
}

/** Where an imported number's calls go: Parley's inbound webhook and a status callback for the number's calls. */
export interface NumberHooks {
  voiceUrl: string;
  statusUrl: string;
}

/** The carrier's REST API with one company's account. Errors are CarrierApiError. */
export interface CarrierRest {
  /** places a call; answers the carrier's id of it when it gives one now, and its status to store */
  placeCall(call: PlaceCall): Promise<{ callId?: string; status: string }>;
  hangUp(callId: string): Promise<void>;
  /** moves a live call to new instructions (a transfer, the voicemail message); the stream then stops */
  redirect(callId: string, to: Redirect): Promise<void>;
  /**
   * warm transfer: dials `to` from `from` on a consult leg that says `summary` to whoever answers, then joins
   * the live call `callId` to it; cancels the dial when nobody answers within `timeoutMs` (or `signal` aborts)
   */
  warmTransfer?(transfer: ConsultTransfer): Promise<WarmTransferEnd>;
  /**
   * plays DTMF digits to the live call, where the carrier's API can without ending the media stream
   * (Plivo's Play DTMF; Twilio's only way, new TwiML with <Play digits>, would end the stream)
   */
  sendDigits?(callId: string, digits: string): Promise<void>;
  /**
   * sends a text message through the carrier's messaging API (Twilio's Messages resource, Plivo's Message
   * API); answers the carrier's id of the message. A carrier without messaging leaves it out.
   */
  sendMessage?(message: OutboundMessage, signal?: AbortSignal): Promise<{ id: string }>;
  /** the end of a call the carrier has ended, or undefined while it is in flight (or unknown) */
  callEnd(callId: string): Promise<{ end: DialEnd | undefined; completed: boolean } | undefined>;
  /** the account's own numbers (at most NUMBERS_LISTED) */
  listNumbers?(): Promise<OwnedNumber[]>;
  /** points the number's calls at Parley; answers what was set before (the carrier's own JSON text), to restore */
  pointNumber?(ref: string, hooks: NumberHooks): Promise<string>;
  /** sets back what `pointNumber` answered (the number is released in Parley) */
  restoreNumber?(ref: string, previous: string): Promise<void>;
}

/** A warm transfer as the carrier's API carries it out (CarrierRest.warmTransfer). */
export interface ConsultTransfer {
  /** the carrier's id of the live call (the caller) */
  callId: string;
  /** E.164: the person dialled, and the call's own number it is dialled from */
  to: string;
  from: string;
  /** the conference room both legs are joined in (no personal data in it) */
  room: string;
  summary: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** How many of an account's numbers are listed for import at most. */
export const NUMBERS_LISTED = 1000;

/** An answer of the carrier's REST API that is not a success. */
export class CarrierApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'CarrierApiError';
  }
}

/** The start of a media stream. */
export interface StreamStart {
  /** the carrier's id of the stream (sent back with every message) */
  streamSid: string;
  /** the carrier's id of the call */
  callSid: string;
  customParameters: Record<string, string>;
}

/** What the carrier sent on the stream, in the transport's terms. */
export type StreamEvent =
  | { type: 'start'; start: StreamStart; formatOk: boolean; encoding: string }
  | { type: 'media'; payload: string }
  | { type: 'mark'; name: string }
  | { type: 'dtmf'; digit: string }
  | { type: 'stop' }
  | { type: 'other' };

/**
 * The messages Twilio and Plivo write the same way (`media` of the inbound track, `dtmf`, `stop`); a
 * dialect reads its own first and hands the rest here.
 */
export function commonStreamEvent(msg: Record<string, unknown>): StreamEvent {
  switch (msg.event) {
    case 'media': {
      const media = msg.media as { track?: unknown; payload?: unknown } | undefined;
      if (typeof media?.payload !== 'string') return { type: 'other' };
      if (media.track !== undefined && media.track !== 'inbound') return { type: 'other' };
      return { type: 'media', payload: media.payload };
    }
    case 'dtmf': {
      const digit = (msg.dtmf as { digit?: unknown } | undefined)?.digit;
      return typeof digit === 'string' ? { type: 'dtmf', digit } : { type: 'other' };
    }
    case 'stop':
      return { type: 'stop' };
    default:
      return { type: 'other' };
  }
}

/** A carrier's media-stream protocol: its messages in, and the three it takes out. */
export interface StreamDialect {
  name: string;
  parse(msg: Record<string, unknown>): StreamEvent;
  media(streamId: string, payload: string): Record<string, unknown>;
  mark(streamId: string, name: string): Record<string, unknown>;
  clear(streamId: string): Record<string, unknown>;
}

/** The last segments of a carrier's URLs under /api/v1/telephony/{id}/ (server/modules/telephony/paths.ts). */
export interface CarrierHooks {
  /** the inbound call's webhook (set as the number's voice URL in the carrier's console) */
  inbound: string;
  /** status callbacks: `{status}/{call_id}` */
  status: string;
  /** the media stream's WebSocket: `{stream}/{call_id}/{token}` */
  stream: string;
  /** `outboundStream: 'answer'`: the answered outbound call asks for its stream markup at `{answer}/{call_id}` */
  answer?: string;
  /** carriers that redirect a live call to a URL: the instructions at `{instructions}/{call_id}?do=…` */
  instructions?: string;
}

/** A carrier's markup (TwiML, Plivo XML...). */
export interface CarrierMarkup {
  contentType: string;
  /** a bidirectional mu-law 8 kHz media stream to `url` (with parameters for carriers that take them) */
  stream(url: string, parameters: Record<string, string>): string;
  sayAndHangUp(text: string): string;
  /** moves the caller to `number` */
  dial(number: string, callerId?: string): string;
  hangUp(): string;
}

/** Where the carrier's REST API is. */
export interface CarrierHttp {
  http: HttpClient;
  /** the API's origin (tests point it at a fake) */
  baseUrl: string;
}

export interface Carrier<Account = unknown> {
  /** the carrier's name in Providers, on phone numbers (`phone_numbers.provider`) and on calls */
  id: string;
  /** its name for people ('Twilio') */
  label: string;
  /** the REST API's origin unless configured */
  apiUrl: string;
  /** the credential fields of its Providers connection, by name */
  credentialFields: readonly string[];
  /**
   * Its cheapest authenticated request, tried when a company connects or updates its card (Connect and
   * Update refuse credentials the carrier refuses: server/platform/net/key-check.ts).
   */
  keyCheck: KeyCheck;
  /** the account from the company's credentials (by field name), or undefined when one is missing */
  account(field: (name: string) => string | undefined): Account | undefined;
  hooks: CarrierHooks;
  /** how an outbound call gets its stream: with the dial, or from the answer callback */
  outboundStream: 'dial' | 'answer';
  /** the signature of a request it made, with the company's account */
  verify(account: Account, req: CarrierRequest): Verdict;
  /** an inbound call's webhook parameters, read (numbers as E.164) */
  inbound(params: [string, string][]): InboundCall;
  /** the shape of the carrier's call ids (an inbound call with another is refused 400) */
  callIdPattern: RegExp;
  callback(params: [string, string][]): CarrierCallback;
  markup: CarrierMarkup;
  rest(account: Account, http: CarrierHttp): CarrierRest;
  dialect: StreamDialect;
}

/** The form parameter `name` ('' when absent). */
export const param = (params: [string, string][], name: string) => params.find(([k]) => k === name)?.[1] ?? '';

export const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
