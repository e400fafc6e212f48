import { expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import { companyScopedTables } from '../../server/modules/company/company.repo.js';
import { CONSTRAINT_MESSAGES, constraintViolation } from '../../server/platform/http/db-errors.js';
import { ACCOUNT_MESSAGES } from '../../src/api/contract/account.js';
import { PHONE_MESSAGES } from '../../src/api/contract/phone.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, useTestApp } from './helpers.js';
import { numberBody } from './phone-helpers.js';
import { type Body, call, insertNumber } from './seed.js';

/**
 * Constraint violations under concurrency answer what users expect, never 500: two numbers
 * renamed to the same phone at once (409, the phone's message) and creates of every kind racing the deletion
 * of their company (201 before it, 401 after it, like any request of a deleted company; the deletion 200).
 * The error handler maps them (server/platform/http/db-errors.ts) on both databases.
 */

const RENAME_ROUNDS = 5;
const API_KEY_PROVIDERS = ['anthropic', 'deepgram', 'elevenlabs', 'cartesia', 'perplexity', 'smallest', 'calcom'];
/** rounds of the deletion race (it is intermittent: one round in a few failed on PostgreSQL) */
const ROUNDS = 20;
let keys = 0;
const key = () => ({ 'Idempotency-Key': `race-${++keys}-${Date.now()}` });

describeEachDb('database races', (kind) => {
  const t = useTestApp(kind);

  it('two numbers renamed to the same phone at once: one 200, one 409 with the phone’s message', async () => {
    const a = await signUp(t());
    for (let round = 0; round < RENAME_ROUNDS; round++) {
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

  it('creates of every kind racing the deletion of their company answer 2xx, 401 or 404, never 500, and leave nothing behind', async () => {
    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const a = await signUp(t());
      const from = `+1312777${String(round).padStart(4, '0')}`;
      await insertNumber(t(), a.companyId, from);
      const kb = (n: number) => {
        const form = new FormData();
        form.set('knowledge_base_name', `FAQ ${round}-${n}`);
        form.append('knowledge_base_texts', JSON.stringify({ title: 'Hours', text: 'Open all night.' }));
        return form;
      };
      let providers = 0;
      const creates: ((n: number) => Promise<Body>)[] = [
        () =>
          call(t(), 'POST', '/agent', {
            token: a.token,
            body: { ...SAMPLE_AGENT_PAYLOAD, name: `Agent ${round}` },
            headers: key(),
          }),
        () => call(t(), 'POST', '/agent', { token: a.token, body: { ...SAMPLE_AGENT_PAYLOAD, name: `Other ${round}` } }),
        (n) =>
          call(t(), 'POST', '/number/create', {
            token: a.token,
            body: numberBody(`+1415${String(round).padStart(2, '0')}${String(n).padStart(5, '0')}`),
          }),
        () => call(t(), 'PUT', '/billing/limits', { token: a.token, body: { concurrencyLimit: 3, monthlySpendLimit: 10 } }),
        (n) =>
          call(t(), 'POST', '/batch-call', {
            token: a.token,
            body: { name: `Batch ${round}-${n}`, fromNumber: from, sendMode: 'now' },
            headers: key(),
          }),
        (n) => call(t(), 'POST', '/knowledge-base', { token: a.token, body: kb(n) }),
        // one connection per provider (a second one of the same provider is a 409 of its own)
        async () => {
          const name = API_KEY_PROVIDERS[providers++];
          if (!name) return undefined;
          return call(t(), 'POST', '/provider/values', {
            token: a.token,
            body: { name, keys: [{ name: 'API Key', value: `key-${name}-0123456789` }] },
          });
        },
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
      // each kind of create in two streams of its own, one request after the other until the deletion answers
      let next = 0;
      await Promise.all(
        [...creates, ...creates].map(async (create) => {
          while (deleting) {
            const n = next++;
            const res = await create(n);
            if (!res) break;
            answers.push(res);
          }
        }),
      );
      const deleted = await deletion;
      expect(deleted.status, JSON.stringify(deleted.body) + LOG_LINES.filter((l) => l.includes(a.companyId)).join('\n')).toBe(
        200,
      );
      for (const res of answers) {
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect([200, 201, 401, 404], JSON.stringify(answers.map((x) => [x.status, x.body.msg]))).toContain(res.status);
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
      expect(await t().deps.db.db.selectFrom('companies').select('id').where('id', '=', a.companyId).execute()).toEqual([]);
    }
    // the race was run: creates landed on both sides of the deletion
    expect(statuses.get(401) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
  }, 120_000);

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
