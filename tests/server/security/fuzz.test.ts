import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { NUL_MESSAGE } from '../../../server/platform/http/http.js';
import { buildTestApp, DB_KINDS, type TestApp } from '../helpers.js';
import { ROUTES, splitRoute } from './matrix.js';
import { buildTenant, dumpDatabase, endpointsOf, providerHttp, type Tenant } from './world.js';

/**
 * Input fuzzing: every endpoint gets generated bodies (wrong types, huge strings, unicode,
 * nested objects, `__proto__` / `constructor` / `prototype` keys, empty and duplicate fields, malformed
 * JSON), query strings and headers. Never a 5xx, never a stack trace or SQL in the answer, and when the
 * answer is 4xx the database (every table but the rate-limit counters, which count refusals by design)
 * and the data directory are unchanged.
 */

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 14);

/** Field names the contract knows, so generated objects reach the validators' deeper branches. */
const FIELDS = [
  'name',
  'email',
  'password',
  'phone',
  'phone_number',
  'keys',
  'value',
  'scheduledAt',
  'fromNumber',
  'sendMode',
  'status',
  'settings',
  'agent_name',
  'version',
  'concurrencyLimit',
  'monthlySpendLimit',
  'token',
  'currentPassword',
  'newPassword',
  'path',
  'message',
  'inbound_agent_id',
  'outbound_agent_id',
  'nickname',
  'address',
  'taxId',
  'phone_number_type',
  'termination_uri',
  'page',
  'limit',
  'search',
  'sort',
  'month',
  'companyId',
  'role',
  '__proto__',
  'constructor',
  'prototype',
];

const hostile = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\uD800',
  '\u202Eevil',
  '𝕳𝖊𝖑𝖑𝖔 👋🏽 ﷽',
  "' or '1'='1",
  '"; drop table agents; --',
  '%00%2e%2e%2f',
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  `{{7*7}}\${7*7}`,
  'NaN',
  '1e309',
  '-0',
  'x'.repeat(100_000),
  'é'.repeat(70_000),
);
const str = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), hostile);
const scalar = fc.oneof(
  str,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(1e308),
  fc.bigInt().map(String),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 5 }),
  ),
})).v;

/** A nested object deeper than any schema expects. */
const deep = fc.integer({ min: 50, max: 3000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

/** A raw request body (text as sent on the wire). */
const body = fc.oneof(
  value.map((v) => JSON.stringify(v) ?? 'null'),
  fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  // duplicate fields and prototype keys as written on the wire (JSON.stringify cannot write these)
  fc
    .tuple(fc.constantFrom(...FIELDS), value, value)
    .map(([k, a, b]) => `{"${k}":${JSON.stringify(a) ?? 1},"${k}":${JSON.stringify(b) ?? 2}}`),
  value.map((v) => `{"__proto__":{"polluted":${JSON.stringify(v) ?? 1}},"constructor":{"prototype":{"polluted":1}}}`),
  deep,
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    'null',
    '[]',
    '"str"',
    '\u0000\u0001',
    '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n',
  ),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'text/csv',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'ünïcode/x; charset="\u00ff"',
);

const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS, 'page[]', '__proto__[x]', 'a.b'), fc.string({ maxLength: 6 })), str), {
    maxLength: 5,
  })
  .map((pairs) => {
    const q = new URLSearchParams();
    for (const [k, v] of pairs) q.append(k, v.slice(0, 3000));
    return q.toString();
  });

const headerValue = fc
  .oneof(
    fc.string({ maxLength: 30 }),
    hostile.map((s) => s.slice(0, 2000)),
  )
  .map((s) =>
    // only what a header may carry (visible ASCII); the rest is refused by the HTTP client itself
    s.replace(/[^\x20-\x7e]/g, '?'),
  );
const headers = fc.record(
  {
    'X-Forwarded-For': headerValue,
    'Idempotency-Key': headerValue,
    'Accept-Language': headerValue,
    'User-Agent': headerValue,
    Cookie: headerValue,
    Authorization: fc.oneof(headerValue, fc.constant('Bearer'), fc.constant('Bearer a.b.c')),
  },
  { requiredKeys: [] },
);

/** Lone surrogates become U+FFFD (as UTF-8 encoding makes them), so the segment can be percent-encoded. */
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

const RAW_SEGMENTS = ['%', '%zz', '%E0%A4%A', '..%2f..%2fetc%2fpasswd', '%00', '%2e%2e'];
const segment = fc.oneof(
  fc.constantFrom(...RAW_SEGMENTS),
  fc.string({ maxLength: 30 }),
  hostile.map((s) => s.slice(0, 500)),
  fc.stringMatching(/^[0-9a-f]{24}$/),
);

