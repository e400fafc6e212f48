import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { CarrierStreamTransport } from '../../../server/carriers/stream.js';
import { TWILIO_DIALECT } from '../../../server/carriers/twilio/stream.js';
import { detectKeys } from '../../../server/voice/audio/dtmf.js';
import { PHONE_AUDIO } from '../../../server/voice/providers/types.js';

/** The server's end of a Twilio media stream socket: what the line sends, and Twilio's messages in. */
class StreamSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: Record<string, unknown>[] = [];
  send(text: string) {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close() {
    this.readyState = 3;
    this.emit('close');
  }
  pause() {}
  terminate() {}
  twilio(msg: Record<string, unknown>) {
    this.emit('message', Buffer.from(JSON.stringify(msg)), false);
  }
}

const START = {
  event: 'start',
  streamSid: 'MZ1',
  start: { streamSid: 'MZ1', callSid: 'CA1', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
};

function line() {
  const socket = new StreamSocket();
  const control = { hangUpCall: async () => {}, warn: () => {} };
  const transport = new CarrierStreamTransport(socket as unknown as WebSocket, control, TWILIO_DIALECT);
  return { socket, transport };
}

/** Every media payload the line sent, joined. */
const sentAudio = (socket: StreamSocket) =>
  Buffer.concat(
    socket.sent.filter((m) => m.event === 'media').map((m) => Buffer.from((m.media as { payload: string }).payload, 'base64')),
  );

const until = async (probe: () => boolean) => {
  for (let i = 0; i < 500 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(probe()).toBe(true);
};

describe("a carrier stream's keys", () => {
  it("the caller's keys (dtmf messages) reach the engine, those before it started too; non-keys are dropped", () => {
    const { socket, transport } = line();
    socket.twilio(START);
    socket.twilio({ event: 'dtmf', streamSid: 'MZ1', dtmf: { track: 'inbound_track', digit: '1' } });
    const keys: string[] = [];
    transport.start({ audio: () => {}, closed: () => {}, digit: (d) => keys.push(d) });
    for (const digit of ['#', 'X', '12', '*'])
      socket.twilio({ event: 'dtmf', streamSid: 'MZ1', dtmf: { track: 'inbound_track', digit } });
    expect(keys).toEqual(['1', '#', '*']);
    transport.hangUp('user_hangup');
  });

  it('press_digit: the tones go out after the agent audio already queued, and resolve on the carrier’s echo of their mark', async () => {
    const { socket, transport } = line();
    socket.twilio(START);
    transport.start({ audio: () => {}, closed: () => {} });
    transport.play(new Uint8Array(8 * 200).fill(0xff)); // 200 ms of agent audio (silence)
    let done = false;
    const pressed = transport.playDigits('5#', new AbortController().signal).then(() => {
      done = true;
    });
    // 200 ms + two keys of 200 ms: every frame sent, then the mark after them
    await until(() => sentAudio(socket).length >= 8 * 600);
    const heard = detectKeys(sentAudio(socket), PHONE_AUDIO);
    expect(heard.map((k) => k.key)).toEqual(['5', '#']);
    expect(heard[0]?.atMs).toBeGreaterThanOrEqual(200);
    expect(done).toBe(false);
    // Twilio echoes every mark once played
    const marks = socket.sent.filter((m) => m.event === 'mark').map((m) => (m.mark as { name: string }).name);
    for (const name of marks) socket.twilio({ event: 'mark', streamSid: 'MZ1', mark: { name } });
    await pressed;
    expect(done).toBe(true);
    transport.hangUp('user_hangup');
  });

  it('refuses what is not a key, an aborted press, and a closed line', async () => {
    const { socket, transport } = line();
    socket.twilio(START);
    transport.start({ audio: () => {}, closed: () => {} });
    await expect(transport.playDigits('1E', new AbortController().signal)).rejects.toThrow();
    const abort = new AbortController();
    const pending = transport.playDigits('9', abort.signal);
    abort.abort(new Error('barge-in'));
    await expect(pending).rejects.toThrow('barge-in');
    transport.hangUp('user_hangup');
    await expect(transport.playDigits('1', new AbortController().signal)).rejects.toThrow('the call has ended');
  });
});
