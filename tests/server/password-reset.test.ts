import type { AddressInfo } from 'node:net';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/modules/auth/tokens.js';
import { settled } from '../../server/platform/jobs/later.js';
import { smtpMailer } from '../../server/platform/mail.js';
import { ACCOUNT_MESSAGES as M } from '../../src/api/contract/account.js';
import { logIn, signUp } from './auth-helpers.js';
import { buildTestApp, DB_KINDS, describeEachDb, freshDatabase, LOG_LINES, type TestApp, useTestApp } from './helpers.js';

/**
 * A Kysely plugin that records the tables each query touches and, while closed, holds every query that
 * touches `accounts` until it is opened: it shows what a request did before answering, and whether its
 * answer waited for an account lookup.
 */
class AccountsGate implements KyselyPlugin {
  /** the tables of every query, in order */
  log: string[] = [];
  private held = new WeakSet<object>();
  private release: () => void = () => {};
  private gate: Promise<void> = Promise.resolve();
  close() {
    this.gate = new Promise<void>((r) => (this.release = r));
  }
  open() {
    this.release();
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const text = JSON.stringify(args.node);
    const tables = [
      ...text.matchAll(
        /"kind":"TableNode","table":\{"kind":"SchemableIdentifierNode","identifier":\{"kind":"IdentifierNode","name":"(\w+)"/g,
      ),
    ].map((m) => m[1]);
    this.log.push(`${args.node.kind}:${[...new Set(tables)].join(',')}`);
    if (tables.includes('accounts')) this.held.add(args.queryId);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.held.has(args.queryId)) await this.gate;
    return args.result;
  }
}

/** POST /account/forgotpassword, then the work it left for after the answer (the lookup and the email). */
async function forgot(t: TestApp, email: string) {
  const res = await t.req('POST', '/api/v1/account/forgotpassword', { body: { email } });
  await settled(t.deps);
  return res;
}
const reset = (t: TestApp, token: string, password: string) =>
  t.req('POST', '/api/v1/account/resetpassword', { body: { token, password } });
const LINK = /http:\/\/parley\.test\/reset-password#token=([A-Za-z0-9_-]{43})/;

function tokenFromMail(t: TestApp, index = -1): string {
  const text = t.mailer.sent.at(index)?.text ?? '';
  const m = text.match(LINK);
  if (!m?.[1]) throw new Error('no reset link in the last email');
  return m[1];
}

async function fromIp(t: TestApp, ip: string, email: string) {
  const res = await t.app.request(
    '/api/v1/account/forgotpassword',
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email }) },
    { incoming: { socket: { remoteAddress: ip } } },
  );
  await settled(t.deps);
  return res;
}

