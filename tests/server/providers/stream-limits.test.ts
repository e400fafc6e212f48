/**
 * Every provider stream parser against a hostile server (a company's own OpenAI Base URL may point
 * anywhere): Server-Sent Events (OpenAI Chat Completions, Anthropic Messages) and WebSocket JSON messages
 * (Deepgram, ElevenLabs through openSocket, OpenAI Realtime). The claims are about work, so they are
 * measured as work: bytes the line splitter looked at (StreamWork), JSON.parse calls and their sizes, and
 * how many chunks or messages were handled within one turn of the event loop (a setImmediate ticker counts
 * the turns). No durations are asserted.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { createAnthropic } from '../../../server/voice/providers/anthropic/messages.js';
import { createDeepgramStt } from '../../../server/voice/providers/deepgram/stt.js';
import { createElevenLabsTts } from '../../../server/voice/providers/elevenlabs/tts.js';
import { SSE_LINE_MAX, type StreamWork } from '../../../server/voice/providers/http-stream.js';
import { createOpenAiChat } from '../../../server/voice/providers/openai/chat.js';
import { createOpenAiRealtime } from '../../../server/voice/providers/openai/realtime.js';
import { MAX_MESSAGE_BYTES } from '../../../server/voice/providers/socket.js';
import { BROWSER_AUDIO, type ProviderError } from '../../../server/voice/providers/types.js';
import { dripLine, type Listening, listen } from '../../fakes/listen.js';
import { type FakeServer, startFakeServer } from '../../fakes/server.js';
import { llmRequest, mostPerTurn, refusal, until } from './llm-helpers.js';

const PIECE = 512;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
});

/** Counts the turns of the event loop (one setImmediate per turn) until stopped. */
function loopTurns() {
  const counter = { turns: 0, stop: () => {} };
  let running = true;
  const tick = () => {
    counter.turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  counter.stop = () => {
    running = false;
  };
  cleanup.push(counter.stop);
  return counter;
}

// ---------------------------------------------------------------------------------------------
// Server-Sent Events

/** An SSE answer that is one line that never ends: `data: ` then 512-byte pieces up to 4 MB (dripLine). */
async function drippingSse(): Promise<Listening & { closed: () => boolean }> {
  let closed = false;
  const server = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.on('close', () => {
      closed = true;
    });
    dripLine(res, () => closed, { bytes: 4 * 1024 * 1024, piece: PIECE });
  });
  cleanup.push(() => server.close());
  return { ...server, closed: () => closed };
}

describe.each([
  { name: 'OpenAI', create: createOpenAiChat, model: 'gpt-4o' },
  { name: 'Anthropic', create: createAnthropic, model: 'claude-haiku-4-5' },
])('$name SSE: one line dripped in 512-byte pieces', ({ name, create, model }) => {
  it('is cut in linear work, refused as its bytes pass 1 MB, with the event loop turning between chunks', async () => {
    const server = await drippingSse();
    const works: StreamWork[] = [];
    const turnOfChunk: number[] = [];
    const loop = loopTurns();
    const provider = create({
      firstByteMs: 10_000,
      idleMs: 10_000,
      observe: (work) => {
        works.push({ ...work });
        turnOfChunk.push(loop.turns);
      },
    });
    const e = await refusal(provider, llmRequest({ apiKey: 'sk-hostile', url: server.url }, model));
    loop.stop();
    expect(e).toMatchObject({ kind: 'unavailable', message: `${name} sent a line longer than 1 MB` });
    const last = works.at(-1) as StreamWork;
    // the pieces arrived as pieces (the attack), and the line was refused by the chunk that passed the
    // limit: the server meant to send 4 MB and never ended the line
    expect(last.chunks).toBeGreaterThan(1000);
    expect(last.received).toBeGreaterThan(SSE_LINE_MAX);
    expect(last.received - SSE_LINE_MAX).toBeLessThanOrEqual(64 * 1024);
    // linear: every byte looked at once (re-searching the unfinished line for each piece would be
    // about chunks / 2 times the bytes: over 1 GB here)
    expect(last.scanned).toBeLessThanOrEqual(last.received);
    // the chunks that queued up were handled one per turn of the event loop, not all in one go
    expect(mostPerTurn(turnOfChunk)).toBeLessThanOrEqual(2);
    // and the connection was closed
    await until(() => server.closed());
  });
});

