/**
 * docs/examples/receptionist-flow.json is importable: the real import (parseAgentImport: the contract and
 * validateFlow) accepts it, it compiles, and scripted calls through the compiled machine take the paths
 * docs/flows.md describes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { parseAgentImport } from '../../../src/api/contract/agent/export';
import { validateFlow } from '../../../src/api/contract/agent/flow';
import { compileFlow, currentNode, type FlowEvent } from '../../../src/flow/compile';

const file = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/examples/receptionist-flow.json'), 'utf8');

function imported() {
  const result = parseAgentImport(file);
  if (!result.ok) throw new Error(result.message);
  return result.payload;
}

describe('docs/examples/receptionist-flow.json', () => {
  it('imports through the agent contract as a conversation-flow agent with no problem', () => {
    const payload = imported();
    expect(payload.kind).toBe('conversation_flow');
    expect(validateFlow(payload.flow!, payload.editor.functions)).toEqual([]);
  });

  it('has the nodes the documentation describes', () => {
    const flow = imported().flow!;
    const types = new Set(flow.nodes.map((n) => n.type));
    for (const t of ['conversation', 'extract', 'logic_split', 'function', 'transfer', 'end']) expect(types).toContain(t);
    expect(flow.nodes.filter((n) => n.global).map((n) => n.id)).toEqual(['front-desk', 'hours', 'emergency']);
  });

  it('a scripted call takes greeting -> identify -> triage -> book -> confirm -> goodbye', () => {
    const actor = createActor(compileFlow(imported().flow!), { input: {} }).start();
    const seen = [currentNode(actor.getSnapshot())];
    const send = (e: FlowEvent) => {
      actor.send(e);
      seen.push(currentNode(actor.getSnapshot()));
    };
    send({ type: 'flow.edge.greet-wants-visit' });
    send({ type: 'flow.global.hours' });
    send({ type: 'flow.done' });
    send({ type: 'flow.variables', values: { patient_name: 'Ada Park', date_of_birth: '1950-04-02', returning_patient: true } });
    send({ type: 'flow.done' });
    send({ type: 'flow.variables', values: { reason: 'check-up', urgency: 'routine' } });
    send({ type: 'flow.done' });
    send({ type: 'flow.done', ok: true });
    send({ type: 'flow.edge.confirm-done' });
    expect(seen).toEqual([
      'greet',
      'identify',
      'hours',
      'identify',
      'identify',
      'triage',
      'triage',
      'book',
      'confirm',
      'goodbye',
    ]);
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('the expression split sends an urgent case to the nurse and a new patient past the note', () => {
    const nodeAfter = (returning_patient: boolean, urgency: string) => {
      const actor = createActor(compileFlow(imported().flow!), { input: {} }).start();
      for (const e of [
        { type: 'flow.edge.greet-wants-visit' },
        { type: 'flow.variables', values: { returning_patient } },
        { type: 'flow.done' },
        { type: 'flow.variables', values: { urgency } },
        { type: 'flow.done' },
      ] as FlowEvent[])
        actor.send(e);
      return currentNode(actor.getSnapshot());
    };
    expect(nodeAfter(true, 'urgent')).toBe('nurse');
    expect(nodeAfter(false, 'urgent')).toBe('nurse');
    expect(nodeAfter(false, 'soon')).toBe('new-patient');
    expect(nodeAfter(true, 'routine')).toBe('book');
  });
});
