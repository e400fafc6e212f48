/**
 * A conversation-flow agent's logic in a call: the compiled flow (src/flow/compile.ts) run as an actor, and
 * what each agent turn needs of it (reply.ts):
 *
 * - the system prompt: the flow's global prompt, then the current node's instruction ({{variables}} filled);
 * - the transition tools: one per prompt edge of the node (`next_<edge id>`) and one per other global node
 *   (`goto_<node id>`), described by the condition (the way pipecat-flows moves between nodes), plus
 *   `set_variables` at an extract node (its JSON schema built from the node's variables). A call of one
 *   moves the machine and answers the new node's instruction, so the model goes on there in the same turn;
 * - the node's own work, done by the engine without the model: a static text said as written, a function
 *   node's function, an end node's goodbye, a transfer node's transfer (`work()`, then `done(ok)`);
 * - the path: each node entered and left, with the edge taken and why.
 *
 * A chat runs one turn per request, so the run's state (the events the machine was sent, the path, which
 * node's work is done) is saved with the chat and replayed at the next message (`state()`, `saved`).
 * No SQL, no HTTP: the engine stores nothing itself.
 */
import { createHash } from 'node:crypto';
import type { Flow, FlowEdge, FlowNode, FlowVariable } from '@contract/agent/flow.js';
import type { FlowPathStep } from '@contract/call-runtime.js';
import { type Actor, type AnyTransitionDefinition, createActor, type InspectionEvent } from 'xstate';
import {
  compileFlow,
  currentNode,
  FLOW_EVENT,
  FLOW_HISTORY_STATE,
  type FlowEvent,
  type FlowMachine,
  offeredTransitions,
} from '../../../src/flow/compile.js';
import type { ToolSpec } from '../providers/types.js';
import { fillVariables } from './text.js';

export type { FlowPathStep };

/** What a flow run keeps between the turns of a chat. */
export interface FlowRunState {
  /** every event the machine was sent, in order (replayed to rebuild it) */
  events: FlowEvent[];
  path: FlowPathStep[];
  /** the path step whose node's own work is done (-1: none yet) */
  worked: number;
}

/** Compiled flows kept (a chat compiles its flow at each message; a flow of 200 nodes takes ~3 ms). */
const COMPILED_KEPT = 32;
const compiled = new Map<string, FlowMachine>();

/** The flow's machine, compiled once per distinct flow (least recently used dropped first). */
export function machineOf(flow: Flow): FlowMachine {
  const key = createHash('sha256').update(JSON.stringify(flow)).digest('base64');
  let machine = compiled.get(key);
  if (machine) compiled.delete(key);
  else machine = compileFlow(flow);
  compiled.set(key, machine);
  if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
  return machine;
}

/** The tool the model calls at an extract node. */
export const SET_VARIABLES = 'set_variables';
/** OpenAI and Anthropic take tool names of at most 64 characters. */
const TOOL_NAME_MAX = 64;

interface Transition {
  spec: ToolSpec;
  event: string;
}

const NO_ARGUMENTS = { type: 'object', properties: {}, required: [] } as const;

/** The JSON schema of one extracted variable. */
function variableSchema(x: FlowVariable): Record<string, unknown> {
  const description = x.description ? { description: x.description } : {};
  switch (x.type) {
    case 'text':
      return { type: 'string', ...description };
    case 'number':
      return { type: 'number', ...description };
    case 'boolean':
      return { type: 'boolean', ...description };
    case 'enum':
      return { type: 'string', enum: x.choices, ...description };
    case 'date':
      return { type: 'string', format: 'date', ...description };
  }
}

/** Why an edge was taken, in words (the path's `reason`). */
export function edgeReason(edge: FlowEdge): string {
  const c = edge.condition;
  switch (c?.type) {
    case 'prompt':
      return c.prompt;
    case 'expression':
      return `expression ${c.expression}`;
    case 'result':
      return c.ok ? 'function ok' : 'function failed';
    case 'always':
      return 'always';
    case 'else':
      return 'else';
    default:
      return '';
  }
}

export class FlowRun {
  private readonly actor: Actor<FlowMachine>;
  private readonly byId: Map<string, FlowNode>;
  private readonly events: FlowEvent[];
  readonly path: FlowPathStep[];
  private worked: number;
  /** the transitions of the event being handled (the actor's microsteps) */
  private taken: AnyTransitionDefinition[] = [];
  private replaying = false;

