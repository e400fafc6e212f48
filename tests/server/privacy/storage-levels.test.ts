import fs from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAnalysisWorker } from '../../../server/modules/calls/analysis.js';
import { createWebhookWorker } from '../../../server/modules/webhooks/worker.js';
import type { DB } from '../../../server/platform/db/schema.js';
import { settled } from '../../../server/platform/jobs/later.js';
import { connectProvider, openBrowser, sampleAgent, savePayload, useCallServer, waitFor } from '../call/harness.js';
import { InProcessProviders, tone } from '../call/in-process-providers.js';
import { describeEachDb, LOG_LINES } from '../helpers.js';
import { WebhookReceiver } from '../webhooks/receiver.js';

/**
 * Each data-storage level end to end: a web call in which the caller gives a phone number, an email and a
 * birth date (and the agent repeats them, and passes one to a function); then every place the call could
 * leak is searched for them: every table of the database, the recordings folder, the webhook receiver's
 * bodies (call_started, call_ended, call_analyzed), the server's log lines and the Call History CSV export.
 */
const CALLER =
  'Hi, my name is Ruth Okafor, my number is five five five, one two three, four five six seven, my email is ruth dot okafor at gmail dot com and I was born on March third nineteen forty-two.';
const AGENT = 'Thank you Ruth, I have five five five, one two three, four five six seven. Goodbye!';
/** what must not be kept anywhere below 'everything' */
// (short digit runs like '4567' are left out: ids and hashes may hold them)
const NEEDLES = ['Okafor', 'okafor', 'five five five', 'gmail', 'forty-two', 'Ruth', '123 4567', '1234567'];
/**
 * What only the caller said (not the company's own dynamic variables, which the call's row holds while the
 * call is live and SQLite's write-ahead log may keep until its pages are overwritten): searched for in the
 * database's bytes on disk.
 */
const SPOKEN = ['five five five', 'gmail', 'forty-two', '123 4567', 'dot okafor'];

