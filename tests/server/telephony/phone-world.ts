/**
 * One phone-call world for the telephony tests: the speech, LLM and voice fakes, a carrier fake, a call
 * server pointed at all of them, and the company's keys connected (the carrier's through Providers).
 */
import { expect } from 'vitest';
import { PHONE_FRAME_MAX_BYTES } from '../../../server/carriers/twilio/stream.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import type { DbKind } from '../../../server/platform/db/index.js';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { PlivoFake } from '../../fakes/plivo.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { type CallServer, connectProvider, sampleAgent, savePayload, startCallServer } from '../call/harness.js';

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
  const s = await startCallServer(kind, createProviderRegistry(), {
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

/** A phone world on the fake Twilio, its Account SID and Auth Token connected. */
export const startTwilioWorld = (kind: DbKind) =>
  startPhoneWorld(
    kind,
    'twilio',
    () => TwilioFake.start(),
    (c) => [
      { name: 'Account SID', value: c.accountSid },
      { name: 'Auth Token', value: c.authToken },
    ],
  );

/** A phone world on the fake Plivo, its Auth ID and Auth Token connected. */
export const startPlivoWorld = (kind: DbKind) =>
  startPhoneWorld(
    kind,
    'plivo',
    () => PlivoFake.start(),
    (c) => [
      { name: 'Auth ID', value: c.authId },
      { name: 'Auth Token', value: c.authToken },
    ],
  );

/** A `provider` number of the company, answered by the given agents. */
export async function carrierNumber(
  s: CallServer,
  provider: 'twilio' | 'plivo',
  number: string,
  agents: { inbound: string | null; outbound: string | null },
) {
  const at = new Date().toISOString();
  await s.t.deps.db.db
    .insertInto('phone_numbers')
    .values({
      id: newId(),
      company_id: s.user.companyId,
      account_id: null,
      origin: 'company',
      phone_number: number,
      provider,
      phone_number_type: 'local',
      phone_number_pretty: number,
      area_code: null,
      nickname: null,
      termination_uri: `acme.${provider}.example`,
      assistant_id: null,
      inbound_agent_id: agents.inbound,
      outbound_agent_id: agents.outbound,
      assigned_at: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** The company's sample agent saved with `patch`, answering (inbound and outbound) on its `provider` number. */
export async function agentOnCarrierNumber(
  s: CallServer,
  provider: 'twilio' | 'plivo',
  number: string,
  patch: Record<string, unknown> = {},
): Promise<string> {
  const agent = await sampleAgent(s);
  const saved = await s.t.req('PUT', `/api/v1/agent/${agent._id}`, { token: s.user.token, body: savePayload(agent, patch) });
  expect(saved.status, await saved.clone().text()).toBe(200);
  await carrierNumber(s, provider, number, { inbound: agent._id, outbound: agent._id });
  return agent._id;
}
