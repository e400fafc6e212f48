/**
 * The flow editor's document operations: pure functions from a flow to the next flow (add, connect, change,
 * delete, move, lay out), the problems to list while editing, and the flow as @xyflow/react nodes and edges.
 * The editor keeps the flow as the agent form's `flow`; every change here makes a new flow (undo keeps the old).
 */
import dagre from '@dagrejs/dagre';
import * as v from 'valibot';
import {
  FLOW_LIMITS,
  type Flow,
  type FlowCondition,
  type FlowEdge,
  type FlowNode,
  type FlowNodeType,
  type FlowProblem,
  FlowSchema,
  validateFlow,
} from '../api/contract/agent/flow';

export const FLOW_NODE_LABELS: Record<FlowNodeType, string> = {
  conversation: 'Conversation',
  function: 'Function',
  extract: 'Extract variables',
  logic_split: 'Logic split',
  transfer: 'Transfer call',
  press_digit: 'Press digits',
  end: 'End call',
};

/** The size the canvas draws a node at (the layout spaces nodes by it). */
export const NODE_SIZE = { width: 220, height: 72 } as const;

/** The first id `prefix-N` not in `taken`. */
export function freshId(prefix: string, taken: ReadonlySet<string>): string {
  let n = taken.size + 1;
  while (taken.has(`${prefix}-${n}`)) n++;
  return `${prefix}-${n}`;
}

const nodeIds = (flow: Flow) => new Set(flow.nodes.map((n) => n.id));
const edgeIds = (flow: Flow) => new Set(flow.nodes.flatMap((n) => n.edges.map((e) => e.id)));
const clamp = (x: number) => Math.max(-FLOW_LIMITS.position, Math.min(FLOW_LIMITS.position, Math.round(x)));

/** A new node of a type, with the fields its type needs (a function node takes the agent's first function). */
export function newNode(
  type: FlowNodeType,
  id: string,
  position: { x: number; y: number },
  context: { functions?: readonly string[]; variableName?: string } = {},
): FlowNode {
  const base = { id, name: FLOW_NODE_LABELS[type], edges: [] as FlowEdge[], position };
  switch (type) {
    case 'conversation':
      return { ...base, type, instruction: { type: 'prompt', text: '' } };
    case 'function':
      return { ...base, type, function: context.functions?.[0] ?? '' };
    case 'extract':
      return {
        ...base,
        type,
        variables: [{ name: context.variableName ?? 'variable', type: 'text', description: '', choices: [] }],
      };
    case 'logic_split':
      return { ...base, type };
    case 'transfer':
      return { ...base, type, number: '', mode: 'cold' };
    case 'press_digit':
      return { ...base, type, instruction: { type: 'prompt', text: '' } };
    case 'end':
      return { ...base, type, instruction: { type: 'static_text', text: '' } };
  }
}

/** Adds a node of a type below the lowest one; answers the flow and the new node's id. */
export function addNode(flow: Flow, type: FlowNodeType, functions: readonly string[] = []): { flow: Flow; id: string } {
  const id = freshId(type.replace('_', '-'), nodeIds(flow));
  const lowest = flow.nodes.reduce((y, n) => Math.max(y, n.position?.y ?? 0), -NODE_SIZE.height * 2);
  const taken = new Set(flow.nodes.flatMap((n) => (n.type === 'extract' ? n.variables.map((x) => x.name) : [])));
  const variableName = freshId('variable', taken).replace('-', '_');
  const node = newNode(type, id, { x: 0, y: clamp(lowest + NODE_SIZE.height * 2) }, { functions, variableName });
  // the first node of an empty flow becomes its start
  const start = flow.start_node_id || id;
  return { flow: { ...flow, start_node_id: start, nodes: [...flow.nodes, node] }, id };
}

/** Replaces a node's fields (its id and edges stay). */
export function updateNode(flow: Flow, id: string, next: FlowNode): Flow {
  return { ...flow, nodes: flow.nodes.map((n) => (n.id === id ? ({ ...next, id, edges: n.edges } as FlowNode) : n)) };
}

/** Deletes a node and every edge that leads to it; the start node is unset when it was the one. */
export function removeNode(flow: Flow, id: string): Flow {
  return {
    ...flow,
    start_node_id: flow.start_node_id === id ? '' : flow.start_node_id,
    nodes: flow.nodes.filter((n) => n.id !== id).map((n) => ({ ...n, edges: n.edges.filter((e) => e.to !== id) })),
  };
}

/** Connects two nodes with a new edge (its condition is chosen afterwards); answers the new edge's id. */
export function addEdge(flow: Flow, from: string, to: string): { flow: Flow; id: string } {
  const id = freshId('edge', edgeIds(flow));
  return {
    flow: { ...flow, nodes: flow.nodes.map((n) => (n.id === from ? { ...n, edges: [...n.edges, { id, to }] } : n)) },
    id,
  };
}

/** The node an edge leaves, and the edge. */
export function findEdge(flow: Flow, edgeId: string): { from: FlowNode; edge: FlowEdge } | undefined {
  for (const from of flow.nodes) {
    const edge = from.edges.find((e) => e.id === edgeId);
    if (edge) return { from, edge };
  }
  return undefined;
}

