import { afterAll, expect, it } from 'vitest';
import { BUILTIN_VOICES } from '../../server/modules/voices/voice.catalogue.js';
import { ELEVENLABS_ANSWER_MAX_BYTES, ELEVENLABS_VOICES_URL } from '../../server/modules/voices/voice.elevenlabs.js';
import type { HttpClient } from '../../server/platform/deps.js';
import type { Voice } from '../../src/api/contract/voice.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';

const KEY = 'xi-CANARY-5f2b9c0e7d4a';

/** A local stand-in for the ElevenLabs API: records the calls and answers what the test sets. */
class FakeElevenLabs implements HttpClient {
  calls: { url: string; key: string | null }[] = [];
  answer: () => Response = accountVoices;
  async fetch(url: string, init?: RequestInit) {
    this.calls.push({ url, key: new Headers(init?.headers).get('xi-api-key') });
    return this.answer();
  }
  reset() {
    this.calls = [];
    this.answer = accountVoices;
  }
}

function accountVoices() {
  return Response.json({
    voices: [
      { voice_id: 'acct-voice-1', name: 'Clinic Voice', labels: { gender: 'female', accent: 'british' }, category: 'cloned' },
      { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel (my copy)', labels: { gender: 'female' } },
      { voice_id: 'acct-voice-2', name: 'Narrator', labels: null },
    ],
  });
}

const fake = new FakeElevenLabs();
const BODIES: string[] = [];

afterAll(() => {
  expect([...BODIES, ...LOG_LINES].filter((text) => text.includes(KEY))).toEqual([]);
});

async function voices(t: TestApp, token: string, path = '/voices') {
  const res = await t.req('GET', `/api/v1${path}`, { token });
  const text = await res.text();
  BODIES.push(text);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: JSON.parse(text) as any };
}

const connect = async (t: TestApp, token: string) => {
  const res = await t.req('POST', '/api/v1/provider/values', {
    token,
    body: { name: 'elevenlabs', keys: [{ name: 'API Key', value: KEY }] },
  });
  expect(res.status).toBe(201);
};

describeEachDb('voices', (kind) => {
  const t = useTestApp(kind, () => {
    fake.reset();
    return { http: fake };
  });

  it('answers the built-in catalogue of at least 20 voices without asking ElevenLabs when not connected', async () => {
    const { token } = await signUp(t());
    const res = await voices(t(), token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.elevenlabs).toBe('not_connected');
    expect(res.body.voices.length).toBeGreaterThanOrEqual(20);
    expect(res.body.voices).toEqual(BUILTIN_VOICES);
    for (const v of res.body.voices as Voice[]) {
      expect(v.voice_id).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(v.name).not.toBe('');
      expect(['female', 'male']).toContain(v.labels?.gender);
    }
    expect(new Set((res.body.voices as Voice[]).map((v) => v.voice_id)).size).toBe(res.body.voices.length);
    expect(fake.calls).toEqual([]);
    expect((await t().req('GET', '/api/v1/voices')).status).toBe(401);
  });

  it("lists the connected account's voices first, fetched with the stored key", async () => {
    const { token } = await signUp(t());
    await connect(t(), token);
    const res = await voices(t(), token);
    expect(fake.calls).toEqual([{ url: ELEVENLABS_VOICES_URL, key: KEY }]);
    expect(res.body.elevenlabs).toBe('connected');
    expect(res.body.voices.slice(0, 3)).toEqual([
      { voice_id: 'acct-voice-1', name: 'Clinic Voice', labels: { gender: 'female' }, source: 'elevenlabs' },
      { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel (my copy)', labels: { gender: 'female' }, source: 'elevenlabs' },
      { voice_id: 'acct-voice-2', name: 'Narrator', labels: {}, source: 'elevenlabs' },
    ]);
    // the catalogue follows, without the voice the account already listed
    expect(res.body.voices).toHaveLength(3 + BUILTIN_VOICES.length - 1);
    expect((res.body.voices as Voice[]).filter((v) => v.voice_id === '21m00Tcm4TlvDq8ikWAM')).toHaveLength(1);

    // the spec's unused alias answers the same
    const alias = await voices(t(), token, '/provider/voices');
    expect(alias.body).toEqual(res.body);
  });

  it('still answers the catalogue, saying why, when ElevenLabs refuses the key or cannot be reached', async () => {
    const { token } = await signUp(t());
    await connect(t(), token);
    fake.answer = () => Response.json({ detail: { status: 'invalid_api_key' } }, { status: 401 });
    const refused = await voices(t(), token);
    expect(refused.body).toMatchObject({
      elevenlabs: 'unavailable',
      notice: 'ElevenLabs refused the connected key: showing the built-in voices.',
    });
    expect(refused.body.voices).toEqual(BUILTIN_VOICES);

    let sent = 0;
    const endless = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            sent += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          },
        }),
      );
    for (const answer of [
      () => new Response('<html>busy</html>', { status: 503 }),
      () => new Response('not json'),
      // an answer that never ends is read up to its limit, one nested past reason is not parsed
      endless,
      () => new Response(`${'['.repeat(500_000)}${']'.repeat(500_000)}`),
    ]) {
      fake.answer = answer;
      const down = await voices(t(), token);
      expect(down.body).toMatchObject({
        elevenlabs: 'unavailable',
        notice: 'ElevenLabs could not be reached: showing the built-in voices.',
      });
      expect(down.body.voices).toEqual(BUILTIN_VOICES);
    }
    expect(sent).toBeGreaterThan(ELEVENLABS_ANSWER_MAX_BYTES);
    expect(sent).toBeLessThan(ELEVENLABS_ANSWER_MAX_BYTES + 1024 * 1024);
    fake.answer = () => {
      throw new TypeError('fetch failed');
    };
    expect((await voices(t(), token)).body.elevenlabs).toBe('unavailable');
  });
});
