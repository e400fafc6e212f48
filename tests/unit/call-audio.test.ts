import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CallLineEvent, openCallLine } from '../../src/audio/call-line.js';
import type { Microphone } from '../../src/audio/microphone.js';
import { microphoneProblemOf } from '../../src/audio/microphone.js';
import { createStreamPlayer, PLAYOUT_LEAD_S } from '../../src/audio/player.js';

/** Just enough of an AudioContext for the stream player: buffers, sources scheduled on a clock. */
class FakeSource {
  buffer: { duration: number; samples: Float32Array } | null = null;
  startedAt: number | null = null;
  stopped = false;
  onended: (() => void) | null = null;
  connect() {}
  disconnect() {}
  start(at: number) {
    this.startedAt = at;
  }
  stop() {
    this.stopped = true;
  }
}
class FakeContext {
  currentTime = 10;
  destination = {};
  sources: FakeSource[] = [];
  createAnalyser() {
    return { fftSize: 0, connect() {}, disconnect() {}, getFloatTimeDomainData: (a: Float32Array) => a.fill(0.5) };
  }
  createBuffer(_channels: number, length: number, rate: number) {
    const samples = new Float32Array(length);
    return { duration: length / rate, samples, copyToChannel: (from: Float32Array) => samples.set(from) };
  }
  createBufferSource() {
    const s = new FakeSource();
    this.sources.push(s);
    return s;
  }
}

const frame = (value = 1000) => {
  const b = new ArrayBuffer(640);
  const v = new DataView(b);
  for (let i = 0; i < 320; i++) v.setInt16(i * 2, value, true);
  return b;
};

describe('the agent’s audio', () => {
  it('frames play back to back after a short lead; clear stops every one not yet played', () => {
    const ctx = new FakeContext();
    const player = createStreamPlayer(ctx as unknown as AudioContext);
    player.push(frame());
    player.push(frame());
    player.push(frame());
    expect(ctx.sources.map((s) => s.startedAt)).toEqual([
      10 + PLAYOUT_LEAD_S,
      10 + PLAYOUT_LEAD_S + 0.02,
      10 + PLAYOUT_LEAD_S + 0.04,
    ]);
    expect(ctx.sources[0]?.buffer?.samples[0]).toBeCloseTo(1000 / 32768, 6);
    expect(player.buffered()).toBeCloseTo(PLAYOUT_LEAD_S + 0.06, 6);
    // the first frame has played
    ctx.sources[0]?.onended?.();
    player.clear();
    expect(ctx.sources.map((s) => s.stopped)).toEqual([false, true, true]);
    expect(player.buffered()).toBe(0);
    // after a clear, the next frame starts afresh (not after the dropped ones)
    ctx.currentTime = 10.5;
    player.push(frame());
    expect(ctx.sources[3]?.startedAt).toBeCloseTo(10.5 + PLAYOUT_LEAD_S, 6);
    expect(player.level()).toBeGreaterThan(0.8);
  });
});

/** A WebSocket double: records what is sent; the test plays the server. */
class FakeSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static last: FakeSocket | null = null;
  readyState = 0;
  bufferedAmount = 0;
  binaryType = 'blob';
  sent: (string | ArrayBuffer)[] = [];
  closedWith: number | null = null;
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(data: string | ArrayBuffer) {
    this.sent.push(data);
  }
  close(code: number) {
    this.closedWith = code;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
}

function fakeMicrophone() {
  let listener: (f: ArrayBuffer) => void = () => {};
  const state = { muted: false, closed: false };
  const ctx = new FakeContext();
  const mic: Microphone = {
    context: ctx as unknown as AudioContext,
    onFrame: (l) => {
      listener = l;
    },
    level: () => 0.4,
    setMuted: (m) => {
      state.muted = m;
    },
    close: () => {
      state.closed = true;
    },
  };
  return { mic, ctx, state, capture: (f: ArrayBuffer) => listener(f) };
}