const STACK = /\n\s+at |\bat [\w.<>]+ \(|node_modules|\.(ts|js|mjs):\d+/;
/** Kysely's SQL (lowercase keywords before quoted identifiers) and the drivers' error texts. */
const SQL =
  /\b(select|insert into|update|delete from) ["*]|\bfrom "\w+"|SQLITE_[A-Z]|SqliteError|no such (table|column)|syntax error at|relation "|duplicate key value|violates [\w ]*constraint|\bkysely\b/;

for (const kind of DB_KINDS) {
  describe(`security: input fuzzing [${kind}]`, () => {
    let t: TestApp;
    let c: Tenant;

    beforeAll(async () => {
      t = await buildTestApp(kind, { http: providerHttp() });
      c = await buildTenant(t, 'FUZZ');
      return () => t.close();
    }, 120_000);

    it('covers every registered endpoint', () => {
      expect(endpointsOf(t).filter((r) => !(r in ROUTES))).toEqual([]);
    });

    it('answers 400 to a NUL in a path, a query, a JSON body or a form field (PostgreSQL text cannot hold one)', async () => {
      const form = new FormData();
      form.set('knowledge_base_name', 'ok');
      form.append('knowledge_base_texts', JSON.stringify({ title: 't', text: 'a\u0000b' }));
      const cases: [string, string, { body?: unknown }][] = [
        ['GET', `/api/v1/batch-call/${c.batchId}%00/recipients`, {}],
        ['PUT', '/api/v1/provider/%00', { body: { keys: [] } }],
        ['GET', '/api/v1/agent?search=a%00b', {}],
        ['GET', '/api/v1/phone/free?search=%00', {}],
        ['POST', '/api/v1/agent', { body: { agent_name: 'a\u0000b' } }],
        ['PUT', '/api/v1/billing/contact', { body: { name: 'x\u0000', email: 'a@b.co', address: 'x', taxId: 'x' } }],
        ['POST', '/api/v1/company', { body: { name: { '\u0000': 1 } } }],
        ['POST', '/api/v1/knowledge-base', { body: form }],
      ];
      const before = await dumpDatabase(t);
      for (const [method, url, init] of cases) {
        const res = await t.req(method, url, { token: c.token, ...init });
        expect(res.status, `${method} ${url}`).toBe(400);
        expect(await res.json(), `${method} ${url}`).toMatchObject({ success: false, msg: NUL_MESSAGE });
      }
      expect(await dumpDatabase(t)).toEqual(before);
    });

    it(`answers ${RUNS_PER_ROUTE} generated requests per endpoint without a 5xx, a stack trace, SQL, or a change on 4xx`, async () => {
      let last = await dumpDatabase(t);
      const statuses = new Map<number, number>();
      const ids = [c.agentIds[0], c.ownNumberId, c.kbId, c.batchId, c.providerIds[0], c.companyId] as string[];
      const request = fc.record({
        route: fc.constantFrom(...Object.keys(ROUTES)),
        id: fc.oneof(segment, fc.constantFrom(...ids)),
        query,
        body,
        contentType,
        headers,
        signedIn: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const { method: declared, path: template } = splitRoute(r.route);
          const method = declared === 'ALL' ? 'PATCH' : declared;
          // a generated segment is percent-encoded; the raw ones are malformed escapes sent as they are
          const seg = RAW_SEGMENTS.includes(r.id) ? r.id : encodeURIComponent(wellFormed(r.id));
          const p = template.replace('/api/*', `/api/${seg}`).replace(/:(id|name)/, seg);
          const url = `${p}${r.query ? `?${r.query}` : ''}`;
          const hdrs: Record<string, string> = { ...r.headers, 'Content-Type': r.contentType };
          // signed in, the request reaches the handler and its validators; otherwise the generated header stays
          if (r.signedIn) hdrs.Authorization = `Bearer ${c.token}`;
          // logging out and the company delete with the right password are not inputs the fuzzer may hit
          if (r.route.includes('/logout') || r.route.startsWith('DELETE /api/v1/company')) delete hdrs.Authorization;
          const res = await t.req(method, url, {
            headers: hdrs,
            ...(method === 'GET' || method === 'HEAD' ? {} : { body: r.body }),
          });
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const where = `${method} ${url.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          expect(text, where).not.toMatch(STACK);
          expect(text, where).not.toMatch(SQL);
          const now = await dumpDatabase(t);
          if (res.status >= 400) expect(now, where).toEqual(last);
          last = now;
        }),
        { numRuns: RUNS_PER_ROUTE * Object.keys(ROUTES).length, seed: Number(process.env.FUZZ_SEED ?? 2026_11_23) },
      );
      if (process.env.FUZZ_SEED) console.log(Object.fromEntries(statuses));
      // the generated requests reached both refusals and successes
      expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
      expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThan(3);
      // and nothing polluted Object.prototype
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }, 240_000);
  });
}
