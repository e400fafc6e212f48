import { expect, it } from 'vitest';
import { createCallSession } from '../../../server/modules/conversations/session.repo.js';
import {
  IDLE_CHAT_MS,
  STALE_HEARTBEAT_MS,
  STALE_REGISTERED_MS,
  sweepCalls,
} from '../../../server/modules/conversations/sweep.js';
import { AGENT_EDITOR_DEFAULTS } from '../../../src/api/contract/agent/defaults.js';
import type { AgentDoc } from '../../../src/api/contract/agent/save.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, useTestApp } from '../helpers.js';

const agent = {
  name: 'Ava',
  prompt: '',
  message: '',
  settings: {
    llm: { service: 'openai', options: { model: 'gpt-4o' } },
    tts: { service: 'elevenlabs', options: { voice_id: 'v1', model: 'auto' } },
    stt: { service: 'deepgram', options: { language: 'en-US', model: 'nova-2' } },
  },
  editor: AGENT_EDITOR_DEFAULTS,
} as unknown as AgentDoc;

describeEachDb('call sweeper', (kind) => {
  const t = useTestApp(kind);

  it("removes web calls never connected, ends a dead server's live call and idle chats, and leaves live ones alone", async () => {
    const app = t();
    const user = await signUp(app);
    const base = {
      companyId: user.companyId,
      accountId: user.accountId,
      agentId: null,
      agent,
      from: '',
      to: '',
      phoneNumber: '',
      variables: {},
    };
    const db = app.deps.db.db;
    const start = app.clock.now();
    const never = await createCallSession(db, { ...base, type: 'web', token: { value: 't', expiresAt: start }, now: start });
    const dead = await createCallSession(db, { ...base, type: 'web', now: start });
    const alive = await createCallSession(db, { ...base, type: 'web', now: start });
    const idle = await createCallSession(db, { ...base, type: 'chat', now: start });
    const busy = await createCallSession(db, { ...base, type: 'chat', now: start });
    await db
      .updateTable('call_sessions')
      .set({ status: 'ongoing', started_at: start.toISOString(), heartbeat_at: start.toISOString() })
      .where('id', 'in', [dead.id, alive.id])
      .execute();
    // the dead server's call last saved its progress 10 s in (a turn: usage and cost), on another server
    const usage = {
      ...JSON.parse(dead.usage),
      stt_seconds: 4.2,
      llm_input_tokens: 300,
      llm_output_tokens: 40,
      tts_characters: 120,
    };
    await db
      .updateTable('call_sessions')
      .set({
        heartbeat_at: new Date(start.getTime() + 10_000).toISOString(),
        usage: JSON.stringify(usage),
        cost: 0.0123,
        server_id: 'srv-another-server',
      })
      .where('id', '=', dead.id)
      .execute();

    app.clock.advance(Math.max(STALE_REGISTERED_MS, STALE_HEARTBEAT_MS, IDLE_CHAT_MS) + 1000);
    const later = app.clock.now().toISOString();
    await db.updateTable('call_sessions').set({ heartbeat_at: later }).where('id', '=', alive.id).execute();
    await db.updateTable('call_sessions').set({ updated_at: later }).where('id', '=', busy.id).execute();

    expect(await sweepCalls(app.deps)).toEqual({ removed: 1, ended: 2 });
    const rows = await db.selectFrom('call_sessions').select(['id', 'status', 'disconnection_reason']).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.has(never.id)).toBe(false);
    expect(byId.get(dead.id)).toMatchObject({ status: 'error', disconnection_reason: 'error_unknown' });
    expect(byId.get(idle.id)).toMatchObject({ status: 'ended', disconnection_reason: 'inactivity' });
    expect(byId.get(alive.id)?.status).toBe('ongoing');
    expect(byId.get(busy.id)?.status).toBe('ongoing');
    const calls = await db
      .selectFrom('calls')
      .select(['id', 'status', 'duration', 'cost'])
      .where('company_id', '=', user.companyId)
      .execute();
    expect(calls.map((c) => c.id).sort()).toEqual([dead.id, idle.id].sort());
    // stored from its last progress, ended at its last heartbeat (not when the sweeper found it)
    expect(calls.find((c) => c.id === dead.id)).toMatchObject({ duration: 10, cost: 0.0123 });
    const deadRow = await db.selectFrom('call_sessions').selectAll().where('id', '=', dead.id).executeTakeFirstOrThrow();
    expect(JSON.parse(deadRow.usage)).toMatchObject({ stt_seconds: 4.2, llm_output_tokens: 40, tts_characters: 120 });
    expect(deadRow.ended_at).toBe(new Date(start.getTime() + 10_000).toISOString());
    // a second sweep (another server) ends nothing twice
    expect(await sweepCalls(app.deps)).toEqual({ removed: 0, ended: 0 });
  });
});
