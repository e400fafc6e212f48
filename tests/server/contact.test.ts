import { expect, it } from 'vitest';
import { ACCOUNT_MESSAGES as M } from '../../src/api/contract/account.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

const contact = (t: TestApp, body: unknown) => t.req('POST', '/api/v1/contact', { body });
const GOOD = { name: 'Dr. Okafor', email: 'clinic@example.com', message: 'Can Parley call our patients in Spanish?' };

describeEachDb('contact API', (kind) => {
  const t = useTestApp(kind);

  it('stores the message and thanks the sender', async () => {
    const res = await contact(t(), GOOD);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, msg: 'Thanks! We will get back to you soon.' });
    const rows = await t().deps.db.db.selectFrom('contact_messages').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ ...GOOD, ip: '127.0.0.1', created_at: t().clock.now().toISOString() });
  });

  it('answers the validation messages', async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{}, { name: M.nameRequired, email: M.emailRequired, message: M.messageRequired }],
      [{ ...GOOD, email: 'nope' }, { email: M.emailInvalid }],
      [{ ...GOOD, message: '   ' }, { message: M.messageRequired }],
      [{ ...GOOD, message: 'x'.repeat(5001) }, { message: M.messageTooLong }],
    ];
    for (const [body, errors] of cases) {
      const res = await contact(t(), body);
      expect(res.status).toBe(400);
      expect((await res.json()).errors).toEqual(errors);
    }
    expect((await contact(t(), { ...GOOD, message: 'x'.repeat(5000) })).status).toBe(200);
  });

  it('allows 5 messages per hour per IP, then 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await contact(t(), GOOD)).status).toBe(200);
    const res = await contact(t(), GOOD);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3600');
    t().clock.advance(3600_000);
    expect((await contact(t(), GOOD)).status).toBe(200);
    expect(await t().deps.db.db.selectFrom('contact_messages').select('id').execute()).toHaveLength(6);
  });

  it('refuses a body over 64 KiB before reading it', async () => {
    const res = await contact(t(), { ...GOOD, message: 'x'.repeat(70 * 1024) });
    expect(res.status).toBe(413);
    expect((await res.json()).success).toBe(false);
  });
});
