import { agentDialogFields, applyDialogPatch } from '@contract/agent/dialog';
import { AgentEditorSchema } from '@contract/agent/editor';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '@contract/agent/editor-form';
import { type AgentDoc, AgentDocSchema } from '@contract/agent/save';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

const doc = (editor: Record<string, unknown>): AgentDoc =>
  v.parse(AgentDocSchema, { ...editorFormToSavePayload({ ...AGENT_EDITOR_FORM_DEFAULTS, voiceId: 'v1' }), editor });

describe('editor.dataStorage', () => {
  it('defaults to everything, with recording on, no notice and no redacted recordings', () => {
    const e = v.parse(AgentEditorSchema, {});
    expect(e).toMatchObject({ dataStorage: 'everything', recordCalls: true, recordingNotice: '', redactRecordings: false });
    expect(e.sensitiveDataStorage).toBe(true);
  });

  it('reads an agent stored with only the old switch off as metadata only', () => {
    const e = v.parse(AgentEditorSchema, { sensitiveDataStorage: false });
    expect(e.dataStorage).toBe('metadata_only');
    expect(v.parse(AgentEditorSchema, { sensitiveDataStorage: true }).dataStorage).toBe('everything');
  });

  it('lets dataStorage win over the old switch and mirrors the switch from it', () => {
    const e = v.parse(AgentEditorSchema, { sensitiveDataStorage: false, dataStorage: 'everything_but_pii' });
    expect(e.dataStorage).toBe('everything_but_pii');
    expect(e.sensitiveDataStorage).toBe(true);
    expect(v.parse(AgentEditorSchema, { dataStorage: 'metadata_only' }).sensitiveDataStorage).toBe(false);
  });

  it('refuses an unknown level and an over-long notice', () => {
    expect(v.safeParse(AgentEditorSchema, { dataStorage: 'nothing' }).success).toBe(false);
    expect(v.safeParse(AgentEditorSchema, { recordingNotice: 'x'.repeat(501) }).success).toBe(false);
  });
});

describe("the dialog's opt_out_sensitive_data_storage", () => {
  it('reads true only at metadata only', () => {
    expect(agentDialogFields(doc({ dataStorage: 'metadata_only' })).opt_out_sensitive_data_storage).toBe(true);
    expect(agentDialogFields(doc({ dataStorage: 'everything_but_pii' })).opt_out_sensitive_data_storage).toBe(false);
    expect(agentDialogFields(doc({})).opt_out_sensitive_data_storage).toBe(false);
    expect(agentDialogFields(doc({ sensitiveDataStorage: false })).opt_out_sensitive_data_storage).toBe(true);
  });

  it('true writes metadata only', () => {
    const out = applyDialogPatch(doc({ dataStorage: 'everything_but_pii' }), { opt_out_sensitive_data_storage: true });
    expect(out.editor.dataStorage).toBe('metadata_only');
    expect(out.editor.sensitiveDataStorage).toBe(false);
  });

  it('false writes everything only over metadata only, and keeps everything_but_pii', () => {
    const fromMeta = applyDialogPatch(doc({ dataStorage: 'metadata_only' }), { opt_out_sensitive_data_storage: false });
    expect(fromMeta.editor.dataStorage).toBe('everything');
    expect(fromMeta.editor.sensitiveDataStorage).toBe(true);
    const fromPii = applyDialogPatch(doc({ dataStorage: 'everything_but_pii' }), { opt_out_sensitive_data_storage: false });
    expect(fromPii.editor.dataStorage).toBe('everything_but_pii');
  });
});
