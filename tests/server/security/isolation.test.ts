import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PHONE_MESSAGES } from '../../../src/api/contract/phone.js';
import { buildTestApp, DB_KINDS, type TestApp } from '../helpers.js';
import { numberBody } from '../phone-helpers.js';
import { call } from '../seed.js';
import { INJECTED_KEYS, ROUTES, type RouteClass, splitRoute } from './matrix.js';
import {
  agentPayload,
  buildTenant,
  emptyTables,
  endpointsOf,
  idsOf,
  providerHttp,
  snapshotCompany,
  type Tenant,
} from './world.js';

/**
 * Tenant isolation: company B tries company A's ids on every route that takes one, lists every
 * list, and creates with A's ids planted in the body. Every by-id answer is 404 or 403, no answer carries
 * anything of A's, and A's rows (every company-scoped table, found in the catalogue) and stored files are
 * byte for byte the same afterwards. One world per database, built once: the attempts never change A.
 */

const ATTEMPTS = 1_000;
const FUTURE = '2026-12-01T09:00:00Z';

type ById = Extract<RouteClass, { kind: 'byId' }>;
const BY_ID = Object.entries(ROUTES).filter((e): e is [string, ById] => e[1].kind === 'byId');
const LISTS = Object.entries(ROUTES).filter((e): e is [string, Extract<RouteClass, { kind: 'list' }>] => e[1].kind === 'list');
const CREATES = Object.entries(ROUTES).filter(
  (e): e is [string, Extract<RouteClass, { kind: 'create' }>] => e[1].kind === 'create',
);

/** Every id, name and text of A's that must never reach B. */
function leaksOf(a: Tenant, text: string, allowed: string[] = []): string[] {
  const needles = [a.marker, ...idsOf(a), a.email, a.poolPhone, a.photoUrl.split('/').pop() as string];
  return needles.filter((n) => !allowed.includes(n) && text.includes(n));
}

/** `{ companyId: A's, accountId: A's, role: 'owner', ... }` to merge into a body. */
function injection(a: Tenant): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of INJECTED_KEYS) out[k] = k.startsWith('account') || k === 'sub' ? a.accountId : a.companyId;
  out.role = 'owner';
  return out;
}

function byIdBody(
  kind: ById['body'],
  a: Tenant,
  b: Tenant,
  inject: boolean,
): { body?: unknown; headers?: Record<string, string> } {
  const extra = inject ? injection(a) : {};
  switch (kind) {
    case 'agent':
      return { body: { ...agentPayload(`Taken by ${b.marker}`), ...extra } };
    case 'number':
      return { body: { nickname: `Taken by ${b.marker}`, ...extra } };
    case 'provider':
      return { body: { keys: [{ name: 'API Key', value: 'stolen' }], ...extra } };
    case 'csv':
      return { body: 'phone_number\n+14155550199\n', headers: { 'Content-Type': 'text/csv' } };
    case 'schedule':
      return { body: { scheduledAt: FUTURE, ...extra } };
    case 'rules':
      return { body: { maxAttempts: 5, retryDelaySeconds: 30, callingWindow: null, ...extra } };
    case 'password':
      return { body: { password: b.password, ...extra } };
    case 'message':
      return { body: { content: `Hello from ${b.marker}`, ...extra } };
    default:
      return inject ? { body: extra } : {};
  }
}

function createBody(kind: Extract<RouteClass, { kind: 'create' }>['body'], a: Tenant, b: Tenant, n: number) {
  const extra = injection(a);
  switch (kind) {
    case 'agent':
      return { body: { ...agentPayload('B agent injected'), ...extra } };
    case 'number':
      return { body: { ...numberBody(`+1646555${String(1000 + n)}`), ...extra } };
    case 'request':
      return { body: { phone: a.requestedPhone, ...extra } };
    case 'provider':
      return { body: { name: 'openai', keys: [{ name: 'API Key', value: `sk-b-${n}` }], ...extra } };
    case 'batch':
      return {
        body: { name: `B batch ${n}`, fromNumber: b.poolPhone, sendMode: 'now', ...extra },
        headers: { 'Idempotency-Key': `b-batch-${n}-${Date.now()}` },
      };
    case 'kb': {
      const form = new FormData();
      form.set('knowledge_base_name', `B kb ${n}`);
      form.append('knowledge_base_texts', JSON.stringify({ title: 't', text: 'x' }));
      for (const [k, v] of Object.entries(extra)) form.set(k, v);
      return { body: form };
    }
    case 'company':
      return { body: { name: `B company ${n}`, ...extra } };
    case 'limits':
      return { body: { concurrencyLimit: 2, monthlySpendLimit: 77, allowedCountries: ['GB'], ...extra } };
    case 'contact':
      return { body: { name: 'B', email: 'b@example.com', address: 'B street', taxId: 'B-1', ...extra } };
    case 'conversation':
      return { body: { agent_id: b.agentIds[0], ...extra } };
  }
}

