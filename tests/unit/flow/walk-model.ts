/**
 * The model of a flow's compiled machine for the walk (tests/machines/harness.ts): an invariant written from
 * the flow document and the documented semantics (docs/flows.md), never from the compiler, so a compiler
 * that takes a wrong transition fails the walk although the walked paths come from its own machine.
 */
import { expect } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { type Flow, type FlowNode, flowVariables, globalReturns } from '../../../src/api/contract/agent/flow';
import { evaluateExpression, parseExpression } from '../../../src/api/contract/agent/flow-expression';
import { currentNode, type FlowVariables } from '../../../src/flow/compile';
import type { ModelOptions } from '../../machines/harness';
import type { InvariantTable, World } from '../../machines/invariants/types';

const holds = (src: string, vars: FlowVariables) => {
  const p = parseExpression(src);
  return p.ok && evaluateExpression(p.expression, vars);
};

/** The invariants of a flow's machine, from the flow document alone. */
export function flowInvariants(flow: Flow): InvariantTable {
  const byId = new Map(flow.nodes.map((n) => [n.id, n]));
  const node = (id: string) => byId.get(id) as FlowNode;
  const regular = (n: FlowNode) => !n.global && n.type !== 'end';
  const declared = flowVariables(flow);
  /** Where entering `id` leads: a logic split decides at once (guarded edges in order, then always/else). */
  const settle = (id: string, vars: FlowVariables): string => {
    const n = node(id);
    if (n.type !== 'logic_split') return id;
    const guarded = n.edges.find((e) => e.condition?.type === 'expression' && holds(e.condition.expression, vars));
    const free = n.edges.find((e) => e.condition?.type === 'always' || e.condition?.type === 'else');
    return settle((guarded ?? free)!.to, vars);
  };
  /** The node a step leads to, by the flow's rules. */
  const expected = (from: string, event: World['event'], vars: FlowVariables, lastRegular: string): string => {
    const n = node(from);
    const type = event.type;
    if (type.startsWith('flow.edge.')) {
      const edge = n.edges.find((e) => `flow.edge.${e.id}` === type && e.condition?.type === 'prompt');
      return edge ? settle(edge.to, vars) : from;
    }
    if (type.startsWith('flow.global.')) {
      const id = type.slice('flow.global.'.length);
      return byId.get(id)?.global && id !== from ? id : from;
    }
    if (type !== 'flow.done') return from;
    const ok = (event as { ok?: unknown }).ok;
    const guarded = n.edges.find(
      (e) =>
        (e.condition?.type === 'result' && e.condition.ok === ok) ||
        (e.condition?.type === 'expression' && holds(e.condition.expression, vars)),
    );
    const free = n.edges.find((e) => e.condition?.type === 'always');
    const next = guarded ?? free;
    if (next) return settle(next.to, vars);
    if (n.global && globalReturns(n.global)) return lastRegular;
    return from;
  };

  let lastRegular = flow.start_node_id;
  return {
    always: (snapshot: AnyMachineSnapshot, world: World) => {
      const now = currentNode(snapshot);
      const n = node(now);
      expect(n, `a node of the flow: ${now}`).toBeDefined();
      expect(n.type, 'a logic split decides at once').not.toBe('logic_split');
      expect(snapshot.status === 'done', 'done exactly at an end node').toBe(n.type === 'end');
      const vars = snapshot.context.variables as FlowVariables;
      for (const [name, value] of Object.entries(vars)) {
        const spec = declared.get(name);
        expect(spec, `${name} is declared`).toBeDefined();
        if (value === null) continue;
        const want = spec!.type === 'number' ? 'number' : spec!.type === 'boolean' ? 'boolean' : 'string';
        expect(typeof value, `${name} has its type`).toBe(want);
      }
      if (world.step === 0) {
        lastRegular = flow.start_node_id;
        expect(now, 'the machine starts at the start node').toBe(settle(flow.start_node_id, vars));
      } else {
        const from = currentNode(world.previous!);
        expect(now, `${from} --${JSON.stringify(world.event)}-->`).toBe(expected(from, world.event, vars, lastRegular));
      }
      if (regular(n)) lastRegular = now;
    },
  };
}

export const serializeState = (s: AnyMachineSnapshot) =>
  JSON.stringify([
    s.value,
    s.context,
    Object.entries(s.historyValue ?? {}).map(([k, nodes]) => [k, (nodes as { id: string }[]).map((x) => x.id)]),
  ]);

export function walkOptions(flow: Flow, values: Record<string, unknown>[]): ModelOptions {
  return {
    events: {
      'flow.done': [{ type: 'flow.done', ok: true }, { type: 'flow.done', ok: false }, { type: 'flow.done' }],
      'flow.variables': values.map((v) => ({ type: 'flow.variables', values: v })),
    },
    serializeState,
    invariants: flowInvariants(flow),
  };
}