async function everyRow(db: Kysely<DB>, kind: string): Promise<string> {
  const names =
    kind === 'postgres'
      ? (
          await sql<{ table_name: string }>`select table_name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows.map((r) => r.table_name)
      : (await db.introspection.getTables()).filter((t) => !t.isView).map((t) => t.name);
  const out: string[] = [];
  for (const name of names) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(db);
    out.push(`${name}: ${JSON.stringify(rows.rows)}`);
  }
  return out.join('\n');
}

/** SQLite: the database file and its write-ahead log as bytes (what a disk search would find); '' on PostgreSQL. */
async function databaseFiles(db: Kysely<DB>, kind: string): Promise<string> {
  if (kind !== 'sqlite') return '';
  const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db);
  const file = rows[0]?.file ?? '';
  return [file, `${file}-wal`]
    .filter((f) => f && fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
}

describeEachDb('data storage levels', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    LOG_LINES.length = 0;
  });
  afterEach(async () => {
    await receiver.close();
  });

  async function callAt(dataStorage: string, editor: Record<string, unknown> = {}) {
    const s = server();
    s.t.deps.config.allowPrivateWebhookUrls = true;
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const secret = await s.t.req('POST', '/api/v1/webhook/secret', { token: s.user.token });
    receiver.secret = ((await secret.json()) as { data: { secret: string } }).data.secret;
    receiver.now = () => s.t.clock.now().getTime();
    p.replies = [
      { text: AGENT, toolCalls: [{ name: 'end_call', arguments: { note: 'ruth.okafor@gmail.com, 555 123 4567' } }] },
      // the post-call analysis (it reads the transcript as the level kept it; what it writes is redacted again)
      {
        text: JSON.stringify({
          summary: 'The caller left 555 123 4567 and ruth.okafor@gmail.com.',
          sentiment: 'positive',
          goal_achieved: true,
          custom: {},
        }),
      },
    ];
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: 'Hello {{patient_name}}, this is the clinic.',
          editor: {
            ...(agent.editor as object),
            dataStorage,
            agentLevelWebhook: receiver.url,
            functions: [{ id: 1, name: 'end_call', type: 'end_call' }],
            postCallAnalysisFields: [],
            ...editor,
          },
        }),
        dynamic_variables: { patient_name: 'Ruth Okafor' },
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'greeting heard');
    for (let i = 0; i < 10; i++) browser.send(tone(640, { encoding: 'pcm16', sampleRate: 16000 }));
    await waitFor(() => (p.stt[0]?.audioBytes ?? 0) >= 6400, 'caller audio at the recogniser');
    const stt = p.stt[0]!;
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({ type: 'transcript', text: CALLER, isFinal: true, speechFinal: true, at: performance.now() });
    await browser.closed;
    const callId = data.call_id;
    const db = s.t.deps.db.db;
    await waitFor(async () => {
      await settled(s.t.deps);
      const row = await db.selectFrom('calls').select('id').where('id', '=', callId).executeTakeFirst();
      return row !== undefined;
    }, 'call stored');
    await createAnalysisWorker(s.t.deps).runOnce();
    await settled(s.t.deps);
    const webhooks = createWebhookWorker(s.t.deps);
    await waitFor(async () => {
      await webhooks.runOnce();
      return receiver.accepted.length >= 3;
    }, 'call_started, call_ended and call_analyzed delivered');
    const detailRes = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
    // biome-ignore lint/suspicious/noExplicitAny: the detail's shape is the contract's, read loosely here
    const detail = ((await detailRes.json()) as any).data;
    const link = await s.t.req('POST', '/api/v1/call/export', { token: s.user.token });
    const { url } = ((await link.json()) as { data: { url: string } }).data;
    const csv = await (await s.t.req('GET', url)).text();
    return {
      s,
      callId,
      detail,
      tables: await everyRow(db, kind),
      dbFiles: await databaseFiles(db, kind),
      recordings: filesUnder(path.join(s.t.dataDir, 'recordings')),
      webhooks: receiver.accepted.map((r) => r.body).join('\n'),
      events: receiver.accepted.map((r) => (JSON.parse(r.body) as { event: string }).event).sort(),
      logs: LOG_LINES.join('\n'),
      csv,
      llmHeard: p.llmRequests.map((r) => JSON.stringify(r.messages)).join('\n'),
    };
  }

  const leaks = (where: Record<string, string>, needles = NEEDLES) =>
    Object.entries(where).flatMap(([place, text]) => needles.filter((n) => text.includes(n)).map((n) => `${n} in ${place}`));

  it('everything: the call is kept as heard, with its recording (the searches find what they look for)', async () => {
    const c = await callAt('everything');
    expect(c.detail.content_withheld).toBeNull();
    expect(c.detail.transcript.map((t: { text: string }) => t.text)).toContain(CALLER);
    expect(c.recordings).toEqual([`${c.callId}.wav`]);
    expect(c.events).toEqual(['call_analyzed', 'call_ended', 'call_started']);
    expect(leaks({ tables: c.tables, webhooks: c.webhooks, csv: c.csv })).toEqual(
      expect.arrayContaining(['Okafor in tables', 'gmail in tables', 'Okafor in webhooks', 'okafor in csv']),
    );
    if (kind === 'sqlite') expect(leaks({ dbFiles: c.dbFiles }, SPOKEN)).toContain('gmail in dbFiles');
  });

  it('everything but personal data: markers everywhere, no recording, the model still heard everything', async () => {
    const c = await callAt('everything_but_pii');
    expect(c.llmHeard).toContain(CALLER);
    expect(c.detail.content_withheld).toBe('everything_but_pii');
    expect(c.detail.recording_url).toBeNull();
    const user = c.detail.transcript.find((t: { role: string }) => t.role === 'user').text;
    expect(user).toBe(
      'Hi, my name is [NAME] [NAME], my number is [PHONE], my email is [EMAIL] and I was born on [DATE_OF_BIRTH].',
    );
    expect(c.detail.transcript.at(-1).tool_calls[0].arguments).toEqual({ note: '[EMAIL], [PHONE]' });
    expect(c.detail.dynamic_variables).toMatchObject({ patient_name: '[NAME]', call_type: 'web' });
    expect(c.detail.dynamic_variables.current_time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(c.detail.analysis).toMatchObject({ status: 'done', summary: 'The caller left [PHONE] and [EMAIL].' });
    expect(c.recordings).toEqual([]);
    expect(c.events).toEqual(['call_analyzed', 'call_ended', 'call_started']);
    expect(leaks({ tables: c.tables, webhooks: c.webhooks, logs: c.logs, csv: c.csv })).toEqual([]);
    expect(leaks({ dbFiles: c.dbFiles }, SPOKEN)).toEqual([]);
  });

  it('metadata only: no transcript, recording, analysis text or function calls kept or sent; the call row stays', async () => {
    const c = await callAt('metadata_only');
    expect(c.llmHeard).toContain(CALLER);
    expect(c.detail).toMatchObject({
      content_withheld: 'metadata_only',
      transcript: [],
      recording_url: null,
      dynamic_variables: {},
      status: 'ended',
      disconnection_reason: 'agent_hangup',
    });
    expect(c.detail.latency.length).toBeGreaterThan(0);
    expect(c.detail.cost.total).toBeGreaterThan(0);
    expect(c.detail.analysis).toMatchObject({ status: 'done', summary: null, custom: {} });
    expect(c.recordings).toEqual([]);
    expect(c.events).toEqual(['call_analyzed', 'call_ended', 'call_started']);
    expect(leaks({ tables: c.tables, webhooks: c.webhooks, logs: c.logs, csv: c.csv })).toEqual([]);
    expect(leaks({ dbFiles: c.dbFiles }, SPOKEN)).toEqual([]);
  });

  it('recordCalls off keeps no recording at everything; the recording notice is spoken before the welcome message', async () => {
    const c = await callAt('everything', { recordCalls: false, recordingNotice: 'This call may be recorded.' });
    expect(c.recordings).toEqual([]);
    expect(c.detail.recording_url).toBeNull();
    expect(p.ttsTexts[0]?.text).toBe('This call may be recorded. Hello Ruth Okafor, this is the clinic.');
  });
});
