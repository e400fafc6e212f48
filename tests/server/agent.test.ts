import * as v from 'valibot';
import { expect, it } from 'vitest';
import { docOf, insertAgentRows, newAgentRow, SEARCH_FIRST_READ } from '../../server/modules/agents/agent.repo.js';
import type { AgentEditorInput } from '../../src/api/contract/agent/editor.js';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form.js';
import { AGENT_MESSAGES } from '../../src/api/contract/agent/messages.js';
import type { Agent, AgentListItem } from '../../src/api/contract/agent/responses.js';
import { type AgentSavePayloadInput, AgentSavePayloadSchema } from '../../src/api/contract/agent/save.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  return { status: res.status, body: (await res.json()) as Body };
}

/** A valid save payload built the way the editor builds it. */
function payload(name: string, over: Partial<typeof AGENT_EDITOR_FORM_DEFAULTS> = {}): AgentSavePayloadInput {
  return editorFormToSavePayload({
    ...AGENT_EDITOR_FORM_DEFAULTS,
    voice: 'Rachel',
    voiceId: 'voice-a',
    agentName: name,
    ...over,
  });
}

async function create(t: TestApp, token: string, body: unknown) {
  const res = await call(t, 'POST', '/agent', { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.agent as Agent;
}

const list = (t: TestApp, token: string, params: Record<string, string>) =>
  call(t, 'GET', `/agent?${new URLSearchParams(params)}`, { token });
const names = (res: { body: Body }) => (res.body.data.agents as Agent[]).map((a) => a.agent_name);

/** A user whose company has no agent yet (the sample agent removed). */
async function emptyCompany(t: TestApp) {
  const user = await signUp(t);
  const { body } = await list(t, user.token, {});
  for (const a of body.data.agents as Agent[])
    expect((await call(t, 'DELETE', `/agent/${a._id}`, { token: user.token })).status).toBe(200);
  return user;
}

/** Every editor field set to a value that is not its default. */
const FULL_EDITOR: AgentEditorInput = {
  voice: 'Adam',
  llmSettings: { temperature: 0.3, structuredOutput: true, highPriority: true },
  voiceSettings: { model: 'turbo25', speed: 1.4, temperature: 0.6, volume: 0.5 },
  dynamicVariables: [
    { name: 'patient_name', value: 'Ada' },
    { name: 'clinic', value: 'North' },
    { name: 'day', value: 'Monday' },
  ],
  backgroundSound: 'Coffee shop',
  ambientSoundVolume: 0.4,
  responsiveness: 0.6,
  interruption: 0.3,
  backchanneling: false,
  backchannelFrequency: 0.2,
  backchannelWords: 'yeah, uh-huh, right',
  speechNormalization: false,
  disableTranscriptFormatting: true,
  boostedKeywords: 'Parley, nurse, appointment',
  reminderSeconds: 25,
  reminderTimes: 3,
  voicemailDetection: false,
  voicemailAction: 'hang',
  voicemailMessage: 'Hi {{patient_name}}, please call {{clinic}} back.',
  voicemailDetectionDuration: 45,
  endCallOnSilence: 2.5,
  maxCallDuration: 1.5,
  pauseBeforeSpeaking: 1.2,
  sensitiveDataStorage: false,
  dataStorage: 'metadata_only',
  redactRecordings: true,
  recordingNotice: 'This call may be recorded.',
  recordCalls: false,
  inboundCallWebhook: 'https://hooks.example.com/inbound',
  agentLevelWebhook: 'https://hooks.example.com/agent?x=1',
  functions: [
    { id: 1, name: 'hang_up', description: 'End politely', type: 'end_call' },
    {
      id: 2,
      name: 'to_nurse',
      description: '',
      type: 'transfer',
      number: '+14155550142',
      mode: 'warm',
      speak_during: 'Let me get the nurse.',
      timeout_ms: 20_000,
    },
    {
      id: 3,
      name: 'find_slot',
      description: 'Free times',
      type: 'check_availability_cal',
      event_type_id: 42,
      timezone: 'America/New_York',
      speak_during: '',
      timeout_ms: 8000,
    },
  ],
  dtmf_max_digits: 4,
  dtmf_timeout_ms: 5000,
  selectedKnowledgeBases: [
    {
      knowledge_base_id: 'kb1',
      knowledge_base_name: 'FAQ',
      knowledge_base_sources: [
        { filename: 'faq.md', type: 'text/markdown', file_size: 1234, file_url: '/api/v1/files/faq.md' },
        { filename: 'notes', type: 'text', content: 'Opening hours are 10 to 5.' },
      ],
      enable_auto_refresh: true,
      status: 'complete',
      user_modified_timestamp: 1764000000000,
    },
  ],
  pronunciations: [
    { id: 'p1', word: 'Parley', type: 'IPA', phoneme: 'ˈpɑːrli' },
    { id: 'p2', word: 'nurse', type: 'CMU', phoneme: 'N ER1 S' },
  ],
  postCallAnalysisData: 'Was an appointment booked?',
  postCallAnalysisFields: [
    { name: 'booked_day', type: 'text', description: 'The day booked', choices: [] },
    { name: 'urgency', type: 'enum', description: '', choices: ['low', 'high'] },
  ],
};

describeEachDb('agents', (kind) => {
  const t = useTestApp(kind);

  it('creates the sample agent for every new company', async () => {
    const { token, companyId, accountId } = await signUp(t());
    const res = await list(t(), token, {});
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.total).toBe(1);
    const listed = res.body.data.agents[0] as AgentListItem;
    expect(listed).toMatchObject({
      agent_name: 'Health Receptionist',
      name: 'Health Receptionist',
      company: companyId,
      account: accountId,
    });
    expect(listed.settings.llm.options.model).toBe('gpt-4o');
    expect(listed.settings.tts.options.voice_id).toBeTruthy();
    expect(listed.version).toBe(1);
    // the list leaves out the long texts and the editor object; GET /agent/{id} has everything
    expect(listed).not.toHaveProperty('prompt');
    expect(listed).not.toHaveProperty('editor');
    const sample = (await call(t(), 'GET', `/agent/${listed._id}`, { token })).body.data.agent as Agent;
    expect(sample).toMatchObject(listed);
    expect(sample.prompt).toContain('elderly patients');
    expect(sample.prompt).toContain('10:00 AM to 5:00 PM');
    expect(sample.message).toBeTruthy();
    expect(sample.editor.functions).toHaveLength(1);
  });

  it('creates, reads, updates and deletes an agent', async () => {
    const { token, companyId, accountId } = await emptyCompany(t());
    const created = await create(t(), token, { ...payload('Front desk'), company: 'someone-else', account: 'nobody' });
    expect(created).toMatchObject({
      agent_name: 'Front desk',
      name: 'Front desk',
      company: companyId,
      account: accountId,
      version: 1,
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
      voice_id: 'voice-a',
      voice_model: 'auto',
      language: 'en-US',
    });
    expect(created._id).toMatch(/^[0-9a-f]{24}$/);
    expect((await call(t(), 'GET', `/agent/${created._id}`, { token })).body.data.agent).toEqual(created);

    t().clock.advance(60_000);
    const put = await call(t(), 'PUT', `/agent/${created._id}`, {
      token,
      body: { ...payload('Front desk 2'), prompt: 'New prompt' },
    });
    expect(put.status).toBe(200);
    expect(put.body.msg).toBe(AGENT_MESSAGES.updated);
    expect(put.body.data.agent).toMatchObject({
      agent_name: 'Front desk 2',
      prompt: 'New prompt',
      version: 2,
      createdAt: created.createdAt,
      updatedAt: '2026-11-22T10:01:00.000Z',
    });
    expect((await call(t(), 'GET', `/agent/${created._id}`, { token })).body.data.agent).toEqual(put.body.data.agent);

    const del = await call(t(), 'DELETE', `/agent/${created._id}`, { token });
    expect(del).toEqual({ status: 200, body: { success: true, msg: AGENT_MESSAGES.deleted, data: { _id: created._id } } });
    expect((await call(t(), 'GET', `/agent/${created._id}`, { token })).status).toBe(404);
    expect((await call(t(), 'DELETE', `/agent/${created._id}`, { token })).status).toBe(404);
    expect((await list(t(), token, {})).body.data).toEqual({ agents: [], total: 0 });
  });

  it('pages the list: first, middle, last and past the end', async () => {
    const { token } = await emptyCompany(t());
    for (let i = 1; i <= 25; i++) await create(t(), token, payload(`Agent ${String(i).padStart(2, '0')}`));
    const sort = JSON.stringify({ agent_name: 1 });
    const page = async (p: number) => {
      const res = await list(t(), token, { page: String(p), limit: '10', sort });
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(25);
      return names(res);
    };
    const nums = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `Agent ${String(from + i).padStart(2, '0')}`);
    expect(await page(1)).toEqual(nums(1, 10));
    expect(await page(2)).toEqual(nums(11, 20));
    expect(await page(3)).toEqual(nums(21, 25));
    expect(await page(4)).toEqual([]);
    // defaults: page 1, limit 10, most recently updated first (ties by id: newest first)
    const dflt = await list(t(), token, {});
    expect(names(dflt)).toEqual(nums(16, 25).reverse());
    expect(names(await list(t(), token, { limit: '100', sort }))).toEqual(nums(1, 25));
  });

  it('searches agent_name case-insensitively as a substring, wildcards taken literally', async () => {
    const { token } = await emptyCompany(t());
    for (const n of ['Nurse Line', 'night NURSE', 'Billing', '50% off', '50x off', 'a_b', 'axb', 'back\\slash'])
      await create(t(), token, payload(n));
    const search = async (s: string) => names(await list(t(), token, { search: s, limit: '100', sort: '{"agent_name":1}' }));
    expect(await search('nUrSe')).toEqual(['night NURSE', 'Nurse Line']);
    expect(await search('%')).toEqual(['50% off']);
    expect(await search('_')).toEqual(['a_b']);
    expect(await search('\\')).toEqual(['back\\slash']);
    expect(await search('zzz')).toEqual([]);
    const res = await list(t(), token, { search: 'nurse', limit: '1' });
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.agents).toHaveLength(1);
    // URL-encoded by hand
    const raw = await call(t(), 'GET', '/agent?search=50%25%20off', { token });
    expect(names(raw)).toEqual(['50% off']);
  });

  it('a search answers the same pages and total on both sides of its first read', async () => {
    const { token, companyId, accountId } = await emptyCompany(t());
    const doc = docOf(v.parse(AgentSavePayloadSchema, payload('x')));
    const now = t().clock.now();
    // SEARCH_FIRST_READ + 5 matches and 7 others, inserted directly (many agents, quickly)
    const name = (i: number) => (i < SEARCH_FIRST_READ + 5 ? `Match ${String(i).padStart(3, '0')}` : `Other ${i}`);
    const rows = Array.from({ length: SEARCH_FIRST_READ + 12 }, (_, i) =>
      newAgentRow({ companyId, accountId, doc: { ...doc, name: name(i) }, now: new Date(now.getTime() + i) }),
    );
    await insertAgentRows(t().deps.db.db, rows);
    const sort = '{"agent_name":1}';
    const page = async (search: string, p: number, limit = 10) =>
      (await list(t(), token, { search, page: String(p), limit: String(limit), sort })).body.data;
    const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => name(from + i));

    // more matches than the first read: the total comes from the count
    const first = await page('match', 1);
    expect(first.total).toBe(SEARCH_FIRST_READ + 5);
    expect(first.agents.map((a: Agent) => a.agent_name)).toEqual(expected(0, 10));
    const lastInRead = await page('match', SEARCH_FIRST_READ / 10);
    expect(lastInRead.agents.map((a: Agent) => a.agent_name)).toEqual(expected(SEARCH_FIRST_READ - 10, SEARCH_FIRST_READ));
    const beyond = await page('match', SEARCH_FIRST_READ / 10 + 1);
    expect(beyond.total).toBe(SEARCH_FIRST_READ + 5);
    expect(beyond.agents.map((a: Agent) => a.agent_name)).toEqual(expected(SEARCH_FIRST_READ, SEARCH_FIRST_READ + 5));
    // exactly as many matches as the first read, and fewer
    const exact = await page('match 0', 1, 100);
    expect(exact.total).toBe(100);
    expect(exact.agents).toHaveLength(100);
    const few = await page('match 10', 2, 3);
    expect(few.total).toBe(5);
    expect(few.agents.map((a: Agent) => a.agent_name)).toEqual(['Match 103', 'Match 104']);
    // past the end of a few-match search: no rows, the right total
    expect(await page('match 10', 3, 3)).toEqual({ agents: [], total: 5 });
  });

  it('sorts over several keys in key order, names case-insensitively', async () => {
    const { token } = await emptyCompany(t());
    const mk = async (name: string, voiceId: string) => {
      t().clock.advance(1000);
      return create(t(), token, payload(name, { voiceId }));
    };
    const b1 = await mk('beta', 'v2');
    const a1 = await mk('Alpha', 'v1');
    const b2 = await mk('Beta', 'v1');
    const a2 = await mk('alpha', 'v3');
    const ids = (res: { body: Body }) => (res.body.data.agents as Agent[]).map((a) => a._id);

    const byNameThenNewest = await list(t(), token, { sort: JSON.stringify({ agent_name: 1, updatedAt: -1 }) });
    expect(ids(byNameThenNewest)).toEqual([a2._id, a1._id, b2._id, b1._id]);
    const byNameDescThenOldest = await list(t(), token, { sort: JSON.stringify({ agent_name: -1, updatedAt: 1 }) });
    expect(ids(byNameDescThenOldest)).toEqual([b1._id, b2._id, a1._id, a2._id]);
    // key order matters: voice first, then name
    const byVoice = await list(t(), token, { sort: JSON.stringify({ voice_id: 1, agent_name: -1 }) });
    expect(ids(byVoice)).toEqual([b2._id, a1._id, b1._id, a2._id]);
    // equal names: newest first; Z-A is exactly the reverse of A-Z
    const az = ids(await list(t(), token, { sort: '{"agent_name":1}' }));
    expect(az).toEqual([a2._id, a1._id, b2._id, b1._id]);
    expect(ids(await list(t(), token, { sort: '{"agent_name":-1}' }))).toEqual([...az].reverse());
    const oldest = await list(t(), token, { sort: JSON.stringify({ createdAt: 1 }) });
    expect(ids(oldest)).toEqual([b1._id, a1._id, b2._id, a2._id]);

    // an update moves the agent in the updatedAt order and in the voice_model order
    t().clock.advance(1000);
    expect((await call(t(), 'PUT', `/agent/${b1._id}`, { token, body: { voice_model: 'turbo' } })).status).toBe(200);
    expect(ids(await list(t(), token, { sort: '{"updatedAt":-1}' }))[0]).toBe(b1._id);
    expect(ids(await list(t(), token, { sort: '{"voice_model":-1}' }))[0]).toBe(b1._id);
  });

  it('answers 400 naming the parameter for bad query parameters', async () => {
    const { token } = await signUp(t());
    const cases: [Record<string, string>, string][] = [
      [{ page: '0' }, 'page'],
      [{ page: '-1' }, 'page'],
      [{ page: 'abc' }, 'page'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '1000' }, 'limit'],
      [{ limit: '2.5' }, 'limit'],
      [{ sort: 'not-json' }, 'sort'],
      [{ sort: '{"password":1}' }, 'sort'],
      [{ sort: '{"agent_name":2}' }, 'sort'],
      [{ sort: '{"agent_name":"asc"}' }, 'sort'],
      [{ sort: '[["agent_name",1]]' }, 'sort'],
      [{ search: 'x'.repeat(201) }, 'search'],
    ];
    for (const [params, name] of cases) {
      const res = await list(t(), token, params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.msg).toMatch(new RegExp(`^Invalid query parameter '${name}': `));
      expect(res.body.errors[name]).toBeTruthy();
    }
    expect((await list(t(), token, { sort: '{"password":1}' })).body.msg).toContain("'password'");
    expect((await list(t(), token, { page: '1', limit: '100', sort: '{}' })).status).toBe(200);
  });

  it('validates create and update bodies with the contract messages', async () => {
    const { token } = await emptyCompany(t());
    const bad = async (method: string, url: string, body: unknown, field: string, msg: string) => {
      const res = await call(t(), method, url, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[field]).toBe(msg);
    };
    const base = payload('Valid');
    await bad('POST', '/agent', { ...base, name: '  ' }, 'name', AGENT_MESSAGES.agentNameRequired);
    await bad('POST', '/agent', { settings: base.settings }, 'name', AGENT_MESSAGES.agentNameRequired);
    const s = base.settings;
    await bad(
      'POST',
      '/agent',
      { ...base, settings: { ...s, llm: { options: { model: '' } } } },
      'settings.llm.options.model',
      AGENT_MESSAGES.llmModelRequired,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, settings: { ...s, tts: { options: { ...s.tts.options, voice_id: '' } } } },
      'settings.tts.options.voice_id',
      AGENT_MESSAGES.voiceRequired,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, settings: { ...s, stt: { options: { language: '' } } } },
      'settings.stt.options.language',
      AGENT_MESSAGES.languageRequired,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, settings: { ...s, stt: { options: { language: 'hi' } } } },
      'settings.stt.options.language',
      AGENT_MESSAGES.unknownLanguage,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, editor: { responsiveness: 1.5 } },
      'editor.responsiveness',
      AGENT_MESSAGES.between(0, 1),
    );
    await bad(
      'POST',
      '/agent',
      { ...base, editor: { inboundCallWebhook: 'not a url' } },
      'editor.inboundCallWebhook',
      AGENT_MESSAGES.invalidUrl,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, editor: { voicemailAction: 'ignore' } },
      'editor.voicemailAction',
      'Voicemail action must be hang or leave',
    );
    await bad(
      'POST',
      '/agent',
      {
        ...base,
        editor: {
          functions: [
            { id: 1, name: 'a', type: 'end_call' },
            { id: 2, name: 'b', type: 'end_call' },
          ],
        },
      },
      'editor.functions',
      AGENT_MESSAGES.functionTypeOnce,
    );
    await bad(
      'POST',
      '/agent',
      { ...base, editor: { pronunciations: [{ id: 'x', word: 'a', type: 'XSAMPA', phoneme: 'a' }] } },
      'editor.pronunciations.0.type',
      'Pronunciation type must be IPA or CMU',
    );
    await bad(
      'POST',
      '/agent',
      { ...base, editor: { reminderSeconds: -1 } },
      'editor.reminderSeconds',
      AGENT_MESSAGES.nonNegative,
    );
    expect((await call(t(), 'POST', '/agent', { token, body: '{not json' })).status).toBe(400);
    expect((await list(t(), token, {})).body.data.total).toBe(0);

    const agent = await create(t(), token, base);
    const url = `/agent/${agent._id}`;
    await bad('PUT', url, { agent_name: '' }, 'agent_name', AGENT_MESSAGES.agentNameRequired);
    await bad('PUT', url, { voice_id: ' ' }, 'voice_id', AGENT_MESSAGES.voiceIdRequired);
    await bad('PUT', url, { voice_model: '' }, 'voice_model', AGENT_MESSAGES.voiceModelRequired);
    await bad('PUT', url, { language: '' }, 'language', AGENT_MESSAGES.languageRequired);
    await bad('PUT', url, { voice_temperature: 2.1 }, 'voice_temperature', AGENT_MESSAGES.between(0, 2));
    await bad('PUT', url, { voice_speed: -0.1 }, 'voice_speed', AGENT_MESSAGES.between(0, 2));
    await bad('PUT', url, { volume: 1.1 }, 'volume', AGENT_MESSAGES.between(0, 1));
    await bad('PUT', url, { ambient_sound_volume: 2 }, 'ambient_sound_volume', AGENT_MESSAGES.between(0, 1));
    await bad('PUT', url, { end_call_after_silence_ms: 0 }, 'end_call_after_silence_ms', AGENT_MESSAGES.positiveInteger);
    await bad('PUT', url, { max_call_duration_ms: 1.5 }, 'max_call_duration_ms', AGENT_MESSAGES.positiveInteger);
    await bad(
      'PUT',
      url,
      { voicemail_detection_timeout_ms: '30000' },
      'voicemail_detection_timeout_ms',
      AGENT_MESSAGES.positiveInteger,
    );
    await bad('PUT', url, { version: 1 }, 'body', AGENT_MESSAGES.nothingToUpdate);
    await bad('PUT', url, { ...base, name: '' }, 'name', AGENT_MESSAGES.agentNameRequired);
    // nothing was written by the failed updates
    expect((await call(t(), 'GET', url, { token })).body.data.agent).toEqual(agent);
  });

  it('maps the Update Agent dialog fields onto the stored document', async () => {
    const { token } = await emptyCompany(t());
    const agent = await create(t(), token, { ...payload('Dialog'), prompt: 'Keep me' });
    // the dialog view of an editor-made agent
    expect(agent).toMatchObject({
      voice_temperature: 1,
      voice_speed: 1,
      volume: 1,
      enable_backchannel: true,
      backchannel_frequency: 0.8,
      interruption_sensitivity: 0.8,
      ambient_sound_volume: 0.7,
      opt_out_sensitive_data_storage: false,
      normalize_for_speech: true,
      end_call_after_silence_ms: 600_000,
      enable_voicemail_detection: true,
      max_call_duration_ms: 3_600_000,
      voicemail_detection_timeout_ms: 30_000,
    });
    const dialog = {
      agent_name: 'Renamed',
      voice_id: 'voice-z',
      voice_model: 'flash25',
      language: 'fr-FR',
      voice_temperature: 1.7,
      voice_speed: 0.3,
      volume: 0.4,
      enable_backchannel: false,
      backchannel_frequency: 0.9,
      interruption_sensitivity: 1,
      ambient_sound_volume: 0.2,
      opt_out_sensitive_data_storage: true,
      normalize_for_speech: false,
      end_call_after_silence_ms: 33_000,
      enable_voicemail_detection: false,
      max_call_duration_ms: 1_242_000,
      voicemail_detection_timeout_ms: 12_000,
      version: 1,
    };
    const res = await call(t(), 'PUT', `/agent/${agent._id}`, { token, body: dialog });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { version: _v, ...fields } = dialog;
    const updated = res.body.data.agent as Agent;
    expect(updated).toMatchObject({ ...fields, name: 'Renamed', prompt: 'Keep me', version: 2 });
    expect(updated.settings.tts.options).toMatchObject({
      voice_id: 'voice-z',
      model: 'flash25',
      speed: 0.3,
      temperature: 1.7,
      volume: 0.4,
    });
    expect(updated.settings.stt.options.language).toBe('fr-FR');
    expect(updated.editor).toMatchObject({
      voiceSettings: { model: 'flash25', speed: 0.3, temperature: 1.7, volume: 0.4 },
      backchanneling: false,
      backchannelFrequency: 0.9,
      interruption: 1,
      ambientSoundVolume: 0.2,
      sensitiveDataStorage: false,
      speechNormalization: false,
      endCallOnSilence: 0.55,
      voicemailDetection: false,
      maxCallDuration: 0.345,
      voicemailDetectionDuration: 12,
    });
    // the list sees the new projections
    const found = await list(t(), token, { search: 'renamed' });
    const { prompt: _p, message: _m, editor: _e, ...item } = updated;
    expect(found.body.data.agents).toEqual([item]);
    // a partial update touches only its field
    const partial = await call(t(), 'PUT', `/agent/${agent._id}`, { token, body: { volume: 0.9 } });
    expect(partial.body.data.agent).toEqual({
      ...updated,
      volume: 0.9,
      settings: {
        ...updated.settings,
        tts: { ...updated.settings.tts, options: { ...updated.settings.tts.options, volume: 0.9 } },
      },
      editor: { ...updated.editor, voiceSettings: { ...updated.editor.voiceSettings, volume: 0.9 } },
      version: 3,
    });
  });

  it('keeps every editor field through save and reload', async () => {
    const { token } = await emptyCompany(t());
    const body = { ...payload('Round trip', { llmModel: 'claude-3.5-sonnet', language: 'ja-JP' }), editor: FULL_EDITOR };
    const created = await create(t(), token, body);
    const reloaded = (await call(t(), 'GET', `/agent/${created._id}`, { token })).body.data.agent as Agent;
    expect(reloaded.editor).toEqual(FULL_EDITOR);
    expect(reloaded.settings).toEqual(body.settings);
    expect(reloaded.message).toBe(body.message);

    const changed = {
      ...FULL_EDITOR,
      pronunciations: [],
      functions: [FULL_EDITOR.functions![1]!],
      postCallAnalysisData: 'Changed',
    };
    const put = await call(t(), 'PUT', `/agent/${created._id}`, { token, body: { ...body, editor: changed, version: 1 } });
    expect(put.status).toBe(200);
    expect((await call(t(), 'GET', `/agent/${created._id}`, { token })).body.data.agent.editor).toEqual(changed);
  });

  it('stores the LLM model and the language code where the corrected payload puts them', async () => {
    const { token } = await emptyCompany(t());
    const body = payload('Corrections', {
      llmModel: 'claude-3.5-haiku',
      language: 'de-DE',
      voiceSettings: { model: 'multilingual_v2', speed: 1, temperature: 1, volume: 1 },
    });
    // the editor's payload builder applies the corrections
    expect(body.settings.llm.options.model).toBe('claude-3.5-haiku');
    expect(body.settings.stt.options.language).toBe('de-DE');
    expect(body.settings.tts.options.model).toBe('multilingual_v2');
    expect(body.settings).toMatchObject({
      llm: { service: 'openai' },
      tts: { service: 'elevenlabs', options: { stability: 0.5, similarity: 0.75 } },
      stt: { service: 'deepgram', options: { model: 'nova-2' } },
    });
    const agent = await create(t(), token, body);
    const listed = (await list(t(), token, {})).body.data.agents[0] as AgentListItem;
    for (const a of [agent, listed]) {
      expect(a.settings.llm.options.model).toBe('claude-3.5-haiku');
      expect(a.settings.tts.options.model).toBe('multilingual_v2');
      expect(a.settings.stt.options.language).toBe('de-DE');
      expect(a.language).toBe('de-DE');
      expect(a.voice_model).toBe('multilingual_v2');
    }
  });

  it('refuses a stale version with 409 and increments on success', async () => {
    const { token } = await emptyCompany(t());
    const agent = await create(t(), token, payload('Versioned'));
    const url = `/agent/${agent._id}`;
    const first = await call(t(), 'PUT', url, { token, body: { agent_name: 'Mine', version: 1 } });
    expect(first.body.data.agent.version).toBe(2);
    const stale = await call(t(), 'PUT', url, { token, body: { agent_name: 'Theirs', version: 1 } });
    expect(stale).toEqual({
      status: 409,
      body: { success: false, msg: 'This agent was changed by someone else. Reload to get the latest version.' },
    });
    const staleSave = await call(t(), 'PUT', url, { token, body: { ...payload('Theirs'), version: 1 } });
    expect(staleSave.status).toBe(409);
    expect((await call(t(), 'GET', url, { token })).body.data.agent).toMatchObject({ agent_name: 'Mine', version: 2 });
    // without a version the last write wins
    const blind = await call(t(), 'PUT', url, { token, body: { ...payload('Blind') } });
    expect(blind.body.data.agent).toMatchObject({ agent_name: 'Blind', version: 3 });
    expect((await call(t(), 'PUT', url, { token, body: { agent_name: 'Fresh', version: 3 } })).body.data.agent.version).toBe(4);
  });

  it('isolates companies on every agent route', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const mine = await create(t(), a.token, payload('Company A secret'));
    const missing = 'ffffffffffffffffffffffff';

    const bList = await list(t(), b.token, { search: 'secret' });
    expect(bList.body.data).toEqual({ agents: [], total: 0 });
    const bAll = await list(t(), b.token, { limit: '100' });
    expect(bAll.body.data.total).toBe(1);
    expect(bAll.body.data.agents[0].company).toBe(b.companyId);

    for (const id of [mine._id, missing, 'not-an-id', '../agent']) {
      const url = `/agent/${encodeURIComponent(id)}`;
      const responses = [
        await call(t(), 'GET', url, { token: b.token }),
        await call(t(), 'PUT', url, { token: b.token, body: { agent_name: 'Stolen' } }),
        await call(t(), 'PUT', url, { token: b.token, body: payload('Stolen') }),
        await call(t(), 'DELETE', url, { token: b.token }),
      ];
      for (const r of responses) expect(r).toEqual({ status: 404, body: { success: false, msg: AGENT_MESSAGES.notFound } });
    }
    // B's create lands in B's company whatever the body claims
    const bAgent = await create(t(), b.token, { ...payload('B agent'), company: a.companyId, account: a.accountId });
    expect(bAgent.company).toBe(b.companyId);
    expect((await list(t(), a.token, { search: 'b agent' })).body.data.total).toBe(0);
    // A's agent is untouched
    expect((await call(t(), 'GET', `/agent/${mine._id}`, { token: a.token })).body.data.agent).toEqual(mine);

    // and nobody without a token gets anything
    for (const [method, url] of [
      ['GET', '/agent'],
      ['GET', `/agent/${mine._id}`],
      ['POST', '/agent'],
      ['PUT', `/agent/${mine._id}`],
      ['DELETE', `/agent/${mine._id}`],
    ] as const) {
      expect(
        (await call(t(), method, url, { body: method === 'POST' || method === 'PUT' ? payload('x') : undefined })).status,
      ).toBe(401);
    }
  });
});
