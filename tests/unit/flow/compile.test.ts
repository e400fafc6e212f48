import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { FlowSchema, validateFlow } from '../../../src/api/contract/agent/flow';
import {
  compileFlow,
  currentNode,
  FlowCompileError,
  type FlowEvent,
  type FlowMachineInput,
  offeredTransitions,
} from '../../../src/flow/compile';
import { everyKindFlow } from './compile-sample';
import { sampleFlow } from './sample';

/** An actor of the every-kind flow after `events`, and the node it is in. */
function run(events: FlowEvent[], input?: FlowMachineInput) {
  const actor = createActor(compileFlow(everyKindFlow()), { input });
  actor.start();
  for (const e of events) actor.send(e);
  const snapshot = actor.getSnapshot();
  return { snapshot, node: currentNode(snapshot) };
}
const edge = (id: string) => ({ type: `flow.edge.${id}` }) as FlowEvent;
const global = (id: string) => ({ type: `flow.global.${id}` }) as FlowEvent;
const done = (ok?: boolean): FlowEvent => (ok === undefined ? { type: 'flow.done' } : { type: 'flow.done', ok });
const vars = (values: Record<string, unknown>): FlowEvent => ({ type: 'flow.variables', values });
/** Through greeting and extraction with these values, to wherever the split sends the call. */
const toSplit = (values: Record<string, unknown>) => [edge('p1'), vars(values), done()];

