/**
 * A conversation flow: the document a `conversation_flow` agent keeps in `flow` (POST /agent, PUT /agent/{id}),
 * shared by the editor and the server. docs/flows.md explains it; docs/examples/receptionist-flow.json is a
 * complete one.
 *
 *   { "start_node_id": "greet", "global_prompt": "...",
 *     "nodes": [ { "id", "type", "name", "edges": [ { "id", "to", "condition" } ], "position"?, "global"?, ... } ] }
 *
 * Two layers, like any editor document:
 * - `FlowSchema` checks the SHAPE (types, lengths, counts). A draft the editor is still drawing passes it:
 *   an edge may still lack its condition and the start node may still be missing.
 * - `validateFlow(flow, functions)` checks the GRAPH and answers every problem with the node (and edge) it
 *   belongs to: no start node, an unreachable node, a node with no way out, an edge without a condition or
 *   to an unknown node, duplicate ids or variable names, a function the agent does not have, an expression
 *   that does not parse or reads an unknown variable, misplaced else edges. A flow agent is saved only
 *   when it answers no problem.
 */
import * as v from 'valibot';
import { text } from './fields';
import { parseExpression, VARIABLE_NAME_PATTERN } from './flow-expression';
import { FUNCTION_NAME_PATTERN, TRANSFER_MODES } from './functions';
import { AGENT_PROMPT_MAX } from './messages';

export const AGENT_KINDS = ['single_prompt', 'conversation_flow'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];
export const AgentKindSchema = v.picklist(AGENT_KINDS, 'Agent kind must be single_prompt or conversation_flow');

export const FLOW_NODE_TYPES = ['conversation', 'function', 'extract', 'logic_split', 'transfer', 'press_digit', 'end'] as const;
export type FlowNodeType = (typeof FLOW_NODE_TYPES)[number];
export const FLOW_CONDITION_TYPES = ['prompt', 'expression', 'result', 'always', 'else'] as const;
export type FlowConditionType = (typeof FLOW_CONDITION_TYPES)[number];
export const FLOW_VARIABLE_TYPES = ['text', 'number', 'boolean', 'enum', 'date'] as const;
export type FlowVariableType = (typeof FLOW_VARIABLE_TYPES)[number];

export const FLOW_LIMITS = {
  nodes: 500,
  edgesPerNode: 50,
  /** every node's edges together */
  edges: 2000,
  variablesPerNode: 20,
  choices: 50,
  knowledgeBases: 20,
  name: 200,
  instruction: 10_000,
  condition: 1_000,
  description: 1_000,
  globalPrompt: AGENT_PROMPT_MAX,
  /** how far from the origin the editor may place a node */
  position: 1_000_000,
} as const;

/** Node and edge ids: they name the compiled machine's states and events, so no dots or spaces. */
export const FLOW_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const FLOW_MESSAGES = {
  id: 'Ids: letters, digits, _ and - only, at most 64 characters',
  variableName: 'Variable names: letters, digits and _ only, starting with a letter or _',
  nameRequired: 'Give the node a name',
  tooManyNodes: `A flow has at most ${FLOW_LIMITS.nodes} nodes`,
  tooManyEdges: `A flow has at most ${FLOW_LIMITS.edges} edges`,
  choices: 'A one-of-a-list variable needs at least 2 choices',
  digits: 'Digits: 0-9, * and # only, at most 50',
  number: 'Transfer number: + and 7 to 15 digits',
  conditionRequired: 'The edge needs a condition',
  promptRequired: 'Describe the condition',
  expressionRequired: 'Write the expression',
  flowRequired: 'A conversation flow agent needs a flow',
  // the graph's problems (validateFlow)
  noStart: 'The flow has no start node',
  unknownStart: (id: string) => `The start node ${id} is not in the flow`,
  startGlobal: 'The start node cannot be a global node',
  duplicateNode: (id: string) => `Another node has the id ${id}`,
  duplicateEdge: (id: string) => `Another edge has the id ${id}`,
  unreachable: 'No path from the start node reaches this node',
  noWayOut: 'The node has no way out: add an edge (or make it an end node)',
  unknownTarget: (to: string) => `The edge leads to ${to}, which is not in the flow`,
  duplicateVariable: (name: string) => `Another node already extracts the variable ${name}`,
  unknownFunction: (name: string) => `The agent has no function named ${name}`,
  badExpression: (message: string) => `The expression does not parse: ${message}`,
  unknownVariable: (name: string) => `The expression reads ${name}, which no node extracts`,
  manyElse: 'A node has at most one else edge',
  elseOutsideSplit: 'Only a logic split has an else edge',
  splitNeedsElse: 'A logic split needs an else (or always) edge, so it never stops',
  promptInSplit: 'A logic split decides without the model: use expression, always or else conditions',
  resultOutsideFunction: 'Only a function or transfer node branches on its result',
  endWithEdges: 'An end node has no edges',
} as const;

