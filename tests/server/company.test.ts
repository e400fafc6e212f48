import fs from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { expect, it } from 'vitest';
import { companyScopedTables } from '../../server/modules/company/company.repo.js';
import { companyKbDir } from '../../server/modules/knowledge/kb.repo.js';
import type { DB } from '../../server/platform/db/schema.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { insertCalls, insertNumber } from './seed.js';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

/** Rows per table (every table with a company_id column, plus the company row) that belong to `companyId`. */
async function rowsOf(t: TestApp, companyId: string): Promise<Record<string, number>> {
  const db = t.deps.db.db as Kysely<DB>;
  const out: Record<string, number> = {};
  for (const table of await companyScopedTables(db, t.deps.db.kind)) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from ${sql.table(table)} where company_id = ${companyId}`.execute(db);
    out[table] = Number(rows[0]?.n ?? 0);
  }
  out.companies = Number(
    (
      await db
        .selectFrom('companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );
  return out;
}

describeEachDb('company', (kind) => {
  const t = useTestApp(kind);

  it('lists only the caller’s own company and updates its name', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const list = await call(t(), 'GET', '/company/?page=1&limit=10', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.companies).toEqual([{ _id: a.companyId, name: expect.any(String), createdAt: expect.any(String) }]);

    const renamed = await call(t(), 'POST', '/company/', { token: a.token, body: { name: '  Sunrise Care  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      success: true,
      msg: 'Company updated.',
      company: { _id: a.companyId, name: 'Sunrise Care' },
    });
    expect((await call(t(), 'GET', '/company/', { token: a.token })).body.data.companies[0].name).toBe('Sunrise Care');
    expect((await call(t(), 'GET', '/company/', { token: b.token })).body.data.companies[0]._id).toBe(b.companyId);
    expect((await call(t(), 'GET', '/company/', { token: b.token })).body.data.companies[0].name).not.toBe('Sunrise Care');

    const blank = await call(t(), 'POST', '/company/', { token: a.token, body: { name: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.msg).toContain('Company name is required');
    // a company id in the body is ignored: it only ever updates the caller's company
    await call(t(), 'POST', '/company/', { token: a.token, body: { name: 'Mine', companyId: b.companyId, _id: b.companyId } });
    expect((await call(t(), 'GET', '/company/', { token: b.token })).body.data.companies[0].name).not.toBe('Mine');
  });

  it('deletes only the caller’s own company, with the password, removing every row and revoking sessions', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const sealedKey = [{ name: 'API Key', value: 'sk-aaaaaaaaaaaaaaaaaaaaaaaa' }];
    let aNumber = '';
    for (const s of [a, b]) {
      expect(
        (await call(t(), 'POST', '/provider/values', { token: s.token, body: { name: 'openai', keys: sealedKey } })).status,
      ).toBe(201);
      expect(
        (await call(t(), 'PUT', '/billing/limits', { token: s.token, body: { concurrencyLimit: 5, monthlySpendLimit: 50 } }))
          .status,
      ).toBe(200);
      // a number, a call and a batch call with its recipients
      const phone = s === a ? '+14155550101' : '+14155550102';
      const numberId = await insertNumber(t(), s.companyId, phone);
      if (s === a) aNumber = numberId;
      const kb = new FormData();
      kb.set('knowledge_base_name', 'Opening hours');
      kb.append('knowledge_base_files', new Blob(['We open at 10:00 AM.'], { type: 'text/plain' }), 'hours.txt');
      expect((await t().req('POST', '/api/v1/knowledge-base', { token: s.token, body: kb })).status).toBe(201);
      await insertCalls(t(), s.companyId, [{ time: '2026-11-02T08:00:00.000Z', duration: 60, cost: 0.1 }]);
      const batch = await t().req('POST', '/api/v1/batch-call', {
        token: s.token,
        body: { name: 'Reminders', fromNumber: phone, sendMode: 'now' },
        headers: { 'Idempotency-Key': `k-${s.companyId}` },
      });
      const { batch: created } = (await batch.json()) as { batch: { _id: string } };
      const uploaded = await t().req('POST', `/api/v1/batch-call/${created._id}/recipients`, {
        token: s.token,
        body: 'phone_number\n+14155550111\n',
        headers: { 'Content-Type': 'text/csv' },
      });
      expect(uploaded.status).toBe(200);
    }
    const before = await rowsOf(t(), a.companyId);
    expect(before.companies).toBe(1);
    expect(before.accounts).toBe(1);
    expect(before.provider_connections).toBe(1);
    expect(before).toMatchObject({ phone_numbers: 1, calls: 1, batch_calls: 1, batch_recipients: 1, company_billing: 1 });
    const bBefore = await rowsOf(t(), b.companyId);

    // someone else's company, or an unknown id: 404, exactly alike
    expect(
      (await call(t(), 'DELETE', `/company/${b.companyId}`, { token: a.token, body: { password: a.password } })).status,
    ).toBe(404);
    expect(
      (await call(t(), 'DELETE', '/company/0123456789abcdef01234567', { token: a.token, body: { password: a.password } })).status,
    ).toBe(404);
    // wrong or missing password: refused with 403/400, nothing deleted
    const wrong = await call(t(), 'DELETE', `/company/${a.companyId}`, {
      token: a.token,
      body: { password: 'not the password' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.msg).toBe('Password is incorrect');
    expect((await call(t(), 'DELETE', `/company/${a.companyId}`, { token: a.token, body: {} })).status).toBe(400);
    expect(await rowsOf(t(), a.companyId)).toEqual(before);

    const gone = await call(t(), 'DELETE', `/company/${a.companyId}`, { token: a.token, body: { password: a.password } });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true, msg: 'Company deleted.' });

    const after = await rowsOf(t(), a.companyId);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    // the pool number A held is free again for anyone; A's knowledge-base files are gone
    const released = await t()
      .deps.db.db.selectFrom('phone_numbers')
      .select(['company_id', 'inbound_agent_id'])
      .where('id', '=', aNumber)
      .executeTakeFirst();
    expect(released).toEqual({ company_id: null, inbound_agent_id: null });
    expect(fs.existsSync(companyKbDir(t().dataDir, a.companyId))).toBe(false);
    expect(fs.readdirSync(companyKbDir(t().dataDir, b.companyId)).length).toBe(1);
    const sessions = await t().deps.db.db.selectFrom('sessions').select('id').where('account_id', '=', a.accountId).execute();
    expect(sessions).toEqual([]);
    // the old tokens stop working
    expect((await call(t(), 'GET', '/company/', { token: a.token })).status).toBe(401);
    expect(
      (await t().req('POST', '/api/v1/auth/refresh', { headers: { Authorization: `Bearer ${a.refresh_token}` } })).status,
    ).toBe(401);
    // B is untouched
    expect(await rowsOf(t(), b.companyId)).toEqual(bBefore);
    expect((await call(t(), 'GET', '/provider?name=openai', { token: b.token })).body.data[0].connected).toBe(true);
  });

  it('requires a session', async () => {
    expect((await call(t(), 'GET', '/company/')).status).toBe(401);
    expect((await call(t(), 'POST', '/company/', { body: { name: 'x' } })).status).toBe(401);
    expect((await call(t(), 'DELETE', '/company/0123456789abcdef01234567', { body: { password: 'x' } })).status).toBe(401);
  });
});
