import { describe, expect, it } from 'vitest';
import { AudioGate, FLOOD_DROPPED_MS, GATE_BURST_MS } from '../../../server/voice/lines/audio-gate.js';
import { BROWSER_AUDIO, PHONE_AUDIO } from '../../../server/voice/providers/types.js';

/** A clock the test moves (ms). */
class FakeClock {
  t = 1000;
  now = () => this.t;
}

const bytes = (n: number) => new Uint8Array(n).fill(7);

describe('AudioGate: caller audio held to real time', () => {
  it('lets a real-time line through whole, frame after frame, for a minute', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now });
    let passed = 0;
    for (let i = 0; i < 3000; i++) {
      clock.t += 20;
      passed += gate.admit(bytes(640))?.byteLength ?? 0;
    }
    expect(passed).toBe(3000 * 640);
    expect(gate.stats).toMatchObject({ receivedBytes: 3000 * 640, admittedBytes: 3000 * 640, droppedBytes: 0, droppedFrames: 0 });
    expect(gate.flooding).toBe(false);
  });

  it('passes its burst at once, cut at a whole sample, and drops and counts the rest', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now, burstMs: 200 });
    const burst = 6400; // bytes of 200 ms of 16 kHz PCM16
    const first = gate.admit(bytes(10_240));
    expect(first?.byteLength).toBe(burst);
    expect(gate.admit(bytes(640))).toBeNull();
    // 10.03 ms later 320.96 bytes are due: 160 whole 16-bit samples pass
    clock.t += 10.03;
    expect(gate.admit(bytes(640))?.byteLength).toBe(320);
    expect(gate.stats).toMatchObject({
      receivedBytes: 10_240 + 640 + 640,
      admittedBytes: burst + 320,
      droppedBytes: 10_240 - burst + 640 + 320,
      droppedFrames: 3,
    });
  });

  it('takes its rate from the line: 8 kHz mu-law is 8,000 bytes a second, one byte a sample', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(PHONE_AUDIO, { now: clock.now, burstMs: 200 });
    expect(gate.admit(bytes(5000))?.byteLength).toBe(1600); // the 200 ms burst
    let passed = 0;
    for (let i = 0; i < 100; i++) {
      clock.t += 20;
      // twice real time: 320 bytes every 20 ms
      passed += gate.admit(bytes(320))?.byteLength ?? 0;
    }
    expect(passed).toBe(100 * 160);
    expect(gate.stats.droppedBytes).toBe(5000 - 1600 + 100 * 160);
  });

  it('never lets more than real time and the burst through, however the frames come', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now, floodMs: Number.POSITIVE_INFINITY });
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const start = clock.t;
    let over = 0;
    for (let i = 0; i < 20_000; i++) {
      clock.t += random() * 15;
      gate.admit(bytes(2 * Math.ceil(random() * 5120)));
      over = Math.max(over, gate.stats.admittedBytes - ((clock.t - start) * 32 + GATE_BURST_MS * 32));
    }
    expect(over).toBeLessThanOrEqual(0);
    // and the line got nearly all real time allowed it (it always sent more)
    expect(gate.stats.admittedBytes).toBeGreaterThan((clock.t - start) * 32 - 2);
    expect(gate.stats.admittedBytes + gate.stats.droppedBytes).toBe(gate.stats.receivedBytes);
    expect(gate.stats.admittedBytes % 2).toBe(0);
  });

  it('a line sending as fast as it can floods within a few frames; refused frames count too', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now });
    let frames = 0;
    while (!gate.flooding && frames < 1000) {
      gate.admit(bytes(10_240));
      frames++;
    }
    // the burst (32,000 bytes) passes three frames and part of the 4th (280 ms dropped), then each frame
    // drops 320 ms: 5 s of dropped audio is passed on the 19th frame
    expect(GATE_BURST_MS).toBe(1000);
    expect(frames).toBe(19);
    expect(gate.stats.droppedBytes).toBeGreaterThan((FLOOD_DROPPED_MS / 1000) * 32_000);

    const refusing = new AudioGate(BROWSER_AUDIO, { now: clock.now });
    for (let i = 0; i < 15; i++) refusing.refuse(10_241);
    expect(refusing.flooding).toBe(false);
    refusing.refuse(10_241);
    expect(refusing.flooding).toBe(true);
    expect(refusing.stats).toMatchObject({ receivedBytes: 16 * 10_241, admittedBytes: 0, droppedFrames: 16 });
  });

  it('forgives half a second of drops every second: 1.4 times real time never floods, 2 times floods after about 11 s', () => {
    const run = (factor: number, seconds: number) => {
      const clock = new FakeClock();
      const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now });
      for (let ms = 0; ms < seconds * 1000; ms += 20) {
        clock.t += 20;
        gate.admit(bytes(Math.round(640 * factor) & ~1));
        if (gate.flooding) return ms / 1000;
      }
      return undefined;
    };
    expect(run(1.4, 120)).toBeUndefined();
    // twice real time: the burst lasts 1 s, then 10 ms of drops every 20 ms fill the meter in 10 s more
    const at = run(2, 60);
    expect(at).toBeGreaterThan(10.5);
    expect(at).toBeLessThan(11.5);
  });

  it('a stall of a second (what a browser queues while its socket is slow) passes whole when the frames come at once', () => {
    const clock = new FakeClock();
    const gate = new AudioGate(BROWSER_AUDIO, { now: clock.now });
    for (let i = 0; i < 50; i++) {
      clock.t += 20;
      gate.admit(bytes(640));
    }
    clock.t += 1000;
    for (let i = 0; i < 50; i++) gate.admit(bytes(640));
    expect(gate.stats).toMatchObject({ admittedBytes: 100 * 640, droppedBytes: 0 });
    // a second more at once is dropped, and is still far from a flood
    for (let i = 0; i < 50; i++) gate.admit(bytes(640));
    expect(gate.stats.droppedBytes).toBe(50 * 640);
    expect(gate.flooding).toBe(false);
  });
});