describeEachDb('password reset', (kind) => {
  const t = useTestApp(kind);

  it('answers identical bytes for known and unknown emails, and mails only the known one', async () => {
    const s = await signUp(t());
    const known = await forgot(t(), s.email.toUpperCase());
    const unknown = await forgot(t(), 'nobody@example.com');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const [a, b] = [await known.text(), await unknown.text()];
    expect(a).toBe(b);
    expect(JSON.parse(a)).toEqual({ success: true, msg: 'If an account exists for that email, a reset link has been sent.' });
    expect(known.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
    expect(t().mailer.sent).toHaveLength(1);
    expect(t().mailer.sent[0]?.to).toBe(s.email);
    const token = tokenFromMail(t());
    const rows = await t().deps.db.db.selectFrom('password_reset_tokens').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toBe(sha256(token));
    expect(rows[0]?.expires_at).toBe(new Date(t().clock.now().getTime() + 30 * 60_000).toISOString());
    for (const line of LOG_LINES) expect(line).not.toContain(token);
  });

  it('resets the password once, revoking every session (access and refresh)', async () => {
    const s = await signUp(t());
    const second = (await logIn(t(), s.email, s.password)).body;
    await forgot(t(), s.email);
    const token = tokenFromMail(t());
    const res = await reset(t(), token, 'a much better passphrase');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, msg: M.passwordReset });
    for (const access of [s.token, second.token]) {
      expect((await t().req('GET', '/api/v1/account/me', { token: access })).status).toBe(401);
    }
    for (const r of [s.refresh_token, second.refresh_token]) {
      expect((await t().req('POST', '/api/v1/auth/refresh', { token: r })).status).toBe(401);
    }
    expect((await logIn(t(), s.email, s.password)).res.status).toBe(401);
    expect((await logIn(t(), s.email, 'a much better passphrase')).res.status).toBe(200);
    // single use
    const again = await reset(t(), token, 'yet another passphrase');
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ success: false, msg: 'This reset link is invalid or has expired.' });
    expect(t().mailer.sent.at(-1)?.subject).toMatch(/password was reset/i);
  });

  it('refuses expired, unknown and superseded tokens, and common passwords', async () => {
    const s = await signUp(t());
    await forgot(t(), s.email);
    const first = tokenFromMail(t());
    t().clock.advance(30 * 60_000 + 1);
    const expired = await reset(t(), first, 'a much better passphrase');
    expect(expired.status).toBe(400);
    expect((await expired.json()).msg).toBe(M.resetInvalid);
    expect((await reset(t(), 'A'.repeat(43), 'a much better passphrase')).status).toBe(400);

    await forgot(t(), s.email);
    const a = tokenFromMail(t());
    await forgot(t(), s.email);
    const b = tokenFromMail(t());
    const common = await reset(t(), a, 'password1');
    expect(common.status).toBe(400);
    expect((await common.json()).errors).toEqual({ password: M.passwordTooCommon });
    expect((await reset(t(), a, 'a much better passphrase')).status).toBe(200);
    // using one link retires the other outstanding links of the account
    expect((await reset(t(), b, 'another better passphrase')).status).toBe(400);
  });

  it('answers the validation messages', async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{}, { email: 'Email is required' }],
      [{ email: '' }, { email: 'Email is required' }],
      [{ email: 'not an email' }, { email: 'Invalid email format' }],
    ];
    for (const [body, errors] of cases) {
      const res = await t().req('POST', '/api/v1/account/forgotpassword', { body });
      expect(res.status).toBe(400);
      expect((await res.json()).errors).toEqual(errors);
    }
    const res = await t().req('POST', '/api/v1/account/resetpassword', { body: { token: 'x', password: '123' } });
    expect((await res.json()).errors).toEqual({ password: M.passwordTooShort });
    const noToken = await t().req('POST', '/api/v1/account/resetpassword', { body: { password: 'good passphrase' } });
    expect((await noToken.json()).errors).toEqual({ token: M.resetInvalid });
  });

  it('sends at most 3 emails per hour per address, with the same answer after the limit', async () => {
    const s = await signUp(t());
    const texts: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await forgot(t(), s.email);
      expect(res.status).toBe(200);
      texts.push(await res.text());
    }
    expect(new Set(texts).size).toBe(1);
    expect(t().mailer.sent).toHaveLength(3);
    t().clock.advance(60 * 60_000);
    await forgot(t(), s.email);
    expect(t().mailer.sent).toHaveLength(4);
  });

  it('answers 429 with Retry-After after 10 requests per hour from one IP', async () => {
    for (let i = 0; i < 10; i++) expect((await fromIp(t(), '192.0.2.1', `p${i}@example.com`)).status).toBe(200);
    const res = await fromIp(t(), '192.0.2.1', 'p11@example.com');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBe(3600);
    expect((await res.json()).msg).toBe('Too many attempts. Please try again in 60 minutes.');
    expect((await fromIp(t(), '192.0.2.2', 'p11@example.com')).status).toBe(200);
  });
});

for (const kind of DB_KINDS) {
  describe(`forgot password answers alike for known and unknown emails [${kind}]`, () => {
    it('answers before any account lookup, after the same work for both, then mails only the known one', async () => {
      const base = await freshDatabase(kind);
      const gate = new AccountsGate();
      const t = await buildTestApp(kind, { db: { ...base, db: base.db.withPlugin(gate) } });
      try {
        const s = await signUp(t);
        const work: string[][] = [];
        for (const email of [s.email, 'nobody@example.com']) {
          gate.close();
          gate.log = [];
          let before: string[] = [];
          const request = t.req('POST', '/api/v1/account/forgotpassword', { body: { email } }).then((res) => {
            before = [...gate.log];
            return res;
          });
          // the answer arrives while every account lookup is held (a request that waited for one never would)
          const outcome = await Promise.race([
            request.then(() => 'answered'),
            new Promise((r) => setTimeout(() => r('held back by the account lookup'), 5000)),
          ]);
          expect(outcome).toBe('answered');
          expect((await request).status).toBe(200);
          work.push(before);
          gate.open();
          await settled(t.deps);
        }
        // the same queries before the answer, whatever the email
        expect(work[0]).toEqual(work[1]);
        expect(work[0]?.some((q) => q.includes('accounts'))).toBe(false);
        expect(t.mailer.sent.map((m) => m.to)).toEqual([s.email]);
      } finally {
        await t.close();
        await base.close();
      }
    });
  });
}

describe('password reset through a real SMTP server', () => {
  let server: SMTPServer | undefined;
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('delivers the link over SMTP and the link resets the password', async () => {
    const received: string[] = [];
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.server.address() as AddressInfo).port;
    app = await buildTestApp('sqlite', { mailer: smtpMailer(`smtp://127.0.0.1:${port}`) });
    const s = await signUp(app);
    expect((await forgot(app, s.email)).status).toBe(200);
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(received).toHaveLength(1);
    // undo quoted-printable soft breaks and escapes before reading the link
    const decoded = (received[0] as string)
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    expect(decoded).toMatch(new RegExp(`^To: ${s.email}`, 'm'));
    const token = decoded.match(LINK)?.[1];
    expect(token).toBeDefined();
    expect((await reset(app, token as string, 'mailed passphrase ok')).status).toBe(200);
    expect((await logIn(app, s.email, 'mailed passphrase ok')).res.status).toBe(200);
  });
});
