import * as v from 'valibot';
import { expect, it } from 'vitest';
import {
  AGENT_EDITOR_FORM_DEFAULTS,
  type AgentEditorForm,
  AgentEditorFormSchema,
  agentToEditorForm,
  editorFormToSavePayload,
} from '../../src/api/contract/agent/editor-form.js';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { type KnowledgeBase, toKnowledgeBaseSelection } from '../../src/api/contract/knowledge-base.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  return { status: res.status, body: (await res.json()) as Body };
}

/** Every field of the editor form (the specification's 'Agent editor form') set away from its default, as the editor sends it. */
function fullForm(kb: KnowledgeBase): AgentEditorForm {
  const form: AgentEditorForm = {
    ...structuredClone(AGENT_EDITOR_FORM_DEFAULTS),
    agentName: 'Night line',
    llmModel: 'claude-3-haiku',
    voice: 'Rachel',
    voiceId: '21m00Tcm4TlvDq8ikWAM',
    language: 'pt-BR',
    promptText: `You answer the phone at night.\n${'Be kind. '.repeat(2000)}`,
    llmSettings: { temperature: 0.4, structuredOutput: true, highPriority: true },
    voiceSettings: { model: 'flash25', speed: 1.7, temperature: 0.2, volume: 0.6 },
    welcomeMessage: 'Good evening!',
    dynamicVariables: [{ name: 'patient', value: 'Ada' }],
    backgroundSound: 'Call center',
    ambientSoundVolume: 0.3,
    responsiveness: 0.7,
    interruption: 0.1,
    backchanneling: false,
    backchannelFrequency: 0.4,
    backchannelWords: 'mm, right',
    speechNormalization: false,
    disableTranscriptFormatting: true,
    boostedKeywords: 'Parley, triage',
    reminderSeconds: 15,
    reminderTimes: 2,
    voicemailDetection: true,
    voicemailAction: 'hang',
    voicemailMessage: 'Call {{clinic}} back',
    voicemailDetectionDuration: 12,
    endCallOnSilence: 3.5,
    maxCallDuration: 0.5,
    pauseBeforeSpeaking: 2.2,
    sensitiveDataStorage: false,
    dataStorage: 'metadata_only',
    redactRecordings: true,
    recordingNotice: 'This call may be recorded.',
    recordCalls: false,
    inboundCallWebhook: 'https://hooks.example.com/in',
    agentLevelWebhook: '',
    functions: [
      { id: 1, name: 'bye', description: '', type: 'end_call' },
      {
        id: 2,
        name: 'nurse',
        description: 'To the nurse line',
        type: 'transfer',
        number: '',
        mode: 'cold',
        speak_during: '',
        timeout_ms: 8000,
      },
    ],
    selectedKnowledgeBases: [toKnowledgeBaseSelection(kb)],
    pronunciations: [{ id: 'p1', word: 'triage', type: 'CMU', phoneme: 'T R IY0 AA1 ZH' }],
    postCallAnalysisData: 'Urgent? yes/no',
  };
  // the form is valid by the editor's own rules
  expect(v.safeParse(AgentEditorFormSchema, form).issues).toBeUndefined();
  return form;
}

describeEachDb('agent editor save payload', (kind) => {
  const t = useTestApp(kind);

  it('every editor field survives create, reload and update; a stale version answers 409', async () => {
    const { token } = await signUp(t());
    const upload = new FormData();
    upload.set('knowledge_base_name', 'Night FAQ');
    upload.append('knowledge_base_texts', JSON.stringify({ title: 'Hours', text: 'Open all night.' }));
    const kbRes = await call(t(), 'POST', '/knowledge-base', { token, body: upload });
    const kb = kbRes.body.data.knowledge_base as KnowledgeBase;

    const form = fullForm(kb);
    const payload = editorFormToSavePayload(form, { company: 'ignored', account: 'ignored' });
    // the two corrections: the chosen LLM model and the chosen language code
    expect(payload.settings.llm.options.model).toBe('claude-3-haiku');
    expect(payload.settings.stt.options.language).toBe('pt-BR');
    const created = await call(t(), 'POST', '/agent', { token, body: payload });
    expect(created.status).toBe(201);
    expect(created.body.msg).toBe('New agent created successfully!');
    const id = (created.body.data.agent as Agent)._id;

    const reloaded = (await call(t(), 'GET', `/agent/${id}`, { token })).body.data.agent as Agent;
    expect(agentToEditorForm(reloaded)).toEqual(form);
    expect(reloaded.company).not.toBe('ignored');

    const edited: AgentEditorForm = { ...form, promptText: 'Shorter now.', pronunciations: [], language: 'ko-KR' };
    const put = await call(t(), 'PUT', `/agent/${id}`, { token, body: { ...editorFormToSavePayload(edited), version: 1 } });
    expect(put.status).toBe(200);
    expect(put.body.msg).toBe('Agent updated successfully!');
    expect(put.body.data.agent).toMatchObject({ version: 2, language: 'ko-KR' });
    expect(agentToEditorForm((await call(t(), 'GET', `/agent/${id}`, { token })).body.data.agent)).toEqual(edited);

    const stale = await call(t(), 'PUT', `/agent/${id}`, { token, body: { ...editorFormToSavePayload(form), version: 1 } });
    expect(stale.status).toBe(409);
    expect(agentToEditorForm((await call(t(), 'GET', `/agent/${id}`, { token })).body.data.agent)).toEqual(edited);
  });
});
