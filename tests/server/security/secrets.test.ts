import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/platform/log/logger.js';
import { outboxMailer } from '../../../server/platform/mail.js';
import { PROVIDERS } from '../../../src/api/contract/provider.js';
import { outboxMails } from '../../outbox.js';
import { buildTestApp, DB_KINDS } from '../helpers.js';
import { fieldValue } from '../provider-values.js';
import { call } from '../seed.js';
import { ROUTES, splitRoute } from './matrix.js';
import { buildTenant, canary, dumpDatabase, ownUrl, providerHttp } from './world.js';

/**
 * Secrets: canary values are planted for every field of all eleven providers, for passwords and
 * for tokens; then a run through the API touches every route (lists, reads, updates of the connections,
 * the voices call that sends the ElevenLabs key out and gets it echoed back in an error, logins right and
 * wrong, refresh, password change and reset, refused requests). Neither the answers nor the captured log
 * lines contain a canary; provider values are not stored in plain text either; tokens appear only in the
 * answers that issue them and never in the log.
 */

for (const kind of DB_KINDS) {
  describe(`security: secrets [${kind}]`, () => {
    it('no provider key, password or token reaches an answer or a log line', async () => {
      const logs: string[] = [];
      const http = providerHttp();
      const t = await buildTestApp(kind, { http, logger: createLogger('debug', (line) => logs.push(line)) });
      // the mailer production uses without SMTP_URL: every email of the run goes through it
      t.deps.mailer = outboxMailer(t.dataDir, t.deps.logger);
      try {
        // every answer of the run, with the request that produced it
        const answers: { what: string; text: string }[] = [];
        const plain = t.req;
        t.req = async (method, url, init) => {
          const res = await plain(method, url, init);
          answers.push({ what: `${method} ${url}`, text: `${[...res.headers].join('\n')}\n${await res.clone().text()}` });
          return res;
        };

        const a = await buildTenant(t, 'SECRET-A');
        const b = await buildTenant(t, 'SECRET-B');
        expect(PROVIDERS).toHaveLength(12);
        expect(Object.keys(a.providerSecrets)).toHaveLength(PROVIDERS.length);
        const passwords = [a.password, b.password];
        const providerValues = [...Object.values(a.providerSecrets).flat(), ...Object.values(b.providerSecrets).flat()];

        // updates with new values, and a connect with a value that is refused
        for (const [i, id] of a.providerIds.entries()) {
          const p = PROVIDERS[i] as (typeof PROVIDERS)[number];
          const values = p.fields.map((f) => fieldValue(f, canary(`update-${p.name}-${f.name.length}`)));
          providerValues.push(...values);
          const res = await call(t, 'PUT', `/provider/${id}`, {
            token: a.token,
            body: { keys: p.fields.map((f, j) => ({ name: f.name, value: values[j] })) },
          });
          expect(res.status).toBe(200);
        }
        const tooLong = canary('too-long').padEnd(5000, 'x');
        const refused = await call(t, 'POST', '/provider/values', {
          token: a.token,
          body: {
            name: 'openai',
            keys: [
              { name: 'API Key', value: tooLong },
              { name: 'Nope', value: canary('unknown-field') },
            ],
          },
        });
        expect(refused.status).toBeGreaterThanOrEqual(400);
        providerValues.push(tooLong);

        // the voices call sends the ElevenLabs key out; the fake provider echoes it back in its error
        const voices = await call(t, 'GET', '/voices', { token: a.token });
        expect(voices.status).toBe(200);
        expect(voices.body.elevenlabs).toBe('unavailable');
        expect(http.calls.length).toBeGreaterThan(0);

        // every route once with the caller's own ids
        for (const key of Object.keys(ROUTES)) {
          const { method, path } = splitRoute(key);
          if (method === 'ALL' || method === 'DELETE' || key.includes('/logout')) continue;
          await t.req(method, ownUrl(a, path), {
            token: a.token,
            ...(method === 'GET' ? {} : { body: {} }),
          });
        }
        for (const p of PROVIDERS)
          expect((await call(t, 'GET', `/provider/fields?name=${p.name}`, { token: a.token })).status).toBe(200);

        // logins: wrong (a canary as the password), right; refresh; change; reset
        const wrong = canary('wrong-password');
        passwords.push(wrong);
        expect((await call(t, 'POST', '/account/login', { body: { email: a.email, password: wrong } })).status).toBe(401);
        const login = await call(t, 'POST', '/account/login', { body: { email: a.email, password: a.password } });
        expect(login.status).toBe(200);
        const refreshed = await call(t, 'POST', '/auth/refresh', { token: login.body.refresh_token });
        expect(refreshed.status).toBe(200);
        const changedTo = canary('new-password');
        passwords.push(changedTo);
        const changed = await call(t, 'PUT', '/account/login', {
          token: refreshed.body.access_token,
          body: { currentPassword: a.password, newPassword: changedTo },
        });
        expect(changed.status).toBe(200);
        await call(t, 'PUT', '/account/login', { token: a.token, body: { currentPassword: wrong, newPassword: canary('x') } });
        expect((await call(t, 'POST', '/account/forgotpassword', { body: { email: b.email } })).status).toBe(200);
        // the newest reset link in the outbox (sent after the answer: wait for it)
        const resetTokens = () => outboxMails(t.dataDir).flatMap((m) => [...m.matchAll(/#token=([\w-]+)/g)].map((x) => x[1]));
        await expect.poll(() => resetTokens().length).toBe(2);
        const resetToken = resetTokens().at(-1) as string;
        expect(resetToken).toBeTruthy();
        const resetTo = canary('reset-password');
        passwords.push(resetTo);
        expect((await call(t, 'POST', '/account/resetpassword', { body: { token: resetToken, password: resetTo } })).status).toBe(
          200,
        );
        // refused requests carrying secrets
        await call(t, 'GET', '/account/me', { token: `${a.token}x` });
        await call(t, 'POST', '/auth/refresh', { token: a.refresh_token });
        await call(t, 'POST', '/account/resetpassword', { body: { token: resetToken, password: canary('again') } });

        // the checks
        const tokens = [a.token, a.refresh_token, b.token, b.refresh_token, login.body.token, login.body.refresh_token];
        tokens.push(refreshed.body.access_token, refreshed.body.refresh_token);
        const neverAnswered = [...providerValues, ...passwords, resetToken];
        expect(answers.length).toBeGreaterThan(100);
        expect(logs.length).toBeGreaterThan(10);
        // the outbox did write (and log) the emails: reset links, the password-change notice
        expect(logs.filter((l) => l.includes('email written to outbox')).length).toBeGreaterThanOrEqual(3);
        for (const { what, text } of answers) {
          for (const secret of neverAnswered) expect(text.includes(secret), `${what} answered a secret`).toBe(false);
          // a token appears only in the answer that issues it
          const issuing = /\/(register|login|refresh)$/.test(what) && what.startsWith('POST');
          if (!issuing) for (const token of tokens) expect(text.includes(token), `${what} answered a token`).toBe(false);
        }
        for (const line of logs) {
          for (const secret of [...neverAnswered, ...tokens]) expect(line.includes(secret), `log line: ${line}`).toBe(false);
        }
        // and the provider values are not stored in plain text
        const stored = JSON.stringify(await dumpDatabase(t));
        for (const value of providerValues) expect(stored.includes(value), 'a provider value stored in plain text').toBe(false);
        for (const password of passwords) expect(stored.includes(password)).toBe(false);
      } finally {
        await t.close();
      }
    }, 120_000);
  });
}