  constructor(
    readonly flow: Flow,
    private readonly variables: Readonly<Record<string, string>>,
    private readonly now: () => Date,
    saved?: FlowRunState,
    /** a node was entered (not when a saved run is rebuilt) */
    private readonly entered: (step: FlowPathStep) => void = () => {},
  ) {
    this.byId = new Map(flow.nodes.map((n) => [n.id, n]));
    this.events = [];
    this.path = saved ? saved.path.map((s) => ({ ...s })) : [];
    this.worked = saved?.worked ?? -1;
    this.actor = createActor(machineOf(flow), {
      input: { variables: { ...variables } },
      inspect: (e: InspectionEvent) => {
        if (e.type === '@xstate.microstep') this.taken.push(...e._transitions);
      },
    });
    this.replaying = saved !== undefined;
    this.actor.start();
    if (!saved) {
      this.enter(flow.start_node_id, this.now().toISOString());
      this.record();
    }
    for (const event of saved?.events ?? []) this.send(event);
    this.replaying = false;
    this.taken = [];
  }

  /** The node the call is in. */
  node(): FlowNode {
    const node = this.byId.get(currentNode(this.actor.getSnapshot()));
    if (!node) throw new Error('The flow is in no node');
    return node;
  }

  /** The machine has reached an end node. */
  get done(): boolean {
    return this.actor.getSnapshot().status === 'done';
  }

  /** What is kept between a chat's turns. */
  state(): FlowRunState {
    return { events: [...this.events], path: this.path.map((s) => ({ ...s })), worked: this.worked };
  }

  /** The agent's dynamic variables with the extracted ones, as text (for {{placeholders}}). */
  values(): Record<string, string> {
    const out: Record<string, string> = { ...this.variables };
    for (const [k, v] of Object.entries(this.actor.getSnapshot().context.variables))
      if (v !== null && v !== undefined) out[k] = String(v);
    return out;
  }

  /**
   * A function node's arguments: the call's values (extracted ones typed, dynamic ones as text) whose
   * names are among the function's parameters.
   */
  argumentsFor(parameters: Record<string, unknown>): Record<string, unknown> {
    const properties = parameters.properties;
    if (typeof properties !== 'object' || properties === null) return {};
    const values: Record<string, unknown> = { ...this.variables };
    for (const [k, v] of Object.entries(this.actor.getSnapshot().context.variables)) if (v !== null) values[k] = v;
    return Object.fromEntries(
      Object.keys(properties)
        .filter((k) => Object.hasOwn(values, k))
        .map((k) => [k, values[k]]),
    );
  }

  /** The system prompt of a turn in the current node. */
  prompt(): string {
    const node = this.node();
    const values = this.values();
    const parts = [fillVariables(this.flow.global_prompt, values).trim(), `Current step: ${node.name}.`];
    const instruction = 'instruction' in node ? node.instruction : undefined;
    if (instruction?.text.trim()) {
      const text = fillVariables(instruction.text, values).trim();
      parts.push(instruction.type === 'static_text' ? `You have said to the caller: "${text}"` : text);
    }
    if (node.type === 'extract')
      parts.push(
        `Find out from the caller: ${node.variables
          .map(
            (x) =>
              `${x.name} (${x.type === 'enum' ? `one of ${x.choices.join(', ')}` : x.type})${x.description ? `: ${x.description}` : ''}`,
          )
          .join('; ')}. Once you know them, call ${SET_VARIABLES}.`,
      );
    if (this.transitions().length > 0)
      parts.push(
        'When one of the conditions of your tools holds, call that tool before you answer, then follow the instructions it answers.',
      );
    return parts.filter(Boolean).join('\n\n');
  }

  /** The model's temperature in the current node, if the node sets one. */
  temperature(): number | undefined {
    const node = this.node();
    return node.type === 'conversation' ? node.temperature : undefined;
  }

  private transitions(): Transition[] {
    if (this.done) return [];
    const seen = new Set<string>();
    const out: Transition[] = [];
    for (const t of offeredTransitions(this.flow, this.node().id)) {
      const name = `${t.kind === 'edge' ? 'next_' : 'goto_'}${t.event.split('.').at(-1)}`.slice(0, TOOL_NAME_MAX);
      if (seen.has(name)) continue;
      seen.add(name);
      const target = this.byId.get(t.to)?.name ?? t.to;
      out.push({
        event: t.event,
        spec: {
          name,
          description: `Call this when: ${t.condition} (it moves the call to the step "${target}").`,
          parameters: NO_ARGUMENTS,
        },
      });
    }
    return out;
  }

