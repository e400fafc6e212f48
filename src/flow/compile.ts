/**
 * The flow compiler: a valid conversation flow (src/api/contract/agent/flow.ts, checked by validateFlow)
 * turned into an XState v5 machine. Pure (no I/O, no clock), shared by the server's call engine, which runs
 * the machine as a call's conversation logic, and by the editor, which can draw and walk it.
 * docs/flows.md shows the machine of the example flow.
 *
 * Shape of the machine (id `flow`):
 *
 *   flow
 *   ├── @nodes                 compound: every node that is neither global nor an end node, and
 *   │   ├── <node id> ...      the shallow history state `@history` (where a returning global node goes back to)
 *   │   └── @history
 *   ├── <global node id> ...   the global nodes, entered from anywhere by `flow.global.<node id>`
 *   └── <end node id> ...      the end nodes: final states, so the machine is done when one is entered
 *
 * One state per node, keyed by the node's id (`currentNode(snapshot)` reads it back). Transitions:
 *
 * | condition of an edge | at a logic split                 | at any other node                                |
 * |----------------------|----------------------------------|--------------------------------------------------|
 * | prompt               | (not allowed)                    | event `flow.edge.<edge id>` (the model decides)   |
 * | expression           | eventless, guard `flow.expression` | on `flow.done`, guard `flow.expression`        |
 * | result               | (not allowed)                    | on `flow.done`, guard `flow.result` (`event.ok`)  |
 * | always               | eventless, no guard              | on `flow.done`, no guard                          |
 * | else                 | eventless, no guard, after guards | (not allowed)                                     |
 *
 * `flow.done` says the node's own work is finished (the engine sends it once the static text was said, the
 * variables extracted, the function answered with `ok`, the digits pressed); guarded transitions come
 * first in edge order, then `always`, so the first edge whose condition holds is taken. A logic split
 * decides at once on entry, without the model.
 *
 * Global nodes: the root has `flow.global.<node id>` to each (not taken while already there). A global
 * node whose `return` is 'return' (or true) goes back on `flow.done`, after its own edges, to `@nodes.@history`:
 * the node the call was in. One whose `return` is 'end' (or false) continues along its own edges only.
 *
 * Variables: `context.variables` starts with the machine's input (`{ variables }`: the agent's dynamic
 * variables) and `flow.variables` `{ values }` sets extracted ones: only the names extract nodes declare,
 * each only when its value has the declared type (a number, a boolean, a text, one of the choices, an ISO
 * date); `null` clears one. Expressions read them.
 */
import { assign, not, type SnapshotFrom, setup, stateIn } from 'xstate';
import {
  type Flow,
  type FlowCondition,
  type FlowEdge,
  type FlowNode,
  type FlowVariable,
  flowVariables,
  globalReturns,
} from '../api/contract/agent/flow';
import {
  type Expression,
  type ExpressionValue,
  evaluateExpression,
  parseExpression,
} from '../api/contract/agent/flow-expression';

export const FLOW_MACHINE_ID = 'flow';
/** The helper states' keys: a node id cannot start with `@`, so they never meet a node. */
export const FLOW_NODES_STATE = '@nodes';
export const FLOW_HISTORY_STATE = '@history';

export const FLOW_EVENT = {
  done: 'flow.done',
  variables: 'flow.variables',
  edge: (edgeId: string) => `flow.edge.${edgeId}`,
  global: (nodeId: string) => `flow.global.${nodeId}`,
} as const;

export type FlowVariableValue = ExpressionValue | null;
export type FlowVariables = Record<string, FlowVariableValue>;

export interface FlowContext {
  variables: FlowVariables;
}
export interface FlowMachineInput {
  /** values known before the call (the agent's dynamic variables) */
  variables?: FlowVariables;
}
export type FlowEvent =
  /** the current node's work is done; `ok` is a function's (or transfer's) outcome */
  | { type: 'flow.done'; ok?: boolean }
  /** extracted values (by variable name) */
  | { type: 'flow.variables'; values: Record<string, unknown> }
  /** the model took a prompt edge (`flow.edge.<edge id>`) or entered a global node (`flow.global.<node id>`) */
  | { type: `flow.edge.${string}` }
  | { type: `flow.global.${string}` };

