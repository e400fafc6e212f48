import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { recordingsDir } from '../../../server/modules/calls/detail.js';
import { createAnalysisWorker } from '../../../server/modules/calls/index.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { holdsPii, seedCallWithContent, traces } from './seed-content.js';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, url.startsWith('/api') ? url : `/api/v1${url}`, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, text, body: body as any };
}

describeEachDb('DELETE /call/{id}', (kind) => {
  const t = useTestApp(kind);

  it('removes the content everywhere, keeps the metadata, says when, and is idempotent and audited', async () => {
    const a = await signUp(t());
    const id = await seedCallWithContent(t(), a.companyId, new Date(t().clock.now().getTime() - 3_600_000));
    const before = await call(t(), 'GET', `/call/${id}`, { token: a.token });
    expect(before.body.data.content_deleted_at).toBeNull();
    expect(before.body.data.recording_url).toEqual(expect.any(String));
    expect(holdsPii(before.text)).toBe(true);
    expect(holdsPii(await traces(t(), a.companyId, id))).toBe(true);

    t().clock.advance(5000);
    const deleted = await call(t(), 'DELETE', `/call/${id}`, { token: a.token });
    expect(deleted.status).toBe(200);
    const d = deleted.body.data;
    expect(d.content_deleted_at).toBe(t().clock.now().toISOString());
    expect(d).toMatchObject({
      _id: id,
      transcript: [],
      dynamic_variables: {},
      recording_url: null,
      duration: 95,
      from: '+14155550100',
      to: '+14155550199',
      status: 'ended',
      disconnection_reason: 'user_hangup',
      call_successful: true,
      analysis: { status: 'done', summary: null, custom: {}, sentiment: 'positive', successful: true },
    });
    expect(d.latency).toHaveLength(1);
    expect(d.cost.total).toBe(0.12);
    expect(holdsPii(deleted.text)).toBe(false);
    // the rows, the pending webhook delivery and the recording file hold none of it
    expect(holdsPii(await traces(t(), a.companyId, id))).toBe(false);
    expect(fs.existsSync(path.join(recordingsDir(t().deps.config.dataDir, a.companyId), `${id}.wav`))).toBe(false);
    const delivery = await t()
      .deps.db.db.selectFrom('webhook_deliveries')
      .select(['payload', 'status'])
      .where('call_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(delivery.status).toBe('pending');
    expect(JSON.parse(delivery.payload).call).toMatchObject({
      call_id: id,
      transcript: [],
      content_deleted_at: d.content_deleted_at,
    });

    const read = await call(t(), 'GET', `/call/${id}`, { token: a.token });
    expect(read.body.data.content_deleted_at).toBe(d.content_deleted_at);
    expect(holdsPii(read.text)).toBe(false);

    // the CSV export carries no summary
    const link = await call(t(), 'POST', '/call/export', { token: a.token });
    const csv = await call(t(), 'GET', link.body.data.url);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(id);
    expect(holdsPii(csv.text)).toBe(false);

    // again: the same answer, the first time kept, one audit entry
    t().clock.advance(5000);
    const again = await call(t(), 'DELETE', `/call/${id}`, { token: a.token });
    expect(again.status).toBe(200);
    expect(again.body.data.content_deleted_at).toBe(d.content_deleted_at);
    const log = await call(t(), 'GET', '/audit-log?action=call.content_deleted', { token: a.token });
    expect(log.body.data.total).toBe(1);
    expect(log.body.data.entries[0]).toMatchObject({ actor: a.email, target: id });
  });

  it("answers 404 for another company's call and an unknown id, 409 for a live call, and changes nothing", async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const id = await seedCallWithContent(t(), a.companyId, new Date(t().clock.now().getTime() - 60_000));
    expect((await call(t(), 'DELETE', `/call/${id}`, { token: b.token })).status).toBe(404);
    expect((await call(t(), 'DELETE', '/call/not-an-id', { token: a.token })).status).toBe(404);
    expect((await call(t(), 'DELETE', `/call/${id}`)).status).toBe(401);
    expect(holdsPii(await traces(t(), a.companyId, id))).toBe(true);
    expect((await call(t(), 'GET', '/audit-log', { token: b.token })).body.data.total).toBe(0);

    const live = await seedCallWithContent(t(), a.companyId, t().clock.now(), 'ongoing');
    const refused = await call(t(), 'DELETE', `/call/${live}`, { token: a.token });
    expect(refused.status).toBe(409);
    expect(holdsPii(await traces(t(), a.companyId, live))).toBe(true);
  });

  it('an analysis not made yet is never made from the deleted call', async () => {
    const a = await signUp(t());
    const id = await seedCallWithContent(t(), a.companyId, new Date(t().clock.now().getTime() - 60_000));
    const db = t().deps.db.db;
    await db
      .updateTable('call_analyses')
      .set({ status: 'pending', result: null, next_attempt_at: t().clock.now().toISOString() })
      .where('call_id', '=', id)
      .execute();
    expect((await call(t(), 'DELETE', `/call/${id}`, { token: a.token })).status).toBe(200);
    const row = await db
      .selectFrom('call_analyses')
      .select(['status', 'result'])
      .where('call_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', result: null });
    // nothing left for the worker to claim
    expect(await createAnalysisWorker(t().deps).runOnce()).toBe(false);
  });
});
