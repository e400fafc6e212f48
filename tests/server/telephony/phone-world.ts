/**
 * One phone-call world for the telephony tests: the speech, LLM and voice fakes, a carrier fake, a call
 * server pointed at all of them, and the company's keys connected (the carrier's through Providers).
 */
import { expect } from 'vitest';
import { createProviderSet } from '../../../server/call/providers/index.js';
import { PHONE_FRAME_MAX_BYTES } from '../../../server/call/transports/twilio.js';
import type { DbKind } from '../../../server/db/index.js';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { type CallServer, connectProvider, startCallServer } from '../call/harness.js';

export interface PhoneWorld<C> {
  deepgram: DeepgramFake;
  openai: FakeOpenAi;
  eleven: ElevenLabsFake;
  carrier: C;
  s: CallServer;
  close(): Promise<void>;
}

export async function startPhoneWorld<C extends { url: string; close(): Promise<void> }>(
  kind: DbKind,
  name: 'twilio' | 'plivo',
  startCarrier: () => Promise<C>,
  keys: (carrier: C) => { name: string; value: string }[],
): Promise<PhoneWorld<C>> {
  const [deepgram, openai, eleven, carrier] = await Promise.all([
    DeepgramFake.start(),
    startFakeOpenAi(),
    ElevenLabsFake.start(),
    startCarrier(),
  ]);
  const s = await startCallServer(kind, createProviderSet(), {
    deepgram: deepgram.url,
    openai: openai.url,
    elevenlabs: eleven.url,
  });
  s.t.deps.config.publicUrl = s.baseUrl;
  s.t.deps.config.telephonyUrls = { [name]: carrier.url };
  await connectProvider(s, 'deepgram', deepgram.key);
  await connectProvider(s, 'openai', openai.apiKey);
  await connectProvider(s, 'elevenlabs', eleven.key);
  const res = await s.t.req('POST', '/api/v1/provider/values', { token: s.user.token, body: { name, keys: keys(carrier) } });
  expect(res.status).toBeLessThan(300);
  return {
    deepgram,
    openai,
    eleven,
    carrier,
    s,
    close: async () => {
      await carrier.close();
      await s.close();
      await Promise.all([deepgram.close(), openai.close(), eleven.close()]);
    },
  };
}

/** The largest media payload a phone line takes (2,560 bytes of mu-law: 320 ms), base64, for the flood tests. */
export const LARGEST_MEDIA_PAYLOAD = Buffer.alloc(PHONE_FRAME_MAX_BYTES, 0x20).toString('base64');

/** The phone-call world on Twilio: its fake, connected with its Account SID and Auth Token. */
export function startTwilioWorld(kind: DbKind): Promise<PhoneWorld<TwilioFake>> {
  return startPhoneWorld(
    kind,
    'twilio',
    () => TwilioFake.start(),
    (c) => [
      { name: 'Account SID', value: c.accountSid },
      { name: 'Auth Token', value: c.authToken },
    ],
  );
}
