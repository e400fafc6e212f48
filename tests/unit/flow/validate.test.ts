import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  FLOW_LIMITS,
  FLOW_MESSAGES,
  type Flow,
  type FlowInput,
  type FlowProblem,
  FlowSchema,
  flowProblemsMessage,
  validateFlow,
} from '../../../src/api/contract/agent/flow';
import { AgentListItemSchema } from '../../../src/api/contract/agent/responses';
import { sampleFlow } from './sample';

const FUNCTIONS = [{ name: 'book_appointment_cal' }];
const parse = (x: FlowInput): Flow => v.parse(FlowSchema, x);
/** The problems of the sample flow after `change` edits its parsed copy. */
const problemsAfter = (change: (f: Flow) => void, functions = FUNCTIONS): FlowProblem[] => {
  const f = parse(sampleFlow());
  change(f);
  return validateFlow(f, functions);
};
const node = (f: Flow, id: string) => f.nodes.find((n) => n.id === id)!;

describe('FlowSchema (the shape)', () => {
  it("accepts the issue's example and fills the defaults", () => {
    const f = parse(sampleFlow());
    expect(f.nodes).toHaveLength(6);
    expect(node(f, 'bye').edges).toEqual([]);
    expect(node(f, 'human').global?.return).toBe('return');
  });
  it('accepts a draft: an edge without a condition, no start node yet', () => {
    const r = v.safeParse(FlowSchema, { nodes: [{ id: 'a', type: 'logic_split', name: 'A', edges: [{ id: 'e', to: 'a' }] }] });
    expect(r.success).toBe(true);
  });
  it.each([
    ['an unknown node type', { id: 'a', type: 'dance', name: 'A' }],
    ['an id with a dot', { id: 'a.b', type: 'end', name: 'A' }],
    ['a blank name', { id: 'a', type: 'end', name: '  ' }],
    ['a conversation without an instruction', { id: 'a', type: 'conversation', name: 'A' }],
    [
      'an unknown condition type',
      { id: 'a', type: 'end', name: 'A', edges: [{ id: 'e', to: 'a', condition: { type: 'maybe' } }] },
    ],
    ['an extract node without variables', { id: 'a', type: 'extract', name: 'A', variables: [] }],
    [
      'an enum with one choice',
      { id: 'a', type: 'extract', name: 'A', variables: [{ name: 'x', type: 'enum', choices: ['one'] }] },
    ],
    ['a variable name with a space', { id: 'a', type: 'extract', name: 'A', variables: [{ name: 'first name', type: 'text' }] }],
    ['a variable of an unknown type', { id: 'a', type: 'extract', name: 'A', variables: [{ name: 'x', type: 'money' }] }],
    ['a transfer to a non-number', { id: 'a', type: 'transfer', name: 'A', number: 'call me' }],
    ['press digits with letters', { id: 'a', type: 'press_digit', name: 'A', digits: '12a' }],
    [
      'a temperature above 1',
      { id: 'a', type: 'conversation', name: 'A', instruction: { type: 'prompt', text: '' }, temperature: 3 },
    ],
    ['a position far away', { id: 'a', type: 'end', name: 'A', position: { x: 1e12, y: 0 } }],
    [
      'a global node entered by an expression',
      { id: 'a', type: 'end', name: 'A', global: { condition: { type: 'expression', expression: 'x' } } },
    ],
    [
      'an instruction too long',
      { id: 'a', type: 'end', name: 'A', instruction: { type: 'prompt', text: 'x'.repeat(FLOW_LIMITS.instruction + 1) } },
    ],
  ])('refuses %s', (_what, bad) => {
    expect(v.safeParse(FlowSchema, { start_node_id: 'a', nodes: [bad] }).success).toBe(false);
  });
  it('refuses more nodes or edges than the limits', () => {
    const end = (i: number) => ({ id: `n${i}`, type: 'end' as const, name: 'N' });
    expect(v.safeParse(FlowSchema, { nodes: Array.from({ length: FLOW_LIMITS.nodes }, (_, i) => end(i)) }).success).toBe(true);
    expect(v.safeParse(FlowSchema, { nodes: Array.from({ length: FLOW_LIMITS.nodes + 1 }, (_, i) => end(i)) }).success).toBe(
      false,
    );
    const split = (i: number, edges: number) => ({
      id: `s${i}`,
      type: 'logic_split' as const,
      name: 'S',
      edges: Array.from({ length: edges }, (_, j) => ({ id: `e${i}_${j}`, to: 's0', condition: { type: 'always' as const } })),
    });
    expect(v.safeParse(FlowSchema, { nodes: [split(0, FLOW_LIMITS.edgesPerNode + 1)] }).success).toBe(false);
    const many = Array.from({ length: FLOW_LIMITS.edges / FLOW_LIMITS.edgesPerNode + 1 }, (_, i) =>
      split(i, FLOW_LIMITS.edgesPerNode),
    );
    expect(v.safeParse(FlowSchema, { nodes: many }).success).toBe(false);
  });
});

