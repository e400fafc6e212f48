import fs from 'node:fs';
import { type Flow, FlowSchema } from '@contract/agent/flow';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { FlowRun, machineOf, SET_VARIABLES } from '../../../server/voice/engine/flow';

const example = JSON.parse(fs.readFileSync('docs/examples/receptionist-flow.json', 'utf8')) as { agent: { flow: unknown } };
const flow: Flow = v.parse(FlowSchema, example.agent.flow);

function clock() {
  let t = Date.parse('2026-01-01T10:00:00Z');
  return () => {
    t += 1000;
    return new Date(t);
  };
}
const run = (saved?: ConstructorParameters<typeof FlowRun>[3]) => new FlowRun(flow, { clinic: 'Harbor' }, clock(), saved);
const names = (r: FlowRun) => r.tools().map((t) => t.name);

describe('the flow run (one call through the example receptionist flow)', () => {
  it('starts in the start node, offering its prompt edges and the global nodes as tools', () => {
    const r = run();
    expect(r.node().id).toBe('greet');
    expect(names(r)).toEqual(['next_greet-wants-visit', 'next_greet-nothing', 'goto_front-desk', 'goto_hours', 'goto_emergency']);
    expect(r.tools()[0]?.description).toContain('The caller wants to book or move a visit');
    expect(r.prompt()).toContain('Current step:');
    expect(r.path).toEqual([
      {
        node_id: 'greet',
        name: expect.any(String),
        entered_at: '2026-01-01T10:00:01.000Z',
        left_at: null,
        edge_id: null,
        reason: null,
      },
    ]);
  });

  it('a transition tool moves the machine and records the step; set_variables saves typed values and takes the always edge; a logic split passes at once', () => {
    const r = run();
    expect(r.call('next_greet-wants-visit', {})).toContain('Now in step');
    expect(r.node().id).toBe('identify');
    expect(names(r)).toContain(SET_VARIABLES);
    const schema = r.tools().find((t) => t.name === SET_VARIABLES)?.parameters as {
      properties: Record<string, { type: string }>;
    };
    expect(Object.keys(schema.properties)).toEqual(['patient_name', 'date_of_birth', 'returning_patient']);
    expect(schema.properties.returning_patient?.type).toBe('boolean');
    r.call(SET_VARIABLES, { patient_name: 'Ann Lee', date_of_birth: '1950-02-03', returning_patient: true });
    expect(r.node().id).toBe('triage');
    expect(r.values().patient_name).toBe('Ann Lee');
    r.call(SET_VARIABLES, { reason: 'checkup', urgency: 'routine' });
    // route (logic split) -> book (function node): its work is for the engine
    expect(r.node().id).toBe('book');
    expect(r.work()?.id).toBe('book');
    r.workDone(false);
    expect(r.node().id).toBe('front-desk');
    expect(r.path.map((s) => [s.node_id, s.edge_id, s.reason])).toEqual([
      ['greet', 'greet-wants-visit', 'The caller wants to book or move a visit'],
      ['identify', 'identify-done', 'always'],
      ['triage', 'triage-done', 'always'],
      ['route', 'route-else', 'else'],
      ['book', 'book-failed', 'function failed'],
      ['front-desk', null, null],
    ]);
    expect(r.path.every((s, i) => i === r.path.length - 1 || s.left_at === r.path[i + 1]?.entered_at)).toBe(true);
  });

  it('an expression split: urgent goes to the nurse', () => {
    const r = run();
    r.call('next_greet-wants-visit', {});
    r.call(SET_VARIABLES, { patient_name: 'B', returning_patient: false });
    r.call(SET_VARIABLES, { reason: 'pain', urgency: 'urgent' });
    expect(r.node().id).toBe('nurse');
    expect(r.path.find((s) => s.node_id === 'route')?.reason).toBe('expression urgency == "urgent"');
  });

  it('a global node entered from the middle returns to where the call was', () => {
    const r = run();
    r.call('next_greet-wants-visit', {});
    r.call('goto_hours', {});
    expect(r.node().id).toBe('hours');
    expect(r.work()?.id).toBe('hours');
    r.workDone();
    expect(r.node().id).toBe('identify');
    expect(r.path.map((s) => [s.node_id, s.edge_id, s.reason])).toEqual([
      ['greet', 'greet-wants-visit', 'The caller wants to book or move a visit'],
      ['identify', null, 'global: The caller asks when the clinic is open'],
      ['hours', null, 'back to where the call was'],
      ['identify', null, null],
    ]);
  });

  it('a saved run is rebuilt at the same node with the same variables and path, and goes on', () => {
    const r = run();
    r.call('next_greet-wants-visit', {});
    r.call(SET_VARIABLES, { patient_name: 'Ann', returning_patient: true });
    const again = run(JSON.parse(JSON.stringify(r.state())));
    expect(again.node().id).toBe('triage');
    expect(again.values().patient_name).toBe('Ann');
    expect(again.path).toEqual(r.path);
    again.call(SET_VARIABLES, { reason: 'x', urgency: 'urgent' });
    expect(again.node().id).toBe('nurse');
  });

  it('a tool of another node does nothing', () => {
    const r = run();
    expect(r.call('next_confirm-done', {})).toBe('That step is not possible now.');
    expect(r.node().id).toBe('greet');
  });

  it('a flow is compiled once: the same flow (another copy) gets the same machine, a changed one its own', () => {
    const copy = JSON.parse(JSON.stringify(flow)) as Flow;
    expect(machineOf(copy)).toBe(machineOf(flow));
    expect(machineOf({ ...flow, global_prompt: 'Another prompt' })).not.toBe(machineOf(flow));
  });
});
