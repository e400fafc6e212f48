/**
 * Phone Numbers > 'Import from Twilio' / 'Import from Plivo' against fakes of the carriers' number resources
 * (tests/fakes/carrier-numbers.ts): listing the account's own numbers, importing chosen ones (each pointed at
 * Parley's inbound webhook through the carrier's API), refusals, and a release that sets back what was there.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PlivoNumbersFake, TwilioNumbersFake } from '../../fakes/carrier-numbers.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, useTestApp } from '../helpers.js';

describeEachDb('importing numbers from the company carrier account', (kind) => {
  let twilio: TwilioNumbersFake;
  let plivo: PlivoNumbersFake;
  beforeEach(async () => {
    [twilio, plivo] = await Promise.all([TwilioNumbersFake.start(), PlivoNumbersFake.start()]);
  });
  afterEach(async () => {
    await Promise.all([twilio.close(), plivo.close()]);
  });
  const app = useTestApp(kind);

  async function setup() {
    const t = app();
    t.deps.config.telephonyUrls = { twilio: twilio.url, plivo: plivo.url };
    const user = await signUp(t);
    const connect = async (name: string, keys: { name: string; value: string }[]) => {
      const res = await t.req('POST', '/api/v1/provider/values', { token: user.token, body: { name, keys } });
      expect(res.status).toBeLessThan(300);
    };
    const api = (method: string, path: string, body?: unknown) => t.req(method, `/api/v1${path}`, { token: user.token, body });
    return {
      t,
      user,
      api,
      connectTwilio: () =>
        connect('twilio', [
          { name: 'Account SID', value: twilio.accountSid },
          { name: 'Auth Token', value: twilio.authToken },
        ]),
      connectPlivo: () =>
        connect('plivo', [
          { name: 'Auth ID', value: plivo.authId },
          { name: 'Auth Token', value: plivo.authToken },
        ]),
    };
  }

  it('without the card connected the listing says which card to connect, with the Providers link', async () => {
    const { api } = await setup();
    const res = await api('GET', '/number/import/twilio');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { msg: string; problem: { link: string } };
    expect(body.msg).toBe('Connect Twilio on the Providers page to import its numbers.');
    expect(body.problem.link).toBe('/dashboard/providers');
    expect((await api('GET', '/number/import/sipgate')).status).toBe(400);
  });

  it('Twilio: lists every page of the account, imports the chosen numbers pointed at Parley, and a release restores them', async () => {
    const { api, connectTwilio, t } = await setup();
    await connectTwilio();
    for (let i = 0; i < 105; i++)
      twilio.add(`+1415555${String(1000 + i)}`, i === 1 ? { capabilities: { voice: false, sms: true, mms: false } } : {});
    const front = twilio.numbers[0]!;
    front.voice_application_sid = `AP${'0'.repeat(32)}`;
    front.status_callback = 'https://old.example.com/status';

    const listed = await api('GET', '/number/import/twilio');
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as {
      data: { numbers: { phone_number: string; voice: boolean; in_parley: boolean }[] };
    };
    expect(data.numbers).toHaveLength(105); // two pages of 100
    expect(data.numbers[1]).toMatchObject({ phone_number: '+14155551001', voice: false, in_parley: false });

    const res = await api('POST', '/number/import', { provider: 'twilio', phone_numbers: ['+14155551000', '+14155551002'] });
    expect(res.status).toBe(201);
    const imported = (await res.json()) as {
      msg: string;
      data: { numbers: { _id: string; phone: string; provider: string; origin: string }[] };
    };
    expect(imported.msg).toBe('2 numbers imported');
    expect(imported.data.numbers.map((n) => [n.phone, n.provider, n.origin])).toEqual([
      ['+14155551000', 'twilio', 'company'],
      ['+14155551002', 'twilio', 'company'],
    ]);
    // the carrier now sends the number's calls to Parley, and the voice application no longer overrides it
    const base = t.deps.config.publicUrl;
    expect(front).toMatchObject({
      voice_url: `${base}/api/v1/telephony/twilio/voice`,
      voice_method: 'POST',
      status_callback: `${base}/api/v1/telephony/twilio/status`,
      voice_application_sid: '',
    });
    // listed again: marked as on the platform, and a second import is refused without touching the carrier
    const again = (await (await api('GET', '/number/import/twilio')).json()) as typeof data extends never
      ? never
      : { data: typeof data };
    expect(again.data.numbers[0]?.in_parley).toBe(true);
    const updates = twilio.updates.length;
    expect((await api('POST', '/number/import', { provider: 'twilio', phone_numbers: ['+14155551000'] })).status).toBe(409);
    expect(twilio.updates.length).toBe(updates);

    // released in Parley: Twilio gets back exactly what the number had
    const id = imported.data.numbers[0]!._id;
    expect((await api('DELETE', `/number/${id}`)).status).toBe(200);
    expect(front).toMatchObject({
      voice_url: 'https://old.example.com/voice',
      status_callback: 'https://old.example.com/status',
      voice_application_sid: `AP${'0'.repeat(32)}`,
    });
    expect(twilio.violations).toEqual([]);
  });

  it('refuses numbers the account does not have, and says what the carrier answered when it fails', async () => {
    const { api, connectTwilio } = await setup();
    await connectTwilio();
    twilio.add('+14155552000');
    const foreign = await api('POST', '/number/import', { provider: 'twilio', phone_numbers: ['+14155559999'] });
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as { msg: string }).msg).toBe('+14155559999 is not a number of your Twilio account');
    expect((await api('POST', '/number/import', { provider: 'twilio', phone_numbers: [] })).status).toBe(400);
    expect(twilio.updates).toEqual([]);
    twilio.failWith = 500;
    const down = await api('GET', '/number/import/twilio');
    expect(down.status).toBe(502);
    expect(((await down.json()) as { msg: string }).msg).toBe('Twilio answered 500. Internal Server Error');
  });

  it('Plivo: imports through an application whose Answer URL is Parley, and a release links the old application back', async () => {
    const { api, connectPlivo, t } = await setup();
    await connectPlivo();
    for (let i = 0; i < 25; i++) plivo.add(`+1415555${String(3000 + i)}`);
    const old = plivo.appOf('+14155553000');
    const listed = (await (await api('GET', '/number/import/plivo')).json()) as { data: { numbers: unknown[] } };
    expect(listed.data.numbers).toHaveLength(25); // two pages of 20
    const res = await api('POST', '/number/import', { provider: 'plivo', phone_numbers: ['+14155553000'] });
    expect(res.status).toBe(201);
    const base = t.deps.config.publicUrl;
    const now = plivo.appOf('+14155553000');
    expect(now?.answer_url).toBe(`${base}/api/v1/telephony/plivo/answer`);
    expect(now?.answer_method).toBe('POST');
    const id = ((await res.json()) as { data: { numbers: { _id: string }[] } }).data.numbers[0]!._id;
    expect((await api('DELETE', `/number/${id}`)).status).toBe(200);
    expect(plivo.appOf('+14155553000')?.id).toBe(old?.id);
    expect(plivo.applications.has(now?.id as string)).toBe(false);
    expect(plivo.violations).toEqual([]);
  });

  it("another company's numbers are its own: the listing and import are scoped to the caller's card", async () => {
    const { api, connectTwilio, t } = await setup();
    await connectTwilio();
    twilio.add('+14155554000');
    expect((await api('POST', '/number/import', { provider: 'twilio', phone_numbers: ['+14155554000'] })).status).toBe(201);
    const other = await signUp(t);
    // the other company has no Twilio card: nothing is listed or imported with the first one's account
    const res = await t.req('GET', '/api/v1/number/import/twilio', { token: other.token });
    expect(res.status).toBe(400);
    const list = (await (await t.req('GET', '/api/v1/number/', { token: other.token })).json()) as {
      data: { numbers: unknown[] };
    };
    expect(list.data.numbers).toEqual([]);
  });
});