export class FlowCompileError extends Error {}

const TEXT_MAX = 1_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;

/** The value stored for a declared variable, or undefined when `value` does not have its type. */
export function coerceVariable(spec: FlowVariable, value: unknown): FlowVariableValue | undefined {
  if (value === null) return null;
  switch (spec.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'text':
      return typeof value === 'string' && value.length <= TEXT_MAX ? value : undefined;
    case 'enum':
      return typeof value === 'string' && spec.choices.includes(value) ? value : undefined;
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined;
  }
}

const isGlobal = (n: FlowNode) => n.global !== undefined;
const isEnd = (n: FlowNode) => n.type === 'end';
/** Where a node's state is, from the root: `#flow.@nodes.<id>` or `#flow.<id>`. */
function targetOf(byId: Map<string, FlowNode>, id: string): string {
  const node = byId.get(id);
  if (!node) throw new FlowCompileError(`No node ${id}`);
  return isGlobal(node) || isEnd(node) ? `#${FLOW_MACHINE_ID}.${id}` : `#${FLOW_MACHINE_ID}.${FLOW_NODES_STATE}.${id}`;
}

function label(edge: FlowEdge, c: FlowCondition): string {
  switch (c.type) {
    case 'prompt':
      return `${edge.id}: ${c.prompt}`;
    case 'expression':
      return `${edge.id}: ${c.expression}`;
    case 'result':
      return `${edge.id}: ${c.ok ? 'succeeded' : 'failed'}`;
    case 'always':
      return `${edge.id}: always`;
    case 'else':
      return `${edge.id}: else`;
  }
}