const id = v.pipe(v.string(FLOW_MESSAGES.id), v.regex(FLOW_ID_PATTERN, FLOW_MESSAGES.id));
const requiredFlowText = (max: number, msg: string) =>
  v.pipe(v.string(msg), v.trim(), v.nonEmpty(msg), v.maxLength(max, `At most ${max} characters`));

export const FlowConditionSchema = v.variant('type', [
  v.object({ type: v.literal('prompt'), prompt: requiredFlowText(FLOW_LIMITS.condition, FLOW_MESSAGES.promptRequired) }),
  v.object({
    type: v.literal('expression'),
    expression: requiredFlowText(FLOW_LIMITS.condition, FLOW_MESSAGES.expressionRequired),
  }),
  /** a function (or transfer) node's outcome: `ok: true` when it succeeded */
  v.object({ type: v.literal('result'), ok: v.boolean() }),
  v.object({ type: v.literal('always') }),
  v.object({ type: v.literal('else') }),
]);
export type FlowCondition = v.InferOutput<typeof FlowConditionSchema>;

export const FlowEdgeSchema = v.object({
  id,
  to: id,
  /** optional while drawing; validateFlow names an edge without one */
  condition: v.optional(FlowConditionSchema),
});
export type FlowEdge = v.InferOutput<typeof FlowEdgeSchema>;

export const FlowInstructionSchema = v.object({
  /** `prompt`: instructions the model follows; `static_text`: a sentence said as written */
  type: v.picklist(['prompt', 'static_text'], 'Instruction type must be prompt or static_text'),
  text: v.pipe(v.string(), v.maxLength(FLOW_LIMITS.instruction, `At most ${FLOW_LIMITS.instruction} characters`)),
});
export type FlowInstruction = v.InferOutput<typeof FlowInstructionSchema>;

export const FlowVariableSchema = v.pipe(
  v.object({
    name: v.pipe(
      v.string(FLOW_MESSAGES.variableName),
      v.maxLength(64),
      v.regex(VARIABLE_NAME_PATTERN, FLOW_MESSAGES.variableName),
    ),
    type: v.picklist(FLOW_VARIABLE_TYPES, 'Variable type must be text, number, boolean, enum or date'),
    description: v.optional(text(FLOW_LIMITS.description), ''),
    /** the allowed values of an `enum` ('one of a list') */
    choices: v.optional(
      v.pipe(v.array(requiredFlowText(100, 'A choice cannot be empty')), v.maxLength(FLOW_LIMITS.choices)),
      () => [],
    ),
  }),
  v.check((x) => x.type !== 'enum' || x.choices.length >= 2, FLOW_MESSAGES.choices),
);
export type FlowVariable = v.InferOutput<typeof FlowVariableSchema>;

export const FlowGlobalSchema = v.object({
  /** what the model decides to enter the node from anywhere ('The caller asks for a person') */
  condition: v.object({
    type: v.literal('prompt'),
    prompt: requiredFlowText(FLOW_LIMITS.condition, FLOW_MESSAGES.promptRequired),
  }),
  /** after the node: back to where the call was (`true` / 'return'), or the call ends (`false` / 'end') */
  return: v.optional(v.union([v.boolean(), v.picklist(['return', 'end'])]), 'return'),
});
export type FlowGlobal = v.InferOutput<typeof FlowGlobalSchema>;
/** Whether a global node goes back to where the call was once it is done. */
export const globalReturns = (g: FlowGlobal) => g.return === true || g.return === 'return';

const common = {
  id,
  name: requiredFlowText(FLOW_LIMITS.name, FLOW_MESSAGES.nameRequired),
  edges: v.optional(v.pipe(v.array(FlowEdgeSchema), v.maxLength(FLOW_LIMITS.edgesPerNode)), () => []),
  /** where the editor draws the node */
  position: v.optional(
    v.object({
      x: v.pipe(v.number(), v.finite(), v.minValue(-FLOW_LIMITS.position), v.maxValue(FLOW_LIMITS.position)),
      y: v.pipe(v.number(), v.finite(), v.minValue(-FLOW_LIMITS.position), v.maxValue(FLOW_LIMITS.position)),
    }),
  ),
  /** a global node can be entered from any node when its condition holds */
  global: v.optional(FlowGlobalSchema),
};
const instruction = v.optional(FlowInstructionSchema);

