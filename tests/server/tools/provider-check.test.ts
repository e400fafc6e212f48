import { afterEach, beforeEach, expect, it } from 'vitest';
import { providerAccess } from '../../../server/modules/providers/call-keys.js';
import { checkAvailabilityCalendly } from '../../../server/voice/tools/calendly/index.js';
import { CalcomFake } from '../../fakes/calcom.js';
import { CalendlyFake } from '../../fakes/calendly.js';
import { PerplexityFake } from '../../fakes/perplexity.js';
import { toolEnv } from '../../unit/tools/tool-env.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

describeEachDb('providers: the check of the Cal.com, Calendly and Perplexity cards calls the provider', (kind) => {
  const t = useTestApp(kind);
  let cal: CalcomFake;
  let calendly: CalendlyFake;
  let pplx: PerplexityFake;
  beforeEach(async () => {
    cal = await new CalcomFake('cal_live_good').start();
    calendly = await new CalendlyFake('pat-good').start();
    pplx = await new PerplexityFake('pplx-good').start();
    t().deps.config.providerUrls = {
      ...t().deps.config.providerUrls,
      calcom: cal.url,
      calendly: calendly.url,
      perplexity: pplx.url,
    };
  });
  afterEach(async () => {
    await Promise.all([cal.close(), calendly.close(), pplx.close()]);
  });

  it('a good key is accepted by the provider; a wrong one is reported with the status, never the key', async () => {
    const { token } = await signUp(t());
    const connect = (name: string, field: string, value: string) =>
      call(t(), 'POST', '/provider/values', { token, body: { name, keys: [{ name: field, value }] } });
    expect((await connect('calcom', 'API Key', 'cal_live_good')).status).toBe(201);
    // a wrong key saved while Calendly could not be reached to try it (Connect refuses one it can try)
    const urls = t().deps.config.providerUrls;
    t().deps.config.providerUrls = { ...urls, calendly: 'http://127.0.0.1:9' };
    const unchecked = await connect('calendly', 'Personal Access Token', 'pat-wrong');
    expect(unchecked.status).toBe(201);
    expect(unchecked.body.warning).toBe('Could not reach Calendly to check the key; saved anyway.');
    t().deps.config.providerUrls = urls;
    expect((await connect('perplexity', 'API Key', 'pplx-good')).status).toBe(201);

    const calcom = await call(t(), 'POST', '/provider/check', { token, body: { name: 'calcom' } });
    expect(calcom.body).toMatchObject({ success: true, ok: true, msg: 'Cal.com accepted the key.' });
    expect(cal.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v2/me' });
    expect(cal.requests.at(-1)?.headers.authorization).toBe('Bearer cal_live_good');

    const wrong = await call(t(), 'POST', '/provider/check', { token, body: { name: 'calendly' } });
    expect(wrong.body).toMatchObject({ ok: false });
    expect(wrong.body.msg).toContain('(401)');
    expect(JSON.stringify(wrong.body)).not.toContain('pat-wrong');
    expect(calendly.requests.at(-1)?.path).toBe('/users/me');

    expect((await call(t(), 'POST', '/provider/check', { token, body: { name: 'perplexity' } })).body).toMatchObject({
      ok: true,
    });
    expect(pplx.requests.at(-1)?.body).toMatchObject({ model: 'sonar', max_tokens: 1 });
  });

  it('a card that is not connected answers 404; a provider without a check answers 400', async () => {
    const { token } = await signUp(t());
    expect((await call(t(), 'POST', '/provider/check', { token, body: { name: 'calcom' } })).status).toBe(404);
    expect((await call(t(), 'POST', '/provider/check', { token, body: { name: 'deepgram' } })).status).toBe(400);
    expect(cal.requests).toHaveLength(0);
  });

  it("a call's Calendly access is the card's Personal Access Token at CALENDLY_API_URL, and finds times through the fake", async () => {
    const { token, companyId } = await signUp(t());
    await call(t(), 'POST', '/provider/values', {
      token,
      body: { name: 'calendly', keys: [{ name: 'Personal Access Token', value: 'pat-good' }] },
    });
    const access = await providerAccess(t().deps, companyId, 'calendly', 'booking');
    expect(access).toMatchObject({ apiKey: 'pat-good', baseUrl: calendly.url, publicOnly: false });
    const now = new Date();
    calendly.times = [`${new Date(now.getTime() + 86_400_000).toISOString().slice(0, 13)}:00:00Z`];
    const [tool] = await checkAvailabilityCalendly.prepare(
      {
        id: 1,
        type: 'check_availability_calendly',
        name: 'times',
        description: '',
        speak_during: '',
        timeout_ms: 8000,
        event_type: calendly.eventType,
      },
      toolEnv(now, { calendly: access }),
    );
    const out = await tool?.run({ days: 3 }, toolEnv(now, { calendly: access }));
    expect(out?.ok).toBe(true);
    expect(JSON.parse(out?.result ?? '{}').total).toBe(1);
  });
});