describe('the call’s line', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the microphone’s frames once open, plays binary frames, clears on `clear`, passes the events on', () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const m = fakeMicrophone();
    const events: CallLineEvent[] = [];
    const line = openCallLine('ws://127.0.0.1/x', m.mic, (e) => events.push(e));
    const ws = FakeSocket.last!;
    expect(ws.binaryType).toBe('arraybuffer');
    m.capture(frame());
    expect(ws.sent).toEqual([]);
    ws.open();
    m.capture(frame());
    expect(ws.sent).toHaveLength(1);
    // a socket a full second behind drops new frames rather than queue them
    ws.bufferedAmount = 50 * 640;
    m.capture(frame());
    expect(ws.sent).toHaveLength(1);
    ws.bufferedAmount = 0;

    ws.onmessage?.({ data: frame() });
    ws.onmessage?.({ data: frame() });
    expect(m.ctx.sources).toHaveLength(2);
    ws.onmessage?.({ data: '{"type":"state","value":"speaking"}' });
    ws.onmessage?.({ data: '{"type":"clear"}' });
    expect(m.ctx.sources.every((s) => s.stopped)).toBe(true);
    ws.onmessage?.({ data: '{"type":"transcript","role":"user","text":"Hi","final":false}' });
    ws.onmessage?.({ data: '{"type":"nonsense"}' });
    ws.onmessage?.({ data: 'not json' });
    ws.onmessage?.({ data: '{"type":"ended","reason":"agent_hangup"}' });
    expect(events).toEqual([
      { type: 'opened' },
      { type: 'state', value: 'speaking' },
      { type: 'clear' },
      { type: 'transcript', role: 'user', text: 'Hi', final: false },
      { type: 'ended', reason: 'agent_hangup' },
    ]);

    line.setMuted(true);
    expect(m.state.muted).toBe(true);
    expect(line.levels().caller).toBe(0);
    line.hangup();
    expect(ws.sent.at(-1)).toBe('{"type":"hangup"}');
    line.close();
    expect(ws.closedWith).toBe(1000);
    expect(m.state.closed).toBe(true);
    // closing it ourselves is not reported as a lost line
    ws.onclose?.({ code: 1000 });
    expect(events.at(-1)).toEqual({ type: 'ended', reason: 'agent_hangup' });
  });

  it('after the server’s `ended`, the agent’s last words play out before the audio closes; otherwise it stops at once', () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const m = fakeMicrophone();
    const closes: (number | undefined)[] = [];
    m.mic.close = (after?: number) => closes.push(after);
    const line = openCallLine('ws://127.0.0.1/x', m.mic, () => {});
    const ws = FakeSocket.last!;
    ws.open();
    for (let i = 0; i < 10; i++) ws.onmessage?.({ data: frame() });
    ws.onmessage?.({ data: '{"type":"ended","reason":"agent_hangup"}' });
    line.close();
    // 60 ms of lead + 10 frames of 20 ms
    expect(closes).toEqual([260]);
    expect(m.ctx.sources.some((s) => s.stopped)).toBe(false);

    const n = fakeMicrophone();
    const nCloses: (number | undefined)[] = [];
    n.mic.close = (after?: number) => nCloses.push(after);
    const cut = openCallLine('ws://127.0.0.1/y', n.mic, () => {});
    FakeSocket.last!.open();
    FakeSocket.last!.onmessage?.({ data: frame() });
    cut.close();
    expect(nCloses).toEqual([0]);
    expect(n.ctx.sources.every((s) => s.stopped)).toBe(true);
  });

  it('a socket closed by the server is reported', () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const m = fakeMicrophone();
    const events: CallLineEvent[] = [];
    openCallLine('ws://127.0.0.1/x', m.mic, (e) => events.push(e));
    FakeSocket.last!.onclose?.({ code: 1006 });
    expect(events).toEqual([{ type: 'closed', code: 1006 }]);
  });
});

describe('the microphone', () => {
  it('names why getUserMedia refused', () => {
    expect(microphoneProblemOf(new DOMException('no', 'NotAllowedError'))).toBe('denied');
    expect(microphoneProblemOf(new DOMException('no', 'NotFoundError'))).toBe('missing');
    expect(microphoneProblemOf(new DOMException('busy', 'NotReadableError'))).toBe('failed');
  });
});