// ---------------------------------------------------------------------------------------------
// WebSocket JSON messages

/** Sends `text` as one text message in fragments of 512 bytes; `finish: false` never sends the last one. */
function sendFragments(ws: WebSocket, text: string, finish = true) {
  for (let at = 0; at < text.length; at += PIECE)
    ws.send(text.slice(at, at + PIECE), { fin: finish && at + PIECE >= text.length });
}

/** The big inputs JSON.parse got while `run` ran (smaller ones are the sockets' small messages). */
async function bigParses(run: () => Promise<void>): Promise<number[]> {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    await run();
    return parse.mock.calls.map(([text]) => String(text).length).filter((n) => n > 100_000);
  } finally {
    parse.mockRestore();
  }
}

interface HostileSocket {
  server: FakeServer;
  /** the close codes the server saw */
  closes: number[];
}

/**
 * A provider socket that, once `ready` says so, sends: a 1 MB message in 512-byte fragments, a burst of
 * 50 small messages, then a message that passes MAX_MESSAGE_BYTES and never ends.
 */
async function hostileSocket(
  ready: (ws: WebSocket, go: () => void) => void,
  messages: { big: string; small: string },
): Promise<HostileSocket> {
  const closes: number[] = [];
  const server = await startFakeServer({
    upgrade: async (_req, _socket, accept) => {
      const ws = await accept();
      ws.on('close', (code) => closes.push(code));
      ready(ws, () => {
        sendFragments(ws, messages.big);
        for (let i = 0; i < 50; i++) ws.send(messages.small);
        sendFragments(ws, 'x'.repeat(MAX_MESSAGE_BYTES + PIECE), false);
      });
    },
  });
  cleanup.push(() => server.close());
  return { server, closes };
}

const MEGA = 1024 * 1024;

/**
 * The events of a stream, and how many small messages of the burst had been handled when the event loop
 * next turned after the first of them (1: one message a turn).
 */
interface AnyEvent {
  type: string;
  text?: string;
  chunk?: Uint8Array;
  error?: ProviderError;
}
function burstProbe(isSmall: (e: AnyEvent) => boolean) {
  const probe = {
    events: [] as AnyEvent[],
    smallAtNextTurn: -1,
    onEvent: (e: AnyEvent) => {
      probe.events.push(e);
      if (isSmall(e) && probe.smallAtNextTurn === -1) {
        probe.smallAtNextTurn = 0;
        setImmediate(() => {
          probe.smallAtNextTurn = probe.events.filter(isSmall).length;
        });
      }
    },
    failed: () => probe.events.some((e) => e.type === 'error'),
  };
  return probe;
}

