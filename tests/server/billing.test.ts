import { expect, it } from 'vitest';
import { BILLING_MESSAGES } from '../../src/api/contract/billing.js';
import { DESTINATION_MESSAGES } from '../../src/api/contract/destinations.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { call, insertCalls, insertNumber } from './seed.js';

/**
 * Billing: statements computed from seeded calls and numbers, the printable invoice, usage per
 * day and agent, limits and the billing contact, each scoped to the caller's company. The test clock
 * reads 2026-11-22T10:00Z, so November 2026 is the open month.
 */

const DELETED_AGENT = 'feedfeedfeedfeedfeedfeed';

/** Company A: two numbers (October, November), calls in September to December; company B: one call. */
async function seeded(t: TestApp) {
  const a = await signUp(t);
  const b = await signUp(t);
  const agents = await call(t, 'GET', '/agent', { token: a.token });
  const sample = agents.body.data.agents[0] as { _id: string; agent_name: string };
  await insertNumber(t, a.companyId, '+14155550101', { assignedAt: '2026-10-05T09:00:00.000Z' });
  await insertNumber(t, a.companyId, '+14155550102', { assignedAt: '2026-11-01T00:00:00.000Z' });
  await insertNumber(t, null, '+14155550103');
  await insertNumber(t, b.companyId, '+14155550104', { assignedAt: '2026-12-01T00:00:00.000Z' });
  await insertCalls(t, a.companyId, [
    { time: '2026-09-30T23:59:59.000Z', duration: 30, cost: 1 },
    { time: '2026-10-01T00:00:00.000Z', duration: 60, cost: 1.25 },
    { time: '2026-10-31T23:59:59.000Z', duration: 90, cost: 0.75 },
    { time: '2026-11-02T08:00:00.000Z', duration: 45, cost: 0.1, agentId: sample._id },
    { time: '2026-11-02T09:00:00.000Z', duration: 75, cost: 0.2 },
    { time: '2026-11-20T12:00:00.000Z', duration: 120, cost: 0.333, agentId: DELETED_AGENT },
    { time: '2026-12-01T00:00:00.000Z', duration: 600, cost: 5 },
  ]);
  await insertCalls(t, b.companyId, [{ time: '2026-11-05T10:00:00.000Z', duration: 600, cost: 9.99 }]);
  return { a, b, sample };
}