/** Compiles a flow validateFlow found no problem in. Throws FlowCompileError on what it cannot compile. */
export function compileFlow(flow: Flow) {
  const byId = new Map(flow.nodes.map((n) => [n.id, n]));
  const start = byId.get(flow.start_node_id);
  if (!start || isGlobal(start)) throw new FlowCompileError('The flow has no start node');
  if (isEnd(start)) throw new FlowCompileError('The start node is an end node');
  const declared = flowVariables(flow);
  const parsed = new Map<string, Expression>();
  const expression = (src: string): Expression => {
    let e = parsed.get(src);
    if (!e) {
      const p = parseExpression(src);
      if (!p.ok) throw new FlowCompileError(`The expression ${JSON.stringify(src)} does not parse: ${p.message}`);
      e = p.expression;
      parsed.set(src, e);
    }
    return e;
  };

  // biome-ignore lint/suspicious/noExplicitAny: the state configs are built from data, so typed loosely
  type Config = any;
  const stateOf = (node: FlowNode): Config => {
    const on: Record<string, Config[]> = {};
    const onDone: Config[] = [];
    const eventless: Config[] = [];
    const unguarded: Config[] = [];
    for (const edge of node.edges) {
      const c = edge.condition;
      if (!c) throw new FlowCompileError(`Edge ${edge.id} has no condition`);
      const t = { target: targetOf(byId, edge.to), description: label(edge, c) };
      const split = node.type === 'logic_split';
      switch (c.type) {
        case 'prompt':
          on[FLOW_EVENT.edge(edge.id)] = [t];
          break;
        case 'expression':
          expression(c.expression);
          (split ? eventless : onDone).push({ ...t, guard: { type: 'flow.expression', params: { expression: c.expression } } });
          break;
        case 'result':
          onDone.push({ ...t, guard: { type: 'flow.result', params: { ok: c.ok } } });
          break;
        case 'always':
        case 'else':
          (split ? eventless : unguarded).push(t);
          break;
      }
    }
    // guarded transitions first, then the unguarded ones (always, else), each in edge order
    if (node.type === 'logic_split')
      return { description: node.name, always: [...eventless.filter((t) => t.guard), ...eventless.filter((t) => !t.guard)] };
    const done = [...onDone, ...unguarded];
    if (node.global && globalReturns(node.global))
      done.push({
        target: `#${FLOW_MACHINE_ID}.${FLOW_NODES_STATE}.${FLOW_HISTORY_STATE}`,
        description: 'back to where the call was',
      });
    if (done.length > 0) on[FLOW_EVENT.done] = done;
    if (isEnd(node)) return { type: 'final', description: node.name };
    return { description: node.name, on };
  };

  const inner: Record<string, Config> = {};
  const outer: Record<string, Config> = {};
  const rootOn: Record<string, Config> = {
    [FLOW_EVENT.variables]: { actions: 'setVariables', description: 'extracted values' },
  };
  for (const node of flow.nodes) {
    if (isGlobal(node) || isEnd(node)) outer[node.id] = stateOf(node);
    else inner[node.id] = stateOf(node);
    if (node.global)
      rootOn[FLOW_EVENT.global(node.id)] = {
        target: `.${node.id}`,
        // not while already there
        guard: not(stateIn(`#${FLOW_MACHINE_ID}.${node.id}`)),
        description: `global: ${node.global.condition.prompt}`,
      };
  }
  inner[FLOW_HISTORY_STATE] = { type: 'history', history: 'shallow' };

  return setup({
    types: {
      context: {} as FlowContext,
      events: {} as FlowEvent,
      input: {} as FlowMachineInput | undefined,
      output: {} as FlowContext,
    },
    guards: {
      'flow.expression': ({ context }, params: { expression: string }) =>
        evaluateExpression(expression(params.expression), context.variables),
      'flow.result': ({ event }, params: { ok: boolean }) => event.type === FLOW_EVENT.done && event.ok === params.ok,
    },
    actions: {
      setVariables: assign({
        variables: ({ context, event }) => {
          if (event.type !== FLOW_EVENT.variables || typeof event.values !== 'object' || event.values === null)
            return context.variables;
          const next = { ...context.variables };
          for (const [name, spec] of declared) {
            if (!Object.hasOwn(event.values, name)) continue;
            const value = coerceVariable(spec, event.values[name]);
            if (value !== undefined) next[name] = value;
          }
          return next;
        },
      }),
    },
  }).createMachine({
    id: FLOW_MACHINE_ID,
    context: ({ input }: { input: FlowMachineInput | undefined }) => ({ variables: { ...(input?.variables ?? {}) } }),
    initial: FLOW_NODES_STATE,
    on: rootOn,
    states: {
      [FLOW_NODES_STATE]: { initial: start.id, states: inner },
      ...outer,
    },
    output: ({ context }: { context: FlowContext }) => ({ variables: context.variables }),
  } as Config);
}

export type FlowMachine = ReturnType<typeof compileFlow>;
export type FlowSnapshot = SnapshotFrom<FlowMachine>;

/** The id of the node a snapshot of a compiled flow is in. */
export function currentNode(snapshot: { value: unknown }): string {
  const value = snapshot.value;
  if (typeof value === 'string') return value;
  const inner = (value as Record<string, unknown>)[FLOW_NODES_STATE];
  if (typeof inner === 'string') return inner;
  throw new FlowCompileError(`Not a flow state: ${JSON.stringify(value)}`);
}

/** A transition the model may take at a node: one of its prompt edges, or a global node to enter. */
export interface OfferedTransition {
  event: string;
  /** the natural-language condition */
  condition: string;
  to: string;
  kind: 'edge' | 'global';
}

/** The transitions the model is offered at a node (its prompt edges, then every other global node). */
export function offeredTransitions(flow: Flow, nodeId: string): OfferedTransition[] {
  const node = flow.nodes.find((n) => n.id === nodeId);
  if (!node) return [];
  const offered: OfferedTransition[] = [];
  for (const edge of node.edges)
    if (edge.condition?.type === 'prompt')
      offered.push({ event: FLOW_EVENT.edge(edge.id), condition: edge.condition.prompt, to: edge.to, kind: 'edge' });
  for (const g of flow.nodes)
    if (g.global && g.id !== nodeId)
      offered.push({ event: FLOW_EVENT.global(g.id), condition: g.global.condition.prompt, to: g.id, kind: 'global' });
  return offered;
}