describe('WebSocket JSON: a 1 MB message in 512-byte fragments, a burst, and a message past the limit', () => {
  /** What each adapter must show: the big message parsed once, one message a turn, the refusal. */
  async function expectSameTreatment(
    probe: ReturnType<typeof burstProbe>,
    run: () => Promise<void>,
    expected: { big: string; sizes: (number | undefined)[]; error: string; closes: () => number },
  ) {
    const parses = await bigParses(async () => {
      await run();
      await until(probe.failed);
    });
    expect(probe.events.filter((e) => e.type !== 'error').map(sizeOf)).toEqual(expected.sizes);
    expect(parses).toEqual([expected.big.length]);
    // the burst arrived together; the loop turned after the first of its messages
    expect(probe.smallAtNextTurn).toBe(1);
    // the message past 4 MB never ended: it was refused as its frames passed the limit
    expect(probe.events.at(-1)?.error).toMatchObject({ kind: 'unavailable', message: expected.error });
    await until(() => expected.closes() === 1);
  }
  const sizeOf = (e: AnyEvent) => e.text?.length ?? e.chunk?.byteLength;

  it('Deepgram: parsed once, one message per turn of the event loop, refused as its frames pass 4 MB', async () => {
    const results = (text: string) =>
      JSON.stringify({ type: 'Results', is_final: true, speech_final: false, channel: { alternatives: [{ transcript: text }] } });
    const big = results('y'.repeat(MEGA));
    const hostile = await hostileSocket((ws, go) => ws.once('message', go), { big, small: results('hi') });
    const probe = burstProbe((e) => e.type === 'transcript' && e.text === 'hi');
    await expectSameTreatment(
      probe,
      async () => {
        const stream = await createDeepgramStt().connect(
          {
            apiKey: 'dg-hostile',
            baseUrl: hostile.server.url,
            language: 'en-US',
            model: 'nova-2',
            format: BROWSER_AUDIO,
            keywords: [],
            endpointingMs: 300,
            utteranceEndMs: 1000,
          },
          probe.onEvent,
          new AbortController().signal,
        );
        cleanup.push(() => stream.close());
        stream.sendAudio(new Uint8Array(640));
      },
      {
        big,
        sizes: [MEGA, ...Array(50).fill(2)],
        error: 'Deepgram sent a message larger than 4 MB',
        closes: () => hostile.closes.length,
      },
    );
  });

  it('ElevenLabs (openSocket and the TTS stream): the same treatment', async () => {
    const big = JSON.stringify({ audio: Buffer.alloc(768 * 1024, 7).toString('base64') });
    const hostile = await hostileSocket((ws, go) => ws.once('message', go), { big, small: JSON.stringify({ audio: 'AAAA' }) });
    const probe = burstProbe((e) => e.type === 'audio' && e.chunk?.byteLength === 3);
    await expectSameTreatment(
      probe,
      async () => {
        await createElevenLabsTts().connect(
          {
            apiKey: 'xi-hostile',
            baseUrl: hostile.server.url,
            voiceId: 'voice-7Kx',
            model: 'eleven_flash_v2_5',
            language: 'en-US',
            format: BROWSER_AUDIO,
            speed: 1,
            stability: 0.5,
            similarity: 0.75,
            volume: 1,
          },
          probe.onEvent,
          new AbortController().signal,
        );
      },
      {
        big,
        sizes: [768 * 1024, ...Array(50).fill(3)],
        error: 'ElevenLabs sent a message larger than 4 MB',
        closes: () => hostile.closes.length,
      },
    );
  });

  it("OpenAI Realtime (a company's own Base URL): the same treatment", async () => {
    const transcriptDelta = (text: string) =>
      JSON.stringify({ type: 'response.output_audio_transcript.delta', item_id: 'item_1', delta: text });
    const big = transcriptDelta('z'.repeat(MEGA));
    const hostile = await hostileSocket(
      (ws, go) => {
        ws.send(JSON.stringify({ type: 'session.created', session: {} }));
        ws.once('message', () => {
          ws.send(JSON.stringify({ type: 'session.updated', session: {} }));
          go();
        });
      },
      { big, small: transcriptDelta('hi') },
    );
    const probe = burstProbe((e) => e.type === 'agent_transcript' && e.text === 'hi');
    await expectSameTreatment(
      probe,
      async () => {
        const session = await createOpenAiRealtime().connect(
          {
            apiKey: 'sk-hostile',
            baseUrl: hostile.server.url,
            model: 'gpt-realtime',
            instructions: 'You are the front desk.',
            voice: 'alloy',
            format: BROWSER_AUDIO,
            tools: [],
            temperature: 0.8,
            silenceMs: 300,
            vadThreshold: 0.5,
          },
          probe.onEvent,
          new AbortController().signal,
        );
        cleanup.push(() => session.close());
      },
      {
        big,
        sizes: [MEGA, ...Array(50).fill(2)],
        error: 'OpenAI Realtime sent a message larger than 4 MB',
        closes: () => hostile.closes.length,
      },
    );
  });
});