describeEachDb('billing', (kind) => {
  const t = useTestApp(kind);

  it('computes one statement per month from the company’s calls and numbers, newest first', async () => {
    const { a, b } = await seeded(t());
    const res = await call(t(), 'GET', '/billing/statements', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.statements).toEqual([
      {
        id: '2026-11',
        title: 'November 2026',
        periodStart: '2026-11-01',
        periodEnd: '2026-11-30',
        amount: 4.63,
        details: '3 calls · 4 min · 2 numbers',
        status: 'Open',
        items: [
          { name: 'Phone Number', amount: 4, details: '2 numbers × $2.00/month' },
          { name: 'Voice Engine', amount: 0.38, details: '4 min of speech and telephony (60% of call cost)' },
          { name: 'LLM', amount: 0.25, details: '3 calls (40% of call cost)' },
        ],
      },
      {
        id: '2026-10',
        title: 'October 2026',
        periodStart: '2026-10-01',
        periodEnd: '2026-10-31',
        amount: 4,
        details: '2 calls · 2.5 min · 1 number',
        status: 'Closed',
        items: [
          { name: 'Phone Number', amount: 2, details: '1 number × $2.00/month' },
          { name: 'Voice Engine', amount: 1.2, details: '2.5 min of speech and telephony (60% of call cost)' },
          { name: 'LLM', amount: 0.8, details: '2 calls (40% of call cost)' },
        ],
      },
      {
        id: '2026-09',
        title: 'September 2026',
        periodStart: '2026-09-01',
        periodEnd: '2026-09-30',
        amount: 1,
        details: '1 call · 0.5 min · 0 numbers',
        status: 'Closed',
        items: [
          { name: 'Phone Number', amount: 0, details: '0 numbers × $2.00/month' },
          { name: 'Voice Engine', amount: 0.6, details: '0.5 min of speech and telephony (60% of call cost)' },
          { name: 'LLM', amount: 0.4, details: '1 call (40% of call cost)' },
        ],
      },
    ]);
    // the items always add up to the amount
    for (const s of res.body.statements as { amount: number; items: { amount: number }[] }[]) {
      expect(Math.round(s.items.reduce((sum, i) => sum + i.amount, 0) * 100)).toBe(Math.round(s.amount * 100));
    }

    // B sees only its own month: its call, no number yet (assigned in December)
    const theirs = await call(t(), 'GET', '/billing/statements', { token: b.token });
    expect(theirs.body.statements).toHaveLength(1);
    expect(theirs.body.statements[0]).toMatchObject({
      id: '2026-11',
      amount: 9.99,
      details: '1 call · 10 min · 0 numbers',
      status: 'Open',
    });
  });

  it('a new company without calls has one open statement of $0', async () => {
    const a = await signUp(t());
    const res = await call(t(), 'GET', '/billing/statements', { token: a.token });
    expect(res.body.statements).toHaveLength(1);
    expect(res.body.statements[0]).toMatchObject({ id: '2026-11', amount: 0, status: 'Open' });
    expect(res.body.statements[0].items.map((i: { name: string }) => i.name)).toEqual(['Phone Number', 'Voice Engine', 'LLM']);
  });

  it('answers the printable invoice of a month, with the billing contact', async () => {
    const { a, b } = await seeded(t());
    const company = (await call(t(), 'GET', '/company/', { token: a.token })).body.data.companies[0];
    const oct = await call(t(), 'GET', '/billing/statements/2026-10', { token: a.token });
    expect(oct.status).toBe(200);
    expect(oct.body.invoice).toEqual({
      number: `INV-202610-${a.companyId.slice(-6).toUpperCase()}`,
      issuedOn: '2026-11-01',
      company: { _id: a.companyId, name: company.name },
      billTo: { name: company.name, email: a.email, address: '', taxId: '' },
      statement: expect.objectContaining({ id: '2026-10', amount: 4, status: 'Closed' }),
    });
    const open = await call(t(), 'GET', '/billing/statements/2026-11', { token: a.token });
    expect(open.body.invoice.issuedOn).toBe('2026-11-22');

    // months outside the company's history, malformed ids: 404 alike
    for (const id of ['2026-08', '2026-12', '2026-13', 'nope', '2026-1']) {
      const res = await call(t(), 'GET', `/billing/statements/${id}`, { token: a.token });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, msg: BILLING_MESSAGES.statementNotFound });
    }
    // B has no September: A's month is not B's
    expect((await call(t(), 'GET', '/billing/statements/2026-09', { token: b.token })).status).toBe(404);
    expect((await call(t(), 'GET', '/billing/statements/2026-11', { token: b.token })).body.invoice.statement.amount).toBe(9.99);
  });

  it('reports usage per day and per agent for a month', async () => {
    const { a, b, sample } = await seeded(t());
    const nov = await call(t(), 'GET', '/billing/usage?month=2026-11', { token: a.token });
    expect(nov.status).toBe(200);
    expect(nov.body.month).toBe('2026-11');
    expect(nov.body.days).toHaveLength(30);
    expect(nov.body.days[0]).toEqual({ date: '2026-11-01', minutes: 0, cost: 0, calls: 0 });
    expect(nov.body.days[1]).toEqual({ date: '2026-11-02', minutes: 2, cost: 0.3, calls: 2 });
    expect(nov.body.days[19]).toEqual({ date: '2026-11-20', minutes: 2, cost: 0.33, calls: 1 });
    expect(nov.body.days.filter((d: { calls: number }) => d.calls > 0)).toHaveLength(2);
    expect(nov.body.totals).toEqual({ minutes: 4, cost: 0.63, calls: 3 });
    expect(nov.body.byAgent).toEqual([
      { agentId: DELETED_AGENT, agentName: '(deleted agent)', minutes: 2, cost: 0.33, calls: 1 },
      { agentId: null, agentName: '(no agent)', minutes: 1.3, cost: 0.2, calls: 1 },
      { agentId: sample._id, agentName: sample.agent_name, minutes: 0.8, cost: 0.1, calls: 1 },
    ]);

    const oct = await call(t(), 'GET', '/billing/usage?month=2026-10', { token: a.token });
    expect(oct.body.days).toHaveLength(31);
    expect(oct.body.days[0]).toEqual({ date: '2026-10-01', minutes: 1, cost: 1.25, calls: 1 });
    expect(oct.body.days[30]).toEqual({ date: '2026-10-31', minutes: 1.5, cost: 0.75, calls: 1 });
    expect(oct.body.totals).toEqual({ minutes: 2.5, cost: 2, calls: 2 });

    // default month = the current one; B's usage is its own
    expect((await call(t(), 'GET', '/billing/usage', { token: a.token })).body.totals).toEqual(nov.body.totals);
    const theirs = await call(t(), 'GET', '/billing/usage?month=2026-11', { token: b.token });
    expect(theirs.body.totals).toEqual({ minutes: 10, cost: 9.99, calls: 1 });
    expect(theirs.body.byAgent).toEqual([{ agentId: null, agentName: '(no agent)', minutes: 10, cost: 9.99, calls: 1 }]);
    // a month without calls: every day at zero, no agents
    const empty = await call(t(), 'GET', '/billing/usage?month=2024-02', { token: a.token });
    expect(empty.body.days).toHaveLength(29);
    expect(empty.body.totals).toEqual({ minutes: 0, cost: 0, calls: 0 });
    expect(empty.body.byAgent).toEqual([]);

    for (const bad of ['2026-13', '2026-1', 'november', '']) {
      const res = await call(t(), 'GET', `/billing/usage?month=${bad}`, { token: a.token });
      expect(res.status, bad).toBe(400);
      expect(res.body.msg).toContain(BILLING_MESSAGES.monthInvalid);
    }
    // years before 2000 (0000-01 answered the days of January 1900)
    for (const early of ['0000-01', '1900-01', '1999-12']) {
      const res = await call(t(), 'GET', `/billing/usage?month=${early}`, { token: a.token });
      expect(res.status, early).toBe(400);
      expect(res.body.msg).toContain(BILLING_MESSAGES.monthTooEarly);
      expect(res.body.days).toBeUndefined();
    }
    expect((await call(t(), 'GET', '/billing/usage?month=2000-01', { token: a.token })).body.days).toHaveLength(31);
  });

  it('validates and stores the limits per company', async () => {
    const { a, b } = await seeded(t());
    const initial = await call(t(), 'GET', '/billing/limits', { token: a.token });
    expect(initial.body).toEqual({
      success: true,
      limits: { concurrencyLimit: 10, monthlySpendLimit: 500, allowedCountries: [] },
      monthToDateSpend: 0.63,
      numberCountries: ['US'],
    });

    const saved = await call(t(), 'PUT', '/billing/limits', {
      token: a.token,
      body: { concurrencyLimit: 25, monthlySpendLimit: 123.45, allowedCountries: ['gb', ' US', 'GB'] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      success: true,
      msg: BILLING_MESSAGES.limitsSaved,
      limits: { concurrencyLimit: 25, monthlySpendLimit: 123.45, allowedCountries: ['GB', 'US'] },
      monthToDateSpend: 0.63,
      numberCountries: ['US'],
    });
    expect((await call(t(), 'GET', '/billing/limits', { token: a.token })).body.limits).toEqual({
      concurrencyLimit: 25,
      monthlySpendLimit: 123.45,
      allowedCountries: ['GB', 'US'],
    });
    // a body without allowedCountries (an older client) keeps them
    await call(t(), 'PUT', '/billing/limits', { token: a.token, body: { concurrencyLimit: 25, monthlySpendLimit: 123.45 } });
    expect((await call(t(), 'GET', '/billing/limits', { token: a.token })).body.limits.allowedCountries).toEqual(['GB', 'US']);

    const refused: [unknown, string][] = [
      [{ concurrencyLimit: 0, monthlySpendLimit: 10 }, BILLING_MESSAGES.concurrencyLimit],
      [{ concurrencyLimit: 101, monthlySpendLimit: 10 }, BILLING_MESSAGES.concurrencyLimit],
      [{ concurrencyLimit: 2.5, monthlySpendLimit: 10 }, BILLING_MESSAGES.concurrencyLimit],
      [{ concurrencyLimit: '5', monthlySpendLimit: 10 }, BILLING_MESSAGES.concurrencyLimit],
      [{ concurrencyLimit: 5, monthlySpendLimit: -1 }, BILLING_MESSAGES.monthlySpendLimit],
      [{ concurrencyLimit: 5, monthlySpendLimit: 1_000_001 }, BILLING_MESSAGES.monthlySpendLimitMax],
      [{ concurrencyLimit: 5 }, BILLING_MESSAGES.monthlySpendLimit],
      [
        { concurrencyLimit: 5, monthlySpendLimit: 10, allowedCountries: ['ZZ'] },
        DESTINATION_MESSAGES.allowedCountryUnknown('ZZ'),
      ],
      [{ concurrencyLimit: 5, monthlySpendLimit: 10, allowedCountries: ['USA'] }, DESTINATION_MESSAGES.allowedCountriesFormat],
      [{ concurrencyLimit: 5, monthlySpendLimit: 10, allowedCountries: 'US' }, DESTINATION_MESSAGES.allowedCountriesFormat],
      [{ concurrencyLimit: 5, monthlySpendLimit: 10, allowedCountries: [7] }, DESTINATION_MESSAGES.allowedCountriesFormat],
    ];
    for (const [body, msg] of refused) {
      const res = await call(t(), 'PUT', '/billing/limits', { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.msg).toContain(msg);
    }
    // nothing refused was stored; B keeps its defaults (and its own month's spend)
    expect((await call(t(), 'GET', '/billing/limits', { token: a.token })).body.limits).toEqual({
      concurrencyLimit: 25,
      monthlySpendLimit: 123.45,
      allowedCountries: ['GB', 'US'],
    });
    expect((await call(t(), 'GET', '/billing/limits', { token: b.token })).body).toEqual({
      success: true,
      limits: { concurrencyLimit: 10, monthlySpendLimit: 500, allowedCountries: [] },
      monthToDateSpend: 9.99,
      numberCountries: ['US'],
    });
    // zero is a valid spend limit (no spending at all)
    const zero = await call(t(), 'PUT', '/billing/limits', {
      token: b.token,
      body: { concurrencyLimit: 1, monthlySpendLimit: 0 },
    });
    expect(zero.body.limits).toEqual({ concurrencyLimit: 1, monthlySpendLimit: 0, allowedCountries: [] });
  });

  it('keeps a billing contact per company, defaulting to the company name and the caller’s email', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const company = (await call(t(), 'GET', '/company/', { token: a.token })).body.data.companies[0];
    expect((await call(t(), 'GET', '/billing/contact', { token: a.token })).body).toEqual({
      success: true,
      contact: { name: company.name, email: a.email, address: '', taxId: '' },
    });

    const saved = await call(t(), 'PUT', '/billing/contact', {
      token: a.token,
      body: { name: '  Sunrise Care  ', email: ' billing@sunrise.example ', address: '1 Main St\nSpringfield', taxId: 'US-123' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      success: true,
      msg: BILLING_MESSAGES.contactSaved,
      contact: { name: 'Sunrise Care', email: 'billing@sunrise.example', address: '1 Main St\nSpringfield', taxId: 'US-123' },
    });
    expect((await call(t(), 'GET', '/billing/contact', { token: a.token })).body.contact.taxId).toBe('US-123');
    // the invoice bills the stored contact
    expect((await call(t(), 'GET', '/billing/statements/2026-11', { token: a.token })).body.invoice.billTo).toEqual(
      saved.body.contact,
    );

    const refused: [unknown, string][] = [
      [{ name: '', email: 'x@example.com' }, BILLING_MESSAGES.contactNameRequired],
      [{ name: 'X', email: '' }, BILLING_MESSAGES.contactEmailRequired],
      [{ name: 'X', email: 'not-an-email' }, BILLING_MESSAGES.contactEmailInvalid],
      [{ name: 'X', email: 'x@example.com', address: 'a'.repeat(1001) }, BILLING_MESSAGES.tooLong('Address', 1000)],
      [{ name: 'X', email: 'x@example.com', taxId: 't'.repeat(65) }, BILLING_MESSAGES.tooLong('Tax ID', 64)],
    ];
    for (const [body, msg] of refused) {
      const res = await call(t(), 'PUT', '/billing/contact', { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.msg).toContain(msg);
    }
    expect((await call(t(), 'GET', '/billing/contact', { token: a.token })).body.contact.name).toBe('Sunrise Care');
    // B's contact is untouched; a company id in the body changes nothing
    await call(t(), 'PUT', '/billing/contact', {
      token: a.token,
      body: { name: 'Mine', email: 'm@example.com', companyId: b.companyId },
    });
    expect((await call(t(), 'GET', '/billing/contact', { token: b.token })).body.contact.email).toBe(b.email);
  });

  it('refuses every billing route without a session', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/billing/statements'],
      ['GET', '/billing/statements/2026-11'],
      ['GET', '/billing/usage'],
      ['GET', '/billing/limits'],
      ['PUT', '/billing/limits', { concurrencyLimit: 5, monthlySpendLimit: 10 }],
      ['GET', '/billing/contact'],
      ['PUT', '/billing/contact', { name: 'X', email: 'x@example.com' }],
    ];
    for (const [method, url, body] of routes) {
      const res = await call(t(), method, url, body === undefined ? {} : { body });
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.body.success).toBe(false);
    }
  });
});