  /** The tools the flow offers the model in the current node. */
  tools(): ToolSpec[] {
    const specs = this.transitions().map((t) => t.spec);
    const node = this.node();
    if (node.type === 'extract' && !this.done)
      specs.push({
        name: SET_VARIABLES,
        description: `Save what the caller said: ${node.variables.map((x) => x.name).join(', ')}.`,
        parameters: {
          type: 'object',
          properties: Object.fromEntries(node.variables.map((x) => [x.name, variableSchema(x)])),
          required: [],
        },
      });
    return specs;
  }

  /** Whether `name` is one of the flow's tools in the current node. */
  owns(name: string): boolean {
    return this.tools().some((t) => t.name === name);
  }

  /**
   * The model called one of the flow's tools: the machine moves (or the variables are saved, and the node's
   * conditions evaluated). Answers what the model reads: the new step's instruction, or why nothing moved.
   */
  call(name: string, args: Record<string, unknown>): string {
    const from = this.path.length;
    if (name === SET_VARIABLES && this.node().type === 'extract') {
      this.send({ type: FLOW_EVENT.variables, values: args });
      this.send({ type: FLOW_EVENT.done });
      const saved = `Saved.`;
      return this.path.length > from ? `${saved} ${this.arrival()}` : saved;
    }
    const t = this.transitions().find((x) => x.spec.name === name);
    if (!t) return 'That step is not possible now.';
    this.send({ type: t.event } as FlowEvent);
    return this.path.length > from ? this.arrival() : 'That step is not possible now.';
  }

  /** What the model is told when it arrives in a node. */
  private arrival(): string {
    const node = this.node();
    const instruction = 'instruction' in node ? node.instruction : undefined;
    const text = instruction?.text.trim() ? fillVariables(instruction.text, this.values()).trim() : '';
    if (node.type === 'conversation' && instruction?.type === 'prompt') return `Now in step "${node.name}": ${text}`;
    if (node.type === 'extract') return `Now in step "${node.name}": ${text} Then call ${SET_VARIABLES}.`.trim();
    // the engine does this node's work itself (a static text, a function, the end): say nothing more
    return `Now in step "${node.name}". Say nothing more in this reply.`;
  }

  /**
   * The node's own work the engine does without the model, once per visit: undefined when the model
   * answers in this node (a prompt conversation, an extract), or when it is done already.
   */
  work(): FlowNode | undefined {
    const node = this.node();
    const here = this.path.length - 1;
    if (this.worked === here) return undefined;
    const statik = 'instruction' in node && node.instruction?.type === 'static_text';
    if (node.type === 'conversation' && !statik) return undefined;
    if (node.type === 'extract') return undefined;
    return node;
  }

  /** The engine did the node's work; `ok` is a function's (or transfer's) outcome. */
  workDone(ok?: boolean): void {
    this.worked = this.path.length - 1;
    this.send(ok === undefined ? { type: FLOW_EVENT.done } : { type: FLOW_EVENT.done, ok });
  }

  /** The work of the current node is done without a `flow.done` (an end or transfer node). */
  markWorked(): void {
    this.worked = this.path.length - 1;
  }

  private send(event: FlowEvent): void {
    this.taken = [];
    this.events.push(event);
    this.actor.send(event);
    if (!this.replaying) this.record();
    this.taken = [];
  }

  /** The path steps of the transitions just taken. */
  private record(): void {
    const at = this.now().toISOString();
    for (const t of this.taken) {
      const targetKey = t.target?.[0]?.key;
      if (!targetKey) continue;
      const last = this.path.at(-1);
      if (!last) continue;
      const source = this.byId.get(last.node_id);
      const edgeId = typeof t.description === 'string' ? t.description.split(': ')[0] : undefined;
      const edge = source?.edges.find((e) => e.id === edgeId);
      const global = t.eventType?.startsWith('flow.global.');
      const to = targetKey === FLOW_HISTORY_STATE ? currentNode(this.actor.getSnapshot()) : targetKey;
      if (!this.byId.has(to)) continue;
      last.left_at = at;
      last.edge_id = edge && !global ? edge.id : null;
      last.reason = global
        ? `global: ${this.byId.get(to)?.global?.condition.prompt ?? ''}`
        : edge
          ? edgeReason(edge)
          : 'back to where the call was';
      this.enter(to, at);
    }
  }

  private enter(nodeId: string, at: string): void {
    const step: FlowPathStep = {
      node_id: nodeId,
      name: this.byId.get(nodeId)?.name ?? nodeId,
      entered_at: at,
      left_at: null,
      edge_id: null,
      reason: null,
    };
    this.path.push(step);
    this.entered(step);
  }
}
