import type { TranscriptTurn } from '@contract/call-runtime.js';
import { expect, it } from 'vitest';
import { createCallSession } from '../../../server/modules/conversations/session.repo.js';
import { queueCallEvent } from '../../../server/modules/webhooks/outbox.js';
import { sampleAgent, savePayload, useCallServer } from '../call/harness.js';
import { InProcessProviders } from '../call/in-process-providers.js';
import { describeEachDb } from '../helpers.js';

/**
 * A stored call's function calls reach the call detail (GET /call/{id}) and the `call_ended` webhook as they
 * were recorded: name, arguments, type, status, result and duration of each, in their turn.
 */
describeEachDb('function calls in the call detail and call_ended', (kind) => {
  const server = useCallServer(kind, () => new InProcessProviders().set());

  const transcript: TranscriptTurn[] = [
    { role: 'user', text: 'Is Monday free?', start_ms: 0, end_ms: 1000 },
    {
      role: 'agent',
      text: 'Let me check.',
      start_ms: 1500,
      end_ms: 4000,
      tool_calls: [
        {
          name: 'check_availability',
          type: 'check_availability_cal',
          arguments: { start: '2026-12-08' },
          status: 'ok',
          result: '{"slots":["09:00"]}',
          ms: 412,
        },
        { name: 'crm', type: 'custom', arguments: {}, status: 'timeout', result: 'The function timed out.', ms: 8000 },
        { name: 'end_call', arguments: { reason: 'done' } },
      ],
    },
  ];

  it('GET /call/{id} and the call_ended payload carry each function call with its outcome', async () => {
    const s = server();
    const db = s.t.deps.db.db;
    const agent = await sampleAgent(s);
    const doc = savePayload(agent, { editor: { ...(agent.editor as object), agentLevelWebhook: 'https://hooks.example.com/a' } });
    const now = s.t.clock.now();
    const row = await createCallSession(db, {
      companyId: s.user.companyId,
      accountId: s.user.accountId,
      agentId: agent._id,
      agent: doc as never,
      type: 'chat',
      from: '',
      to: '',
      phoneNumber: '',
      variables: {},
      transcript,
      now,
    });
    await db
      .updateTable('call_sessions')
      .set({ status: 'ended', ended_at: now.toISOString() })
      .where('id', '=', row.id)
      .where('company_id', '=', s.user.companyId)
      .execute();

    const res = await s.t.req('GET', `/api/v1/call/${row.id}`, { token: s.user.token });
    expect(res.status).toBe(200);
    const detail = (await res.json()) as { data: { transcript: TranscriptTurn[] } };
    expect(detail.data.transcript[1]?.tool_calls).toEqual(transcript[1]?.tool_calls);

    await queueCallEvent(s.t.deps, 'call_ended', { companyId: s.user.companyId, callId: row.id });
    const queued = await db.selectFrom('webhook_deliveries').select(['event', 'payload']).execute();
    expect(queued.map((q) => q.event)).toEqual(['call_ended']);
    const payload = JSON.parse(queued[0]?.payload as string) as { call: { transcript: TranscriptTurn[] } };
    expect(payload.call.transcript).toEqual(transcript);
  });
});