/** Changes an edge's target or condition. */
export function updateEdge(flow: Flow, edgeId: string, patch: { to?: string; condition?: FlowCondition | undefined }): Flow {
  return {
    ...flow,
    nodes: flow.nodes.map((n) =>
      n.edges.some((e) => e.id === edgeId)
        ? { ...n, edges: n.edges.map((e) => (e.id === edgeId ? withEdgePatch(e, patch) : e)) }
        : n,
    ),
  };
}
function withEdgePatch(edge: FlowEdge, patch: { to?: string; condition?: FlowCondition | undefined }): FlowEdge {
  const next: FlowEdge = { id: edge.id, to: patch.to ?? edge.to };
  const condition = 'condition' in patch ? patch.condition : edge.condition;
  return condition ? { ...next, condition } : next;
}

export function removeEdge(flow: Flow, edgeId: string): Flow {
  return { ...flow, nodes: flow.nodes.map((n) => ({ ...n, edges: n.edges.filter((e) => e.id !== edgeId) })) };
}

/** Moves nodes to where they were dropped (bounded like the contract). */
export function moveNodes(flow: Flow, positions: ReadonlyMap<string, { x: number; y: number }>): Flow {
  return {
    ...flow,
    nodes: flow.nodes.map((n) => {
      const p = positions.get(n.id);
      return p ? { ...n, position: { x: clamp(p.x), y: clamp(p.y) } } : n;
    }),
  };
}

/** 'Auto layout': top to bottom with dagre, keeping every node and edge (only positions change). */
export function layoutFlow(flow: Flow): Flow {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 60, ranksep: 90 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of flow.nodes) g.setNode(n.id, { width: NODE_SIZE.width, height: NODE_SIZE.height });
  const ids = nodeIds(flow);
  for (const n of flow.nodes) for (const e of n.edges) if (ids.has(e.to)) g.setEdge(n.id, e.to);
  dagre.layout(g);
  const positions = new Map<string, { x: number; y: number }>();
  for (const n of flow.nodes) {
    const p = g.node(n.id);
    // dagre answers centres; the canvas places nodes by their top-left corner
    positions.set(n.id, { x: p.x - NODE_SIZE.width / 2, y: p.y - NODE_SIZE.height / 2 });
  }
  return moveNodes(flow, positions);
}

/** An edge's label on the canvas. */
export function conditionLabel(condition: FlowCondition | undefined): string {
  if (!condition) return 'No condition';
  switch (condition.type) {
    case 'prompt':
      return condition.prompt || 'Describe the condition';
    case 'expression':
      return condition.expression || 'Write the expression';
    case 'result':
      return condition.ok ? 'Succeeded' : 'Failed';
    case 'always':
      return 'Always';
    case 'else':
      return 'Else';
  }
}

/**
 * Every problem of the flow being drawn, each pointing at its node: first the fields the contract refuses
 * (an empty name, a transfer without a number...), then, once the shape is right, the graph's (validateFlow).
 */
export function flowProblems(flow: Flow, functions: readonly string[], variables: readonly string[] = []): FlowProblem[] {
  const parsed = v.safeParse(FlowSchema, flow);
  if (parsed.success) return validateFlow(parsed.output, functions, variables);
  return parsed.issues.map((issue) => {
    const path = issue.path ?? [];
    const index = path[0]?.key === 'nodes' ? path[1]?.key : undefined;
    const node = typeof index === 'number' ? flow.nodes[index] : undefined;
    const edgeIndex = path[2]?.key === 'edges' ? path[3]?.key : undefined;
    const edge = node && typeof edgeIndex === 'number' ? node.edges[edgeIndex] : undefined;
    const problem: FlowProblem = { node_id: node?.id ?? '', message: issue.message };
    return edge ? { ...problem, edge_id: edge.id } : problem;
  });
}

/** The data a canvas node shows. */
export interface CanvasNodeData extends Record<string, unknown> {
  node: FlowNode;
  start: boolean;
  problems: number;
}

/** The flow as @xyflow/react nodes (type `flow`) and edges (labelled with their condition). */
export function toCanvas(
  flow: Flow,
  problems: readonly FlowProblem[] = [],
): {
  nodes: { id: string; type: 'flow'; position: { x: number; y: number }; data: CanvasNodeData }[];
  edges: { id: string; source: string; target: string; label: string; data: { problem: boolean } }[];
} {
  const count = new Map<string, number>();
  const badEdges = new Set<string>();
  for (const p of problems) {
    count.set(p.node_id, (count.get(p.node_id) ?? 0) + 1);
    if (p.edge_id) badEdges.add(p.edge_id);
  }
  const ids = nodeIds(flow);
  return {
    nodes: flow.nodes.map((node, i) => ({
      id: node.id,
      type: 'flow',
      position: node.position ?? { x: 0, y: i * NODE_SIZE.height * 2 },
      data: { node, start: node.id === flow.start_node_id, problems: count.get(node.id) ?? 0 },
    })),
    edges: flow.nodes.flatMap((n) =>
      n.edges
        .filter((e) => ids.has(e.to))
        .map((e) => ({
          id: e.id,
          source: n.id,
          target: e.to,
          label: conditionLabel(e.condition),
          data: { problem: badEdges.has(e.id) },
        })),
    ),
  };
}