describe('compileFlow', () => {
  it('the example flows are valid and compile', () => {
    expect(validateFlow(everyKindFlow(), ['book_appointment_cal'])).toEqual([]);
    expect(() => compileFlow(v.parse(FlowSchema, sampleFlow()))).not.toThrow();
  });

  it('has one state per node, starts at the start node', () => {
    const machine = compileFlow(everyKindFlow());
    const states = [...Object.keys(machine.root.states['@nodes']!.states), ...Object.keys(machine.root.states)];
    for (const node of everyKindFlow().nodes) expect(states).toContain(node.id);
    expect(run([]).node).toBe('greet');
  });

  it('conversation node: a prompt edge is an event the model sends, taken only at its node', () => {
    expect(run([edge('p1')]).node).toBe('ask');
    expect(run([edge('d1')]).node).toBe('greet');
    const { snapshot } = run([]);
    expect(snapshot.can(edge('p1'))).toBe(true);
    expect(snapshot.can(edge('a1'))).toBe(false);
    // a conversation node with no done edge stays when its turn is done
    expect(run([done()]).node).toBe('greet');
  });

  it('extract node: leaves along its always edge when its work is done, not before', () => {
    expect(run([edge('p1'), vars({ age: 30, insurance: 'private' })]).node).toBe('ask');
  });

  it('logic split: decides at once by expression, in edge order, else last', () => {
    expect(run(toSplit({ age: 70, insurance: 'private' })).node).toBe('senior');
    expect(run(toSplit({ age: 70, insurance: 'none' })).node).toBe('digits');
    expect(run(toSplit({ age: 30, insurance: 'public' })).node).toBe('book');
    // no values at all: only else holds
    expect(run(toSplit({})).node).toBe('book');
  });

  it('expression and always edges of another node are decided when its work is done, guarded ones first', () => {
    expect(run([...toSplit({ age: 95, insurance: 'public' }), done()]).node).toBe('human');
    expect(run([...toSplit({ age: 70, insurance: 'public' }), done()]).node).toBe('book');
  });

  it('function node: branches on its result', () => {
    const booked = run([...toSplit({ age: 30, insurance: 'public' }), done(true)]);
    expect(booked.node).toBe('bye');
    expect(run([...toSplit({ age: 30, insurance: 'public' }), done(false)]).node).toBe('human');
    // a done without a result takes no result edge
    expect(run([...toSplit({ age: 30, insurance: 'public' }), done()]).node).toBe('book');
  });

  it('end node: a final state, the machine is done with the variables as output', () => {
    const { snapshot, node } = run([...toSplit({ age: 30, insurance: 'public' }), done(true)]);
    expect(node).toBe('bye');
    expect(snapshot.status).toBe('done');
    expect(snapshot.output).toEqual({ variables: { age: 30, insurance: 'public' } });
  });

  it('press digit node: leaves when the digits are pressed', () => {
    expect(run([...toSplit({ insurance: 'none' }), done()]).node).toBe('bye');
  });

  it('transfer node: a failed transfer takes its failure edge; a successful one stays (the call has left)', () => {
    expect(run([global('human'), done(false)]).node).toBe('greet');
    const left = run([global('human'), done(true)]);
    expect(left.node).toBe('human');
    expect(left.snapshot.status).toBe('active');
  });

  it('global nodes: entered from any node, not again while there', () => {
    for (const path of [[], [edge('p1')], toSplit({ age: 30 }), toSplit({ insurance: 'none' })]) {
      expect(run([...path, global('emergency')]).node).toBe('emergency');
      expect(run([...path, global('human')]).node).toBe('human');
    }
    expect(run([global('emergency')]).snapshot.can(global('emergency'))).toBe(false);
    expect(run([global('emergency')]).snapshot.can(global('human'))).toBe(true);
  });

  it('a returning global node goes back to the node the call was in; a non-returning one follows its edges', () => {
    expect(run([global('emergency'), done()]).node).toBe('greet');
    expect(run([...toSplit({ age: 30 }), global('emergency'), done()]).node).toBe('book');
    // through two global nodes, back to where the call was before the first
    expect(run([edge('p1'), global('emergency'), global('human'), done(false)]).node).toBe('greet');
    expect(run([...toSplit({ insurance: 'none' }), global('emergency'), done()]).node).toBe('digits');
    // the transfer (return: end) has no way back
    expect(run([...toSplit({ insurance: 'none' }), global('human'), done()]).node).toBe('human');
  });

  it('variables: the input, then only declared names with values of their type; null clears', () => {
    const input = { variables: { clinic: 'North' } };
    const set = (values: Record<string, unknown>) => run([vars(values)], input).snapshot.context.variables;
    expect(set({})).toEqual({ clinic: 'North' });
    expect(
      set({ age: 41, insurance: 'public', born: '1985-02-03', verified: true, caller: 'Ada', unknown: 1, clinic: 'South' }),
    ).toEqual({ clinic: 'North', age: 41, insurance: 'public', born: '1985-02-03', verified: true, caller: 'Ada' });
    expect(set({ age: '41', insurance: 'gold', born: 'yesterday', verified: 'yes', caller: 5, __proto__: { age: 1 } })).toEqual({
      clinic: 'North',
    });
    expect(set({ age: Number.NaN, born: '2026-13-45', caller: 'x'.repeat(1001) })).toEqual({ clinic: 'North' });
    const cleared = run([vars({ age: 41 }), vars({ age: null })]).snapshot.context.variables;
    expect(cleared).toEqual({ age: null });
  });

  it('refuses what it cannot compile', () => {
    const noStart = { ...everyKindFlow(), start_node_id: '' };
    expect(() => compileFlow(noStart)).toThrow(FlowCompileError);
    const bad = everyKindFlow();
    const c = bad.nodes[2]!.edges[0]!.condition;
    if (c?.type === 'expression') c.expression = 'age >=';
    expect(() => compileFlow(bad)).toThrow(/does not parse/);
    const lost = everyKindFlow();
    lost.nodes[0]!.edges[0]!.to = 'nowhere';
    expect(() => compileFlow(lost)).toThrow(/No node nowhere/);
  });

  it('offers the model the node prompt edges and the other global nodes', () => {
    expect(offeredTransitions(everyKindFlow(), 'greet')).toEqual([
      { event: 'flow.edge.p1', condition: 'The caller wants an appointment', to: 'ask', kind: 'edge' },
      { event: 'flow.global.human', condition: 'The caller asks for a person', to: 'human', kind: 'global' },
      { event: 'flow.global.emergency', condition: 'The caller has a medical emergency', to: 'emergency', kind: 'global' },
    ]);
    expect(offeredTransitions(everyKindFlow(), 'emergency').map((o) => o.event)).toEqual(['flow.global.human']);
    expect(offeredTransitions(everyKindFlow(), 'ghost')).toEqual([]);
  });
});
