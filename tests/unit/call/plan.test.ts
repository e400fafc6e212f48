import { AGENT_EDITOR_DEFAULTS } from '@contract/agent/defaults.js';
import { describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';

const registry = createProviderRegistry();

import {
  agentDocOrUndefined,
  compileCallPlan,
  InvalidAgentError,
  parseAgentDoc,
  REALTIME_VOICE,
  voiceOptions,
} from '../../../server/voice/engine/plan.js';
import { sessionInput } from '../../../server/voice/engine/settings.js';

/** A stored agent document as an older version wrote it: no editor object at all. */
const stored = (patch: { model?: string; voice?: string; speed?: number; editor?: Record<string, unknown> } = {}) => ({
  name: 'Front desk',
  prompt: 'You help {{patient}} at {{clinic}}.',
  message: '  Hello {{patient}}!  ',
  settings: {
    llm: { options: { model: patch.model ?? 'gpt-4o' } },
    tts: {
      options: {
        voice_id: patch.voice ?? 'voice-1',
        model: 'turbo',
        ...(patch.speed !== undefined ? { speed: patch.speed } : {}),
      },
    },
    stt: { options: { language: 'en-US' } },
  },
  ...(patch.editor ? { editor: patch.editor } : {}),
});

describe('the stored agent document', () => {
  it('is validated with the contract: defaults filled for fields an older version did not write', () => {
    const doc = parseAgentDoc(JSON.stringify(stored()));
    expect(doc.editor).toEqual(AGENT_EDITOR_DEFAULTS);
    expect(doc.settings.tts.options).toMatchObject({ speed: 1, stability: 0.5, similarity: 0.75 });
    expect(doc.settings.stt.options.model).toBe('nova-2');
    // an object is taken as well as its JSON text
    expect(parseAgentDoc(stored())).toEqual(doc);
  });

  it('is refused with the fields that fail, at most three of them', () => {
    const bad = stored({ model: 'gpt-retired', voice: '' });
    expect(() => parseAgentDoc(bad)).toThrow(InvalidAgentError);
    const e = (() => {
      try {
        parseAgentDoc({ ...bad, editor: { responsiveness: 7, interruption: -1, reminderTimes: 'often' } });
      } catch (err) {
        return err as InvalidAgentError;
      }
    })();
    expect(e?.problems).toHaveLength(3);
    expect(e?.problems[0]).toBe('settings.llm.options.model: Choose one of the listed LLM models');
    expect(e?.message).toMatch(/^The agent's settings are not valid \(settings\.llm\.options\.model: .*\)\. Open the agent/);
    expect(() => parseAgentDoc('{not json')).toThrow('the document is not JSON');
    expect(() => parseAgentDoc('{}')).toThrow(InvalidAgentError);
  });

  it('is undefined where a call is only stored, never run', () => {
    expect(agentDocOrUndefined('{}')).toBeUndefined();
    expect(agentDocOrUndefined(JSON.stringify(stored()))?.name).toBe('Front desk');
  });
});

describe('the call plan', () => {
  const variables = { patient: 'Ruth', clinic: 'the clinic' };

  it('compiles a voice call: greeting and prompt filled, machine input, voice and speech settings', () => {
    const agent = parseAgentDoc(
      stored({
        speed: 1.3,
        editor: {
          boostedKeywords: 'Parley, Ruth',
          backchannelWords: 'mm-hmm, I see',
          selectedKnowledgeBases: [
            { knowledge_base_id: 'kb1', knowledge_base_name: 'Hours' },
            { knowledge_base_name: 'Not uploaded yet' },
          ],
          functions: [{ id: 1, name: 'hang_up', type: 'end_call' }],
        },
      }),
    );
    const plan = compileCallPlan(agent, 'voice', variables, registry);
    expect(plan.session).toEqual(sessionInput(agent, 'voice', 'Hello Ruth!'));
    expect(plan.prompt).toBe('You help Ruth at the clinic.');
    expect(plan.pipeline).toMatchObject({ mode: 'cascade', tts: 'elevenlabs', stt: 'deepgram', llm: { provider: 'openai' } });
    expect(plan.stt).toEqual({ language: 'en-US', model: 'nova-2', keywords: ['Parley', 'Ruth'] });
    expect(plan.voice).toMatchObject({
      voiceId: 'voice-1',
      speed: 1.3,
      stability: 0.5,
      similarity: 0.75,
      volume: 1,
      ssml: false,
    });
    expect(plan.knowledgeBaseIds).toEqual(['kb1']);
    expect(plan.tools.map((t) => [t.type, t.spec.name])).toEqual([['end_call', 'hang_up']]);
    expect(plan.backchannel).toEqual({ words: 'mm-hmm, I see', frequency: 0.8 });
    expect(plan.realtime).toBeNull();
    expect(plan.llm).toEqual({ editorModel: 'gpt-4o', temperature: 0 });

    const options = voiceOptions(plan.voice, undefined, 'https://tts.example', { encoding: 'mulaw', sampleRate: 8000 });
    expect(options).toMatchObject({ apiKey: '', baseUrl: 'https://tts.example', voiceId: 'voice-1', speed: 1.3 });
    expect(voiceOptions(plan.voice, { apiKey: 'k', baseUrl: 'https://own' }, 'x', options.format)).toMatchObject({
      apiKey: 'k',
      baseUrl: 'https://own',
    });
  });

  it('compiles a chat: no greeting (it is in the transcript), no voice timers, no backchannel', () => {
    const agent = parseAgentDoc(stored());
    const plan = compileCallPlan(agent, 'text', variables, registry);
    expect(plan.session).toEqual(sessionInput(agent, 'text', ''));
    expect(plan.session.greeting).toBe('');
    expect(plan.backchannel).toBeNull();
    expect(plan.realtime).toBeNull();
  });

  it('compiles a Realtime agent: the session instead of a backchannel, an OpenAI voice, the warmer temperature', () => {
    const agent = parseAgentDoc(stored({ model: 'gpt-4o-realtime', editor: { responsiveness: 0 } }));
    const plan = compileCallPlan(agent, 'voice', variables, registry);
    expect(plan.pipeline.mode).toBe('realtime');
    expect(plan.session).toEqual(sessionInput(agent, 'voice', 'Hello Ruth!', true));
    expect(plan.backchannel).toBeNull();
    expect(plan.realtime).toEqual({ voice: REALTIME_VOICE, temperature: 0.6, silenceMs: 1500 });
    const own = compileCallPlan(parseAgentDoc(stored({ model: 'gpt-4o-realtime', voice: 'marin' })), 'voice', {}, registry);
    expect(own.realtime?.voice).toBe('marin');
  });
});

describe('a conversation-flow agent', () => {
  const flow = {
    start_node_id: 'a',
    nodes: [
      {
        id: 'a',
        type: 'conversation',
        name: 'A',
        instruction: { type: 'prompt', text: 'Hi' },
        edges: [{ id: 'e', to: 'b', condition: { type: 'always' } }],
      },
      { id: 'b', type: 'end', name: 'B', edges: [] },
    ],
  };
  it('plans its flow; a single-prompt agent has none', () => {
    const plan = compileCallPlan(parseAgentDoc({ ...stored(), kind: 'conversation_flow', flow }), 'text', {}, registry);
    expect(plan.flow?.start_node_id).toBe('a');
    expect(compileCallPlan(parseAgentDoc(stored()), 'text', {}, registry).flow).toBeNull();
    expect(compileCallPlan(parseAgentDoc({ ...stored(), flow }), 'text', {}, registry).flow).toBeNull();
  });
  it('is refused on a speech-to-speech model, with a message that says what to change', () => {
    const doc = parseAgentDoc({ ...stored({ model: 'gpt-4o-realtime' }), kind: 'conversation_flow', flow });
    expect(() => compileCallPlan(doc, 'voice', {}, registry)).toThrow(/a conversation flow runs on a text model/);
  });
});