describe('validateFlow (the graph)', () => {
  it('finds no problem in the sample flow', () => {
    expect(validateFlow(parse(sampleFlow()), FUNCTIONS)).toEqual([]);
  });
  it('names a flow without a start node', () => {
    expect(problemsAfter((f) => (f.start_node_id = ''))).toContainEqual({ node_id: '', message: FLOW_MESSAGES.noStart });
    expect(validateFlow(parse({ nodes: [] }), [])).toEqual([{ node_id: '', message: FLOW_MESSAGES.noStart }]);
  });
  it('names a start node that is not in the flow', () => {
    expect(problemsAfter((f) => (f.start_node_id = 'nope'))).toContainEqual({
      node_id: 'nope',
      message: FLOW_MESSAGES.unknownStart('nope'),
    });
  });
  it('names a global start node', () => {
    expect(problemsAfter((f) => (f.start_node_id = 'human'))).toContainEqual({
      node_id: 'human',
      message: FLOW_MESSAGES.startGlobal,
    });
  });
  it('names a node nobody can reach', () => {
    const problems = problemsAfter((f) => {
      node(f, 'greet').edges = node(f, 'greet').edges.filter((e) => e.to !== 'age');
    });
    expect(problems).toEqual(['age', 'split', 'book'].map((node_id) => ({ node_id, message: FLOW_MESSAGES.unreachable })));
  });
  it('counts a global node and what it leads to as reachable', () => {
    const problems = problemsAfter((f) => {
      node(f, 'human').global = undefined;
      node(f, 'book').edges.pop();
    });
    expect(problems).toEqual([{ node_id: 'human', message: FLOW_MESSAGES.unreachable }]);
  });
  it('names a non-end node with no way out', () => {
    expect(problemsAfter((f) => (node(f, 'age').edges = []))).toEqual([
      { node_id: 'age', message: FLOW_MESSAGES.noWayOut },
      ...['split', 'book'].map((node_id) => ({ node_id, message: FLOW_MESSAGES.unreachable })),
    ]);
  });
  it('lets a returning global node have no edges, but not one that does not return', () => {
    const conversation = (ret: 'return' | 'end') => (f: Flow) => {
      f.nodes.push({
        id: 'calm',
        type: 'conversation',
        name: 'Emergency',
        instruction: { type: 'prompt', text: 'Tell them to call 911' },
        edges: [],
        global: { condition: { type: 'prompt', prompt: 'A medical emergency' }, return: ret },
      });
    };
    expect(problemsAfter(conversation('return'))).toEqual([]);
    expect(problemsAfter(conversation('end'))).toEqual([{ node_id: 'calm', message: FLOW_MESSAGES.noWayOut }]);
  });
  it('names an edge without a condition', () => {
    expect(problemsAfter((f) => (node(f, 'age').edges[0]!.condition = undefined))).toEqual([
      { node_id: 'age', edge_id: 'e3', message: FLOW_MESSAGES.conditionRequired },
    ]);
  });
  it('names an edge to an unknown node', () => {
    expect(problemsAfter((f) => (node(f, 'greet').edges[1]!.to = 'ghost'))).toEqual([
      { node_id: 'greet', edge_id: 'e2', message: FLOW_MESSAGES.unknownTarget('ghost') },
    ]);
  });
  it('names duplicate node ids and edge ids', () => {
    const problems = problemsAfter((f) => {
      f.nodes.push({ id: 'bye', type: 'end', name: 'Again', edges: [] });
      node(f, 'book').edges[1]!.id = 'e6';
    });
    expect(problems).toEqual([
      { node_id: 'bye', message: FLOW_MESSAGES.duplicateNode('bye') },
      { node_id: 'book', edge_id: 'e6', message: FLOW_MESSAGES.duplicateEdge('e6') },
    ]);
  });
  it('names a duplicate variable name', () => {
    const problems = problemsAfter((f) => {
      const age = node(f, 'age');
      if (age.type === 'extract') age.variables.push({ name: 'age', type: 'text', description: '', choices: [] });
    });
    expect(problems).toEqual([{ node_id: 'age', message: FLOW_MESSAGES.duplicateVariable('age') }]);
  });
  it('names a function node whose function the agent does not have', () => {
    expect(problemsAfter(() => {}, [])).toEqual([
      { node_id: 'book', message: FLOW_MESSAGES.unknownFunction('book_appointment_cal') },
    ]);
    expect(validateFlow(parse(sampleFlow()), ['book_appointment_cal'])).toEqual([]);
  });
  it('names an expression that does not parse', () => {
    const problems = problemsAfter((f) => {
      const c = node(f, 'split').edges[0]!.condition;
      if (c?.type === 'expression') c.expression = 'age >=';
    });
    expect(problems).toEqual([
      { node_id: 'split', edge_id: 'e4', message: FLOW_MESSAGES.badExpression('The expression ends too early') },
    ]);
  });
  it('names an expression that reads an unknown variable, unless the agent defines it', () => {
    const change = (f: Flow) => {
      const c = node(f, 'split').edges[0]!.condition;
      if (c?.type === 'expression') c.expression = 'age >= 65 && insured';
    };
    expect(problemsAfter(change)).toEqual([
      { node_id: 'split', edge_id: 'e4', message: FLOW_MESSAGES.unknownVariable('insured') },
    ]);
    const f = parse(sampleFlow());
    change(f);
    expect(validateFlow(f, FUNCTIONS, ['insured'])).toEqual([]);
  });
  it('names more than one else edge', () => {
    const problems = problemsAfter((f) => {
      node(f, 'split').edges.push({ id: 'e8', to: 'bye', condition: { type: 'else' } });
    });
    expect(problems).toEqual([{ node_id: 'split', message: FLOW_MESSAGES.manyElse }]);
  });
  it('names an else edge outside a logic split', () => {
    const problems = problemsAfter((f) => (node(f, 'age').edges[0]!.condition = { type: 'else' }));
    expect(problems).toEqual([{ node_id: 'age', edge_id: 'e3', message: FLOW_MESSAGES.elseOutsideSplit }]);
  });
  it('names a logic split that can stop (no else) or asks the model', () => {
    expect(problemsAfter((f) => node(f, 'split').edges.pop())).toEqual([
      { node_id: 'split', message: FLOW_MESSAGES.splitNeedsElse },
    ]);
    expect(problemsAfter((f) => (node(f, 'split').edges[0]!.condition = { type: 'prompt', prompt: 'Old?' }))).toEqual([
      { node_id: 'split', edge_id: 'e4', message: FLOW_MESSAGES.promptInSplit },
    ]);
  });
  it('names a result edge outside a function or transfer node, and edges on an end node', () => {
    expect(problemsAfter((f) => (node(f, 'age').edges[0]!.condition = { type: 'result', ok: true }))).toEqual([
      { node_id: 'age', edge_id: 'e3', message: FLOW_MESSAGES.resultOutsideFunction },
    ]);
    expect(problemsAfter((f) => node(f, 'bye').edges.push({ id: 'e9', to: 'greet', condition: { type: 'always' } }))).toEqual([
      { node_id: 'bye', message: FLOW_MESSAGES.endWithEdges },
    ]);
  });
  it('says every problem in one message, with its node and edge', () => {
    expect(
      flowProblemsMessage([
        { node_id: '', message: 'A' },
        { node_id: 'n', message: 'B' },
        { node_id: 'n', edge_id: 'e', message: 'C' },
      ]),
    ).toBe('The flow is not valid: flow: A; node n: B; node n, edge e: C');
  });
});

describe('agent answers', () => {
  it('reads an answer without kind as a single-prompt agent, and refuses an unknown kind', () => {
    const answer = { _id: 'a1', name: 'A', company: 'c', account: 'u', version: 1, createdAt: '', updatedAt: '' };
    const item = (extra: Record<string, unknown>) =>
      v.safeParse(v.pick(AgentListItemSchema, ['_id', 'name', 'kind']), { ...answer, ...extra });
    const plain = item({});
    expect(plain.success && plain.output.kind).toBe('single_prompt');
    const flow = item({ kind: 'conversation_flow' });
    expect(flow.success && flow.output.kind).toBe('conversation_flow');
    expect(item({ kind: 'multi_prompt' }).success).toBe(false);
  });
});
