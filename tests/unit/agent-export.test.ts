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
import type { Agent } from '../../src/api/contract/agent/responses';
import { AgentSavePayloadSchema } from '../../src/api/contract/agent/save';

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
