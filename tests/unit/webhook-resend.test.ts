import { describe, expect, it } from 'vitest';
import { createQueryCache } from '../../src/api/cache';
import { createApiClient } from '../../src/api/client';
import { WEBHOOK_MESSAGES } from '../../src/api/contract/webhook';
import { webhooksApi } from '../../src/api/webhooks';
import { resendToast } from '../../src/routes/dashboard/-components/providers/resend';

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** The webhooks API over a fake fetch that answers every Resend with `answer`. */
function api(answer: () => Response) {
  const fetch = (async () => answer()) as typeof globalThis.fetch;
  return webhooksApi(createApiClient({ fetch }), createQueryCache());
}

describe("the delivery log's Resend", () => {
  it("shows the server's sentence when Resend goes over a limit (429)", async () => {
    const msg = WEBHOOK_MESSAGES.resendTooSoon(42);
    const hooks = api(() => json({ success: false, msg }, 429, { 'retry-after': '42' }));
    expect(await resendToast(() => hooks.resend('d1', { notify: false }))).toEqual({
      title: 'Not resent',
      description: 'This delivery was resent a moment ago. You can resend it again in 42 seconds.',
      variant: 'destructive',
    });
    const full = api(() => json({ success: false, msg: WEBHOOK_MESSAGES.resendLimit(20, 75) }, 429, { 'retry-after': '75' }));
    expect((await resendToast(() => full.resend('d1', { notify: false }))).description).toBe(
      'Your company resent 20 deliveries in the last minute, the most allowed. Please try again in 2 minutes.',
    );
  });

  it("shows the server's sentence when the delivery was queued again", async () => {
    const delivery = {
      _id: 'd2',
      webhook: 'company',
      agent_id: null,
      url: 'https://hooks.example.com',
      event: 'call_ended',
      call_id: null,
      status: 'pending',
      attempts: 0,
      status_code: null,
      duration_ms: null,
      error: null,
      time: '2026-11-22T10:00:00.000Z',
      next_attempt_at: '2026-11-22T10:00:00.000Z',
    };
    const hooks = api(() => json({ success: true, msg: WEBHOOK_MESSAGES.resent, data: delivery }, 201));
    expect(await resendToast(() => hooks.resend('d1', { notify: false }))).toEqual({ title: 'The delivery was queued again.' });
  });
});
