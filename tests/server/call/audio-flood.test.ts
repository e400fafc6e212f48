import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { describeEachDb, LOG_LINES } from '../helpers.js';
import { connectProvider, floodSocket, openBrowser, sampleAgent, savePayload, useCallServer, waitFor } from './harness.js';
import { InProcessProviders, tone } from './in-process-providers.js';

/**
 * A web call's caller audio is held to real time (server/voice/lines/audio-gate.ts): a browser, or a
 * script, that sends faster than 16 kHz PCM16 (32,000 bytes a second) has the excess dropped and counted;
 * the recording and the billed speech seconds follow the call's clock, not the bytes sent; and a line
 * that keeps flooding is hung up with its own reason. Real HTTP, a real WebSocket, providers in memory.
 */
const BYTES_PER_SECOND = 32_000;
/** the biggest frame the line takes (16 × 20 ms) */
const BIG_FRAME = 10_240;
/** bytes of recording per second of call: stereo, 16-bit, 16 kHz */
const RECORDING_BYTES_PER_SECOND = 16_000 * 2 * 2;
/** allowance over the wall time: the gate's burst (1 s) for what is heard, and the recorder's lead over the clock (1.5 s) */
const HEARD_MARGIN_S = 1.05;
const RECORDED_MARGIN_S = 1.55;

describeEachDb('caller audio held to real time', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  async function startWebCall() {
    const s = server();
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, { message: '' }), dynamic_variables: {} },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const startedAt = performance.now();
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    return { s, browser, callId: data.call_id, startedAt };
  }

  /** The stored call once it has ended, the wall seconds since its socket was opened, and its recording's size. */
  async function storedCall(callId: string, startedAt: number) {
    const s = server();
    const d = (await waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const body = ((await res.json()) as { data: Record<string, unknown> }).data;
      return body.status !== 'ongoing' ? body : undefined;
    }, 'the call stored')) as unknown as {
      status: string;
      disconnection_reason: string;
      usage: { stt_seconds: number };
      cost: { stt: number };
    };
    const wallSeconds = (performance.now() - startedAt) / 1000;
    const file = path.join(s.t.dataDir, 'recordings', s.user.companyId, `${callId}.wav`);
    const recordingBytes = fs.existsSync(file) ? fs.statSync(file).size : 0;
    return { d, wallSeconds, recordingBytes };
  }

  /** The line logged when the call ended, with the caller audio's counters. */
  function endLine(callId: string) {
    const line = LOG_LINES.map((l) => JSON.parse(l) as Record<string, unknown>).find(
      (l) => l.msg === 'web call ended' && l.callId === callId,
    );
    return line as
      | {
          reason: string;
          caller_audio_received_bytes: number;
          caller_audio_dropped_bytes: number;
          caller_audio_dropped_frames: number;
        }
      | undefined;
  }

  it('a browser flooding the line as fast as the socket takes frames is held to real time and hung up with its reason', async () => {
    const { browser, callId, startedAt } = await startWebCall();
    // 10,240-byte frames as fast as the socket takes them: at most 3 s, or 16 MiB (over eight minutes of audio)
    const frame = tone(BIG_FRAME, { encoding: 'pcm16', sampleRate: 16000 });
    const sent = await floodSocket(browser.ws, frame, BIG_FRAME, 3000, 16 * 1024 * 1024);
    if (browser.ws.readyState === WebSocket.OPEN) browser.ws.send(JSON.stringify({ type: 'hangup' }));
    const closed = await browser.closed;
    const { d, wallSeconds, recordingBytes } = await storedCall(callId, startedAt);

    // the line was hung up for flooding, and said why
    expect(d.disconnection_reason).toBe('error_audio_flood');
    expect(d.status).toBe('error');
    expect(browser.of('ended')).toEqual([
      { type: 'ended', reason: 'error_audio_flood', message: expect.stringContaining('faster than real time') },
    ]);
    expect(closed.code).toBe(1008);
    // the speech stream was closed, not left open behind the ended call
    expect(p.stt.every((h) => h.closed)).toBe(true);
    // what was recorded and billed follows the call's clock, not the bytes sent
    // more than the line's burst (1 s) and flood allowance (5 s) of audio was sent
    expect(sent).toBeGreaterThan(6 * BYTES_PER_SECOND);
    expect(d.usage.stt_seconds).toBeLessThanOrEqual(wallSeconds);
    expect(p.stt[0]?.audioBytes ?? 0).toBeLessThanOrEqual((wallSeconds + HEARD_MARGIN_S) * BYTES_PER_SECOND);
    expect(recordingBytes).toBeLessThanOrEqual(44 + (wallSeconds + RECORDED_MARGIN_S) * RECORDING_BYTES_PER_SECOND);
    // the excess was dropped and counted (logged once, when the call ended)
    const logged = endLine(callId);
    expect(logged?.reason).toBe('error_audio_flood');
    expect(logged?.caller_audio_received_bytes).toBeGreaterThan(0);
    expect(logged?.caller_audio_dropped_bytes).toBeGreaterThanOrEqual(
      (logged?.caller_audio_received_bytes ?? 0) - (wallSeconds + HEARD_MARGIN_S) * BYTES_PER_SECOND,
    );
    expect(logged?.caller_audio_dropped_frames).toBeGreaterThan(0);
  });

  it('a browser sending twice real time for 3 s keeps its call, and only real time is heard, recorded and billed', async () => {
    const { browser, callId, startedAt } = await startWebCall();
    const frame = tone(BIG_FRAME, { encoding: 'pcm16', sampleRate: 16000 });
    // 10,240 bytes (320 ms of audio) every 160 ms: 64,000 bytes a second
    let sent = 0;
    for (let i = 0; i < 19 && browser.ws.readyState === WebSocket.OPEN; i++) {
      browser.send(frame);
      sent += frame.byteLength;
      await new Promise((r) => setTimeout(r, 160));
    }
    expect(browser.ws.readyState).toBe(WebSocket.OPEN);
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    const { d, wallSeconds, recordingBytes } = await storedCall(callId, startedAt);

    expect(d.disconnection_reason).toBe('user_hangup');
    expect(d.usage.stt_seconds).toBeGreaterThan(0);
    expect(d.usage.stt_seconds).toBeLessThanOrEqual(wallSeconds);
    expect(p.stt[0]?.audioBytes ?? 0).toBeLessThanOrEqual((wallSeconds + HEARD_MARGIN_S) * BYTES_PER_SECOND);
    expect(recordingBytes).toBeLessThanOrEqual(44 + (wallSeconds + RECORDED_MARGIN_S) * RECORDING_BYTES_PER_SECOND);
    const logged = endLine(callId);
    expect(logged?.caller_audio_received_bytes).toBe(sent);
    expect(logged?.caller_audio_dropped_bytes).toBeGreaterThanOrEqual(sent - (wallSeconds + HEARD_MARGIN_S) * BYTES_PER_SECOND);
  });
});