export const FlowNodeSchema = v.variant('type', [
  v.object({
    ...common,
    type: v.literal('conversation'),
    instruction: FlowInstructionSchema,
    /** ids of the company's knowledge bases this step may also use */
    knowledge_base_ids: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(FLOW_LIMITS.knowledgeBases))),
    /** the model's temperature in this step (else the agent's) */
    temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  }),
  v.object({
    ...common,
    type: v.literal('function'),
    /** the name of one of the agent's functions */
    function: v.pipe(v.string(), v.regex(FUNCTION_NAME_PATTERN, 'Choose one of the agent’s functions')),
    /** what to say while it runs */
    instruction,
  }),
  v.object({
    ...common,
    type: v.literal('extract'),
    variables: v.pipe(
      v.array(FlowVariableSchema),
      v.minLength(1, 'Add a variable to extract'),
      v.maxLength(FLOW_LIMITS.variablesPerNode),
    ),
    instruction,
  }),
  v.object({ ...common, type: v.literal('logic_split') }),
  v.object({
    ...common,
    type: v.literal('transfer'),
    number: v.pipe(v.string(FLOW_MESSAGES.number), v.regex(/^\+[1-9]\d{6,14}$/, FLOW_MESSAGES.number)),
    mode: v.optional(v.picklist(TRANSFER_MODES), 'cold'),
    instruction,
  }),
  v.object({
    ...common,
    type: v.literal('press_digit'),
    /** the digits to press; without them the model chooses from the instruction (an IVR's menu) */
    digits: v.optional(v.pipe(v.string(), v.regex(/^[0-9*#]{1,50}$/, FLOW_MESSAGES.digits))),
    instruction,
  }),
  v.object({ ...common, type: v.literal('end'), instruction }),
]);
export type FlowNode = v.InferOutput<typeof FlowNodeSchema>;

export const FlowSchema = v.object({
  /** optional while drawing; validateFlow names a flow without one */
  start_node_id: v.optional(v.union([v.literal(''), id]), ''),
  global_prompt: v.optional(text(FLOW_LIMITS.globalPrompt), ''),
  nodes: v.pipe(
    v.array(FlowNodeSchema),
    v.maxLength(FLOW_LIMITS.nodes, FLOW_MESSAGES.tooManyNodes),
    v.check((ns) => ns.reduce((n, x) => n + x.edges.length, 0) <= FLOW_LIMITS.edges, FLOW_MESSAGES.tooManyEdges),
  ),
});
export type Flow = v.InferOutput<typeof FlowSchema>;
export type FlowInput = v.InferInput<typeof FlowSchema>;

/** One problem of a flow, pointing at its node (and edge); `node_id` is '' for the flow as a whole. */
export interface FlowProblem {
  node_id: string;
  edge_id?: string;
  message: string;
}

/** Node types after which the call is over, so they need no way out. */
const TERMINAL_TYPES: readonly FlowNodeType[] = ['end', 'transfer'];

/** Every variable a flow's extract nodes declare, by name (the first declaration wins). */
export function flowVariables(flow: Pick<Flow, 'nodes'>): Map<string, FlowVariable> {
  const vars = new Map<string, FlowVariable>();
  for (const node of flow.nodes)
    if (node.type === 'extract') for (const x of node.variables) if (!vars.has(x.name)) vars.set(x.name, x);
  return vars;
}

/**
 * Every problem of a (shape-valid) flow, in node order. `functions` are the agent's functions (their
 * names); `variables` are names an expression may read besides the extracted ones (the agent's dynamic
 * variables). An empty answer means the flow can be compiled and run.
 */
export function validateFlow(
  flow: Flow,
  functions: readonly (string | { name: string })[],
  variables: readonly string[] = [],
): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const byId = new Map<string, FlowNode>();
  for (const node of flow.nodes) {
    if (byId.has(node.id)) problems.push({ node_id: node.id, message: FLOW_MESSAGES.duplicateNode(node.id) });
    else byId.set(node.id, node);
  }

  const start = flow.start_node_id;
  if (!start) problems.push({ node_id: '', message: FLOW_MESSAGES.noStart });
  else if (!byId.has(start)) problems.push({ node_id: start, message: FLOW_MESSAGES.unknownStart(start) });
  else if (byId.get(start)!.global) problems.push({ node_id: start, message: FLOW_MESSAGES.startGlobal });

  const functionNames = new Set(functions.map((f) => (typeof f === 'string' ? f : f.name)));
  const known = new Set(variables);
  const declared = new Set<string>();
  for (const node of flow.nodes)
    if (node.type === 'extract')
      for (const x of node.variables) {
        if (declared.has(x.name)) problems.push({ node_id: node.id, message: FLOW_MESSAGES.duplicateVariable(x.name) });
        declared.add(x.name);
        known.add(x.name);
      }

  const edgeIds = new Set<string>();
  for (const node of flow.nodes) {
    const at = (edge_id: string | undefined, message: string) =>
      problems.push(edge_id === undefined ? { node_id: node.id, message } : { node_id: node.id, edge_id, message });
    if (node.type === 'function' && !functionNames.has(node.function))
      at(undefined, FLOW_MESSAGES.unknownFunction(node.function));
    if (node.type === 'end' && node.edges.length > 0) at(undefined, FLOW_MESSAGES.endWithEdges);
    const returns = node.global !== undefined && globalReturns(node.global);
    if (node.edges.length === 0 && !TERMINAL_TYPES.includes(node.type) && !returns) at(undefined, FLOW_MESSAGES.noWayOut);
    let elses = 0;
    let leavesAlways = false;
    for (const edge of node.edges) {
      if (edgeIds.has(edge.id)) at(edge.id, FLOW_MESSAGES.duplicateEdge(edge.id));
      edgeIds.add(edge.id);
      if (!byId.has(edge.to)) at(edge.id, FLOW_MESSAGES.unknownTarget(edge.to));
      const c = edge.condition;
      if (!c) {
        at(edge.id, FLOW_MESSAGES.conditionRequired);
        continue;
      }
      if (c.type === 'else') {
        elses++;
        leavesAlways = true;
        if (node.type !== 'logic_split') at(edge.id, FLOW_MESSAGES.elseOutsideSplit);
      }
      if (c.type === 'always') leavesAlways = true;
      if (c.type === 'prompt' && node.type === 'logic_split') at(edge.id, FLOW_MESSAGES.promptInSplit);
      if (c.type === 'result' && node.type !== 'function' && node.type !== 'transfer')
        at(edge.id, FLOW_MESSAGES.resultOutsideFunction);
      if (c.type === 'expression') {
        const parsed = parseExpression(c.expression);
        if (!parsed.ok) at(edge.id, FLOW_MESSAGES.badExpression(parsed.message));
        else for (const name of parsed.variables) if (!known.has(name)) at(edge.id, FLOW_MESSAGES.unknownVariable(name));
      }
    }
    if (elses > 1) at(undefined, FLOW_MESSAGES.manyElse);
    if (node.type === 'logic_split' && node.edges.length > 0 && !leavesAlways) at(undefined, FLOW_MESSAGES.splitNeedsElse);
  }

  // reachable: from the start node along edges; a global node is reachable from any reached node
  if (start && byId.has(start)) {
    const reached = new Set<string>();
    const queue = [start, ...flow.nodes.filter((n) => n.global).map((n) => n.id)];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (reached.has(next)) continue;
      reached.add(next);
      for (const edge of byId.get(next)?.edges ?? []) if (byId.has(edge.to) && !reached.has(edge.to)) queue.push(edge.to);
    }
    for (const node of byId.values())
      if (!reached.has(node.id)) problems.push({ node_id: node.id, message: FLOW_MESSAGES.unreachable });
  }
  return problems;
}

/** The flow's problems as one readable message (the 400 answer's `msg`). */
export function flowProblemsMessage(problems: readonly FlowProblem[]): string {
  const lines = problems.map((p) => {
    const where = p.node_id === '' ? 'flow' : p.edge_id ? `node ${p.node_id}, edge ${p.edge_id}` : `node ${p.node_id}`;
    return `${where}: ${p.message}`;
  });
  return `The flow is not valid: ${lines.join('; ')}`;
}

/**
 * The problems of an agent document's flow: none for a single-prompt agent; for a conversation-flow agent,
 * a missing flow or every problem validateFlow finds against the agent's own functions and dynamic variables.
 */
export function agentFlowProblems(doc: {
  kind?: AgentKind | undefined;
  flow?: Flow | undefined;
  editor: { functions?: readonly { name: string }[]; dynamicVariables?: readonly { name: string }[] };
}): FlowProblem[] {
  if (doc.kind !== 'conversation_flow') return [];
  if (!doc.flow) return [{ node_id: '', message: FLOW_MESSAGES.flowRequired }];
  return validateFlow(
    doc.flow,
    doc.editor.functions ?? [],
    (doc.editor.dynamicVariables ?? []).map((d) => d.name),
  );
}
