import fs from 'node:fs';
import path from 'node:path';
import { insertCalls } from '../../../server/modules/calls/call.repo.js';
import { recordingsDir } from '../../../server/modules/calls/detail.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import type { TestApp } from '../helpers.js';

/** Personal data spoken in the seeded calls: found nowhere once their content is removed. */
export const PII = { phone: '+1 (415) 555-0142', email: 'jane.roe.canary@example.com', birth: '1984-07-19' };
export const PII_VALUES = Object.values(PII);

/**
 * An ended call of `companyId` created at `time` with content everywhere a call keeps some: its session's
 * transcript (with a function call), dynamic variables and recording file, its analysis (summary and an
 * extracted field), and a pending webhook delivery carrying it.
 */
export async function seedCallWithContent(t: TestApp, companyId: string, time: Date, status = 'ended'): Promise<string> {
  const db = t.deps.db.db;
  const id = newId(time);
  const at = time.toISOString();
  await insertCalls(db, [
    {
      id,
      company_id: companyId,
      agent_id: null,
      time: at,
      from_number: '+14155550100',
      to_number: '+14155550199',
      phone_number: '+14155550199',
      duration: 95,
      type: 'inbound',
      cost: 0.12,
      disconnection_reason: 'user_hangup',
      status: 'ended',
      call_successful: 1,
      latency_ms: 820,
    },
  ]);
  const transcript = [
    { role: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1200 },
    {
      role: 'user',
      text: `I am Jane, born ${PII.birth}, call me at ${PII.phone} or ${PII.email}`,
      start_ms: 1500,
      end_ms: 6000,
    },
    {
      role: 'agent',
      text: 'Booked.',
      start_ms: 6500,
      end_ms: 7000,
      tool_calls: [{ name: 'book', arguments: { email: PII.email }, status: 'ok', result: `booked for ${PII.phone}` }],
    },
  ];
  const dir = recordingsDir(t.deps.config.dataDir, companyId);
  await fs.promises.mkdir(dir, { recursive: true });
  await fs.promises.writeFile(path.join(dir, `${id}.wav`), Buffer.from(`RIFF....WAVE ${PII.phone}`));
  await db
    .insertInto('call_sessions')
    .values({
      id,
      company_id: companyId,
      account_id: null,
      agent_id: null,
      agent_name: 'Ava',
      agent: '{}',
      type: 'inbound',
      from_number: '+14155550100',
      to_number: '+14155550199',
      phone_number: '+14155550199',
      status,
      dynamic_variables: JSON.stringify({ patient_email: PII.email }),
      started_at: at,
      ended_at: new Date(time.getTime() + 95_000).toISOString(),
      disconnection_reason: 'user_hangup',
      error_message: null,
      transcript: JSON.stringify(transcript),
      latency: JSON.stringify([{ turn: 0, total_ms: 820, stt_ms: 200, wait_ms: 100, llm_ms: 300, tts_ms: 220 }]),
      usage: '{}',
      cost: 0.12,
      recording: `${id}.wav`,
      token_hash: null,
      token_expires_at: null,
      server_id: null,
      heartbeat_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('call_analyses')
    .values({
      call_id: id,
      company_id: companyId,
      status: 'done',
      attempts: 1,
      next_attempt_at: at,
      lease_until: null,
      worker: null,
      result: JSON.stringify({
        summary: `Jane (${PII.phone}) booked`,
        sentiment: 'positive',
        successful: true,
        custom: { email: PII.email },
      }),
      error: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: newId(time),
      company_id: companyId,
      target: 'company',
      agent_id: null,
      url: 'https://hooks.example.com/parley',
      event: 'call_analyzed',
      call_id: id,
      payload: JSON.stringify({
        event: 'call_analyzed',
        call: { call_id: id, transcript, dynamic_variables: { patient_email: PII.email }, analysis: { summary: PII.phone } },
      }),
      status: 'pending',
      attempts: 1,
      next_attempt_at: new Date(time.getTime() + 3_600_000).toISOString(),
      lease_until: null,
      worker: null,
      status_code: 500,
      duration_ms: 10,
      error: null,
      request_body: JSON.stringify({ transcript }),
      response_body: null,
      attempted_at: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** Every stored trace of the call that holds personal data: its rows as text and its recording file. */
export async function traces(t: TestApp, companyId: string, id: string): Promise<string> {
  const db = t.deps.db.db;
  const rows = await Promise.all([
    db.selectFrom('call_sessions').selectAll().where('id', '=', id).execute(),
    db.selectFrom('call_analyses').selectAll().where('call_id', '=', id).execute(),
    db.selectFrom('webhook_deliveries').selectAll().where('call_id', '=', id).execute(),
  ]);
  const file = await fs.promises
    .readFile(path.join(recordingsDir(t.deps.config.dataDir, companyId), `${id}.wav`), 'utf8')
    .catch(() => '');
  return JSON.stringify(rows) + file;
}

export const holdsPii = (text: string) => PII_VALUES.some((p) => text.includes(p));
