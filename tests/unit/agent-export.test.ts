import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { agentDialogFields } from '../../src/api/contract/agent/dialog';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form';
import {
  AGENT_EXPORT_FORMAT,
  AGENT_IMPORT_MESSAGES,
  agentExportFileName,
  agentExportOf,
  parseAgentImport,
} from '../../src/api/contract/agent/export';
import { FLOW_MESSAGES, FlowSchema } from '../../src/api/contract/agent/flow';
import type { Agent } from '../../src/api/contract/agent/responses';
import { AgentSavePayloadSchema } from '../../src/api/contract/agent/save';
import { sampleFlow } from './flow/sample';

const payload = v.parse(
  AgentSavePayloadSchema,
  editorFormToSavePayload({
    ...AGENT_EDITOR_FORM_DEFAULTS,
    agentName: 'Night Nurse',
    voice: 'Rachel',
    voiceId: 'voice-7',
    promptText: 'Be kind.',
    welcomeMessage: 'Hello!',
  }),
);
const agent: Agent = {
  _id: 'a1',
  ...payload,
  kind: 'single_prompt',
  ...agentDialogFields(payload),
  company: 'c1',
  account: 'u1',
  version: 4,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};

describe('agent export file', () => {
  it('wraps the save payload in a versioned envelope without ids, owner or version', () => {
    const file = agentExportOf(agent, new Date('2026-05-01T09:30:00Z'));
    expect(file).toEqual({
      format: AGENT_EXPORT_FORMAT,
      version: 1,
      exportedAt: '2026-05-01T09:30:00.000Z',
      agent: { name: 'Night Nurse', prompt: 'Be kind.', message: 'Hello!', settings: payload.settings, editor: payload.editor },
    });
    for (const key of ['_id', 'company', 'account', 'version', 'createdAt', 'agent_name'])
      expect(file.agent).not.toHaveProperty(key);
  });

  it('imports what it exports', () => {
    const text = JSON.stringify(agentExportOf(agent));
    expect(parseAgentImport(text)).toEqual({
      ok: true,
      payload: { name: 'Night Nurse', prompt: 'Be kind.', message: 'Hello!', settings: payload.settings, editor: payload.editor },
    });
  });

  it("carries a conversation-flow agent's kind and flow both ways", () => {
    const flow = v.parse(FlowSchema, sampleFlow());
    const functions = [{ id: 1, type: 'book_appointment_cal', name: 'book_appointment_cal', event_type_id: 1, timezone: 'UTC' }];
    const editor = v.parse(AgentSavePayloadSchema, { ...payload, editor: { ...payload.editor, functions } }).editor;
    const flowAgent: Agent = { ...agent, editor, kind: 'conversation_flow', flow };
    const file = agentExportOf(flowAgent);
    expect(file.agent.kind).toBe('conversation_flow');
    expect(file.agent.flow).toEqual(flow);
    const back = parseAgentImport(JSON.stringify(file));
    expect(back.ok && back.payload.kind).toBe('conversation_flow');
    expect(back.ok && back.payload.flow).toEqual(flow);
    // a single-prompt agent's file has neither
    expect(agentExportOf({ ...agent, flow }).agent).not.toHaveProperty('flow');
    // a flow that names a function the file does not have is refused, naming the node
    const broken = parseAgentImport(JSON.stringify({ ...file, agent: { ...file.agent, editor: payload.editor } }));
    expect(broken).toEqual({
      ok: false,
      message: expect.stringContaining('node book: The agent has no function named book_appointment_cal'),
    });
    const noFlow = parseAgentImport(JSON.stringify({ ...payload, kind: 'conversation_flow' }));
    expect(noFlow).toEqual({ ok: false, message: expect.stringContaining(FLOW_MESSAGES.flowRequired) });
  });

  it('imports a bare save payload and drops a company/account in it', () => {
    const result = parseAgentImport(JSON.stringify({ ...payload, company: 'other', account: 'someone' }));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.payload).not.toHaveProperty('company');
  });

  it('refuses anything else with a message that says why', () => {
    const bad = (text: string) => {
      const r = parseAgentImport(text);
      return r.ok ? 'accepted' : r.message;
    };
    expect(bad('hello')).toBe(AGENT_IMPORT_MESSAGES.notJson);
    expect(bad('"a string"')).toBe(AGENT_IMPORT_MESSAGES.notAgent);
    expect(bad('{"title":"notes"}')).toBe(AGENT_IMPORT_MESSAGES.notAgent);
    expect(bad(JSON.stringify({ format: 'other.thing', version: 1, agent: payload }))).toBe(AGENT_IMPORT_MESSAGES.notAgent);
    expect(bad(JSON.stringify({ format: AGENT_EXPORT_FORMAT, version: 2, agent: payload }))).toBe(
      'The file was exported by a newer version of Parley (format 2).',
    );
    expect(bad(JSON.stringify({ format: AGENT_EXPORT_FORMAT, version: 1, agent: { ...payload, name: ' ' } }))).toBe(
      'The agent in the file is not valid: name: Agent name is required',
    );
    const outOfRange = { ...payload, editor: { ...payload.editor, interruption: 7 } };
    expect(bad(JSON.stringify({ format: AGENT_EXPORT_FORMAT, version: 1, agent: outOfRange }))).toBe(
      'The agent in the file is not valid: editor.interruption: Must be between 0 and 1',
    );
  });

  it('names the file after the agent', () => {
    expect(agentExportFileName('Night Nurse')).toBe('agent-night-nurse.json');
    expect(agentExportFileName('Café / Front-Desk #2')).toBe('agent-cafe-front-desk-2.json');
    expect(agentExportFileName('***')).toBe('agent-export.json');
  });
});
