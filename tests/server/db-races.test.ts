import { expect, it } from 'vitest';
import { CONSTRAINT_MESSAGES, constraintViolation } from '../../server/lib/db-errors.js';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/routes/agent/sample-agent.js';
import { companyScopedTables } from '../../server/routes/company/company.repo.js';
import { ACCOUNT_MESSAGES } from '../../src/api/contract/account.js';
import { PHONE_MESSAGES } from '../../src/api/contract/phone.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, useTestApp } from './helpers.js';
import { numberBody } from './phone-helpers.js';
import { type Body, call } from './seed.js';

/**
 * Constraint violations under concurrency (issue 16) answer what users expect, never 500: two numbers
 * renamed to the same phone at once (409, the phone's message) and creates racing the deletion of their
 * company (201 before it, 401 after it, like any request of a deleted company). The error handler maps
 * them (server/lib/db-errors.ts) on both databases.
 */

const ROUNDS = 5;
let keys = 0;
const key = () => ({ 'Idempotency-Key': `race-${++keys}-${Date.now()}` });

describeEachDb('database races', (kind) => {
  const t = useTestApp(kind);

  it('two numbers renamed to the same phone at once: one 200, one 409 with the phone’s message', async () => {
    const a = await signUp(t());
    for (let round = 0; round < ROUNDS; round++) {
      const ids: string[] = [];
      for (const n of [0, 1]) {
        const res = await call(t(), 'POST', '/number/create', { token: a.token, body: numberBody(`+1312555${round}${n}00`) });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.data.number._id);
      }
      const target = `+1646555${round}000`;
      const answers = await Promise.all(
        ids.map((id) => call(t(), 'PUT', `/number/${id}`, { token: a.token, body: { phone_number: target } })),
      );
      expect(answers.map((r) => r.status).sort(), JSON.stringify(answers.map((r) => r.body))).toEqual([200, 409]);
      const refused = answers.find((r) => r.status === 409) as Body;
      expect(refused.body).toEqual({
        success: false,
        msg: PHONE_MESSAGES.alreadyRegistered,
        errors: { phone_number: PHONE_MESSAGES.alreadyRegistered },
      });
      const list = await call(t(), 'GET', '/number?limit=100', { token: a.token });
      expect(list.body.data.numbers.filter((n: Body) => n.phone_number === target)).toHaveLength(1);
    }
  });

  it('creates racing the deletion of their company answer 201 or 401, never 500, and leave nothing behind', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const a = await signUp(t());
      const creates: ((n: number) => Promise<Body>)[] = [
        () =>
          call(t(), 'POST', '/agent', {
            token: a.token,
            body: { ...SAMPLE_AGENT_PAYLOAD, name: `Agent ${round}` },
            headers: key(),
          }),
        () => call(t(), 'POST', '/agent', { token: a.token, body: { ...SAMPLE_AGENT_PAYLOAD, name: `Other ${round}` } }),
        (n) =>
          call(t(), 'POST', '/number/create', { token: a.token, body: numberBody(`+1415${round}${String(n).padStart(6, '0')}`) }),
        () => call(t(), 'PUT', '/billing/limits', { token: a.token, body: { concurrencyLimit: 3, monthlySpendLimit: 10 } }),
      ];
      // creates keep coming, a few at a time, while the deletion runs: some pass the session check before
      // it commits and write after it
      let deleting = true;
      const deletion = call(t(), 'DELETE', `/company/${a.companyId}`, { token: a.token, body: { password: a.password } }).finally(
        () => {
          deleting = false;
        },
      );
      const answers: Body[] = [];
      for (let n = 0; deleting; n++) answers.push(...(await Promise.all(creates.map((f) => f(n)))));
      const deleted = await deletion;
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      for (const res of answers) {
        expect([200, 201, 401], JSON.stringify(answers.map((x) => [x.status, x.body.msg]))).toContain(res.status);
        if (res.status === 401) expect(res.body.msg).toBe(ACCOUNT_MESSAGES.sessionExpired);
      }
      // nothing of the company stays, whatever committed before or after the deletion
      for (const table of await companyScopedTables(t().deps.db.db, kind)) {
        const rows = await t()
          .deps.db.db.selectFrom(table as 'agents')
          .select('company_id')
          .where('company_id', '=', a.companyId)
          .execute();
        expect(rows, table).toEqual([]);
      }
    }
  });

  it('reads the violated constraint of either driver', async () => {
    const db = t().deps.db.db;
    const a = await signUp(t());
    const catchOf = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const dup = await catchOf(db.insertInto('companies').values({ id: a.companyId, name: 'x', created_at: 'x' }).execute());
    expect(constraintViolation(dup)).toEqual({ kind: 'unique', target: 'companies(id)' });
    const fk = await catchOf(
      db
        .insertInto('company_billing')
        .values({
          company_id: 'no-such-company',
          concurrency_limit: 1,
          monthly_spend_limit_cents: 1,
          contact_name: '',
          contact_email: '',
          contact_address: '',
          contact_tax_id: '',
          updated_at: 'x',
        })
        .execute(),
    );
    expect(constraintViolation(fk)).toEqual({ kind: 'foreign-key' });
    expect(constraintViolation(new Error('other'))).toBeNull();
    expect(CONSTRAINT_MESSAGES.duplicate).toMatch(/already exists/);
  });
});
