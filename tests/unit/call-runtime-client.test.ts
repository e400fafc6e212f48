import { describe, expect, it } from 'vitest';
import { callRuntimeApi, readEventStream, webCallSocketUrl } from '../../src/api/call-runtime.js';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { floatToPcm16, LinearResampler, meterLevel, pcm16ToFloat, rms } from '../../src/audio/pcm.js';

/** A body that arrives in the given pieces (split anywhere, even inside a UTF-8 character). */
function streamOf(pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(typeof p === 'string' ? enc.encode(p) : p);
      c.close();
    },
  });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('the chat event stream', () => {
  it('reads data: events split across chunks, skips comments and events outside the contract', async () => {
    const euro = new TextEncoder().encode('data: {"type":"delta","text":"5 €"}\n\n');
    const events = await collect(
      readEventStream(
        streamOf([
          ': keep-alive\n\n',
          'data: {"type":"del',
          'ta","text":"Hel"}\n\ndata: {"type":"delta","text":"lo"}\r\n\r\n',
          euro.slice(0, euro.length - 5),
          euro.slice(euro.length - 5),
          'data: {"type":"tool_call","name":"end_call","arguments":{"reason":"done"}}\n\n',
          'data: {"type":"surprise"}\n\ndata: not json\n\n',
          'data: {"type":"done","ended":true}',
        ]),
      ),
    );
    expect(events).toEqual([
      { type: 'delta', text: 'Hel' },
      { type: 'delta', text: 'lo' },
      { type: 'delta', text: '5 €' },
      { type: 'tool_call', name: 'end_call', arguments: { reason: 'done' } },
      { type: 'done', ended: true },
    ]);
  });

  it('sends the message with the bearer token; a refusal is an ApiError with the server’s message', async () => {
    const seen: { url: string; auth: string | null; body: string }[] = [];
    let answer = new Response('data: {"type":"done","ended":false}\n\n', { headers: { 'content-type': 'text/event-stream' } });
    const client = createApiClient({
      fetch: (async (url: string, init: RequestInit) => {
        seen.push({ url, auth: new Headers(init.headers).get('authorization'), body: String(init.body) });
        return answer;
      }) as typeof fetch,
    });
    client.bindSession({ accessToken: () => 'tok', hydrated: () => true, renew: async () => null });
    const api = callRuntimeApi(client);
    expect(await collect(api.chats.send('c/1', 'Hi'))).toEqual([{ type: 'done', ended: false }]);
    expect(seen).toEqual([{ url: '/api/v1/chat/c%2F1/message', auth: 'Bearer tok', body: '{"content":"Hi"}' }]);
    answer = new Response(JSON.stringify({ success: false, msg: 'The agent is still answering the previous message.' }), {
      status: 409,
    });
    const failure = await collect(api.chats.send('c1', 'Hi')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(409);
    expect((failure as ApiError).serverMessage).toBe('The agent is still answering the previous message.');
  });

  it('ending a chat is a POST that outlives the page (fetch keepalive) with the bearer token', async () => {
    const seen: { url: string; method?: string; keepalive?: boolean; auth: string | null }[] = [];
    const client = createApiClient({
      fetch: (async (url: string, init: RequestInit) => {
        seen.push({
          url: String(url),
          method: init.method,
          keepalive: init.keepalive,
          auth: new Headers(init.headers).get('authorization'),
        });
        return new Response(JSON.stringify({ success: true, data: { chat_id: 'c1', ended: true, transcript: [] } }), {
          headers: { 'content-type': 'application/json' },
        });
      }) as typeof fetch,
    });
    client.bindSession({ accessToken: () => 'tok', hydrated: () => true, renew: async () => null });
    const { data } = await callRuntimeApi(client).chats.end('c1');
    expect(data).toEqual({ chat_id: 'c1', ended: true, transcript: [] });
    expect(seen).toEqual([{ url: '/api/v1/chat/c1/end', method: 'POST', keepalive: true, auth: 'Bearer tok' }]);
  });

  it('a missing provider key carries the Providers link', async () => {
    const client = createApiClient({
      fetch: (async () =>
        new Response(
          JSON.stringify({
            success: false,
            msg: 'Connect Deepgram',
            problem: { provider: 'deepgram', message: 'Connect Deepgram', link: '/dashboard/providers' },
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        )) as typeof fetch,
    });
    const failure = await callRuntimeApi(client)
      .startWebCall({ agent_id: 'a1' }, { notify: false })
      .catch((e: unknown) => e);
    expect((failure as ApiError).link).toBe('/dashboard/providers');
  });

  it('the web call socket is on the page’s own origin, ws or wss as the page', () => {
    expect(webCallSocketUrl('c1', 'a b', 'https://app.example')).toBe('wss://app.example/api/v1/call/web/c1/stream?token=a%20b');
    expect(webCallSocketUrl('c1', 't', 'http://127.0.0.1:5173')).toBe('ws://127.0.0.1:5173/api/v1/call/web/c1/stream?token=t');
  });
});

describe('PCM of the web call', () => {
  it('PCM16 little-endian round trip, clipped to range', () => {
    const bytes = floatToPcm16(Float32Array.from([0, 0.5, -0.5, 1, -1, 2]));
    const view = new DataView(bytes);
    expect([0, 1, 2, 3, 4, 5].map((i) => view.getInt16(i * 2, true))).toEqual([0, 16384, -16384, 32767, -32768, 32767]);
    const back = pcm16ToFloat(bytes);
    expect(back[1]).toBeCloseTo(0.5, 3);
    expect(back[4]).toBe(-1);
  });

  it('resampling 48 kHz to 16 kHz gives 320 samples per 20 ms and keeps a tone', () => {
    const r = new LinearResampler(48_000, 16_000);
    let out: number[] = [];
    for (let block = 0; block < 60; block++) {
      const input = Float32Array.from({ length: 128 }, (_, i) => Math.sin((2 * Math.PI * 440 * (block * 128 + i)) / 48_000));
      out = out.concat(Array.from(r.push(input)));
    }
    // 60 blocks of 128 samples = 160 ms -> 2560 samples at 16 kHz
    expect(out.length).toBe(2560);
    // output n is input position 3n - 1 (one input sample of delay: it interpolates from the sample before)
    const expected = out.map((_, n) => (n === 0 ? 0 : Math.sin((2 * Math.PI * 440 * (3 * n - 1)) / 48_000)));
    expect(Math.max(...out.map((v, i) => Math.abs(v - (expected[i] ?? 0))))).toBeLessThan(0.01);
  });

  it('the meter level: silence is 0, full scale is 1, -30 dBFS is half way', () => {
    expect(meterLevel(rms(new Float32Array(320)))).toBe(0);
    expect(meterLevel(1)).toBe(1);
    expect(meterLevel(10 ** (-30 / 20))).toBeCloseTo(0.5, 5);
  });
});