for (const kind of DB_KINDS) {
  describe(`security: tenant isolation [${kind}]`, () => {
    let t: TestApp;
    let a: Tenant;
    let b: Tenant;
    let before: Record<string, string[]>;

    beforeAll(async () => {
      t = await buildTestApp(kind, { http: providerHttp() });
      a = await buildTenant(t, 'ALPHA');
      b = await buildTenant(t, 'BRAVO');
      before = await snapshotCompany(t, a.companyId);
      return () => t.close();
    }, 120_000);

    it('classifies every route the app registers (by id, list, create, public or self-only)', () => {
      const registered = endpointsOf(t);
      const missing = registered.filter((r) => !(r in ROUTES));
      const stale = Object.keys(ROUTES).filter((r) => !registered.includes(r));
      expect(missing, 'routes missing from the isolation matrix (tests/server/security/matrix.ts)').toEqual([]);
      expect(stale, 'matrix entries of routes that no longer exist').toEqual([]);
      // the world fills every company-scoped table, so the snapshot comparison covers each one
      expect(emptyTables(before)).toEqual([]);
    });

    it(`answers 404 or 403 to ${ATTEMPTS} generated attempts on A's ids, and never shows A's data`, async () => {
      const attempt = fc.record({
        route: fc.constantFrom(...BY_ID),
        id: fc.constantFrom(...idsOf(a)),
        inject: fc.boolean(),
        variant: fc.constantFrom('exact', 'slash', 'query'),
      });
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(attempt, async ({ route: [key, cls], id, inject, variant }) => {
          runs++;
          const { method, path } = splitRoute(key);
          let url = path.replace('/api/v1', '').replace(':id', id);
          if (variant === 'slash') url += '/';
          if (variant === 'query' || (inject && method === 'GET')) url += `?${new URLSearchParams(injection(a))}`;
          const init = method === 'GET' ? {} : byIdBody(cls.body, a, b, inject);
          const res = await call(t, method, url, { token: b.token, ...init });
          const text = JSON.stringify(res.body ?? '');
          expect([403, 404], `${method} ${url}: ${text}`).toContain(res.status);
          expect(leaksOf(a, text, [id]), `${method} ${url}`).toEqual([]);
        }),
        { numRuns: ATTEMPTS, seed: 8_2026 },
      );
      expect(runs).toBeGreaterThanOrEqual(ATTEMPTS);
    });

    it("assigning A's agents to B's number answers 'Agent not found'; A's knowledge base never links to B's agent", async () => {
      const own = (await call(t, 'GET', '/number?limit=100', { token: b.token })).body.data.numbers as { _id: string }[];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...own.map((x) => x._id)),
          fc.constantFrom(...a.agentIds),
          fc.constantFrom('inbound_agent_id', 'outbound_agent_id'),
          async (numberId, agentId, field) => {
            const res = await call(t, 'PUT', `/number/${numberId}`, { token: b.token, body: { [field]: agentId } });
            expect(res.status).toBe(400);
            expect(res.body.errors).toEqual({ [field]: PHONE_MESSAGES.agentNotFound });
          },
        ),
        { numRuns: 40, seed: 8 },
      );
      // B links A's knowledge base to B's agents (create and full update): the link is dropped, B's copy stays
      const selecting = (id: string, name: string) => ({
        selectedKnowledgeBases: [
          {
            knowledge_base_id: id,
            knowledge_base_name: name,
            knowledge_base_sources: [],
            enable_auto_refresh: false,
            status: 'complete' as const,
          },
        ],
      });
      const stolen = selecting(a.kbId, 'Stolen');
      const made = await call(t, 'POST', '/agent', { token: b.token, body: agentPayload('B with a foreign KB', stolen) });
      expect(made.status).toBe(201);
      const updated = await call(t, 'PUT', `/agent/${b.agentIds[0]}`, {
        token: b.token,
        body: agentPayload('B updated', stolen),
      });
      expect(updated.status).toBe(200);
      for (const res of [made, updated]) {
        const kbs = res.body.data.agent.editor.selectedKnowledgeBases;
        expect(kbs).toEqual([expect.objectContaining({ knowledge_base_name: 'Stolen' })]);
        expect(JSON.stringify(res.body)).not.toContain(a.kbId);
      }
      const stored = await t.deps.db.db.selectFrom('agents').select('doc').where('company_id', '=', b.companyId).execute();
      expect(JSON.stringify(stored)).not.toContain(a.kbId);
      // B's own knowledge base stays linked
      const mineKb = selecting(b.kbId, 'Mine');
      const mine = await call(t, 'POST', '/agent', { token: b.token, body: agentPayload('B with its KB', mineKb) });
      expect(mine.body.data.agent.editor.selectedKnowledgeBases[0].knowledge_base_id).toBe(b.kbId);

      // B requests A's numbers: not free, so 404
      for (const phone of [a.poolPhone, numberBody().phone_number]) {
        const res = await call(t, 'POST', '/request', { token: b.token, body: { phone } });
        expect(res.status).toBe(404);
      }
    });

    it("lists only B's rows, whatever the query (A's marker, A's ids as filters)", async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...LISTS), fc.constantFrom('none', 'search', 'ids'), async ([key, cls], extra) => {
          const { method, path } = splitRoute(key);
          const q = new URLSearchParams(cls.query ?? {});
          if (extra === 'search') q.set('search', a.marker);
          if (extra === 'ids') for (const k of INJECTED_KEYS) q.set(k, a.companyId);
          const url = `${path.replace('/api/v1', '')}?${q}`;
          const res = await call(t, method, url, { token: b.token });
          const text = JSON.stringify(res.body);
          expect([200, 400], `${url}: ${text}`).toContain(res.status);
          expect(leaksOf(a, text), url).toEqual([]);
        }),
        { numRuns: 120, seed: 82 },
      );
      // B's own statements (ids are months) show B's figures only
      const statements = (await call(t, 'GET', '/billing/statements', { token: b.token })).body.statements as { id: string }[];
      expect(statements.length).toBeGreaterThan(0);
      for (const s of statements) {
        const res = await call(t, 'GET', `/billing/statements/${s.id}`, { token: b.token });
        expect(res.status).toBe(200);
        expect(leaksOf(a, JSON.stringify(res.body))).toEqual([]);
      }
    });

    it("ignores companyId, accountId and role in bodies: B's creates and updates stay B's", async () => {
      let n = 0;
      // B has every provider connected: make room for the create
      expect((await call(t, 'DELETE', '/provider/disconnect', { token: b.token, body: { name: 'openai' } })).status).toBe(200);
      for (const [key, cls] of CREATES) {
        const { method, path } = splitRoute(key);
        const res = await call(t, method, path.replace('/api/v1', ''), { token: b.token, ...createBody(cls.body, a, b, ++n) });
        // the knowledge-base form refuses unknown fields outright (400, nothing stored); the rest ignore them
        const refused = cls.body === 'kb' && res.status === 400 && /Unknown field/.test(res.body.msg);
        if (!refused) expect(res.status, `${key}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        expect(leaksOf(a, JSON.stringify(res.body), [a.requestedPhone]), key).toEqual([]);
      }
      // everything B made is B's: nothing new is A's, and B's rows name B's company and account
      const db = t.deps.db.db;
      const agents = await db
        .selectFrom('agents')
        .select(['company_id', 'account_id'])
        .where('agent_name', '=', 'B agent injected')
        .execute();
      expect(agents).toEqual([{ company_id: b.companyId, account_id: b.accountId }]);
      const company = await db.selectFrom('companies').select('name').where('id', '=', b.companyId).executeTakeFirstOrThrow();
      expect(company.name).toMatch(/^B company/);
      const me = await call(t, 'GET', '/account/me', { token: b.token });
      expect(me.body.account.companyId).toBe(b.companyId);
    });

    it("leaves every row and file of A's byte for byte as it was", async () => {
      // runs last: after the attempts above
      expect(await snapshotCompany(t, a.companyId)).toEqual(before);
      // and A still sees all of it
      const agents = await call(t, 'GET', '/agent?limit=100', { token: a.token });
      expect((agents.body.data.agents as { _id: string }[]).map((x) => x._id).sort()).toEqual([...a.agentIds].sort());
    });
  });
}
