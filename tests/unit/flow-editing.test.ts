import { describe, expect, it } from 'vitest';
import {
  AGENT_EDITOR_FORM_DEFAULTS,
  agentToEditorForm,
  agentToSavePayload,
  editorFormToSavePayload,
  newFlow,
  newFlowAgentForm,
} from '../../src/api/contract/agent/editor-form.js';
import { FLOW_MESSAGES, type Flow } from '../../src/api/contract/agent/flow.js';
import {
  addEdge,
  addNode,
  conditionLabel,
  findEdge,
  flowProblems,
  layoutFlow,
  moveNodes,
  NODE_SIZE,
  removeEdge,
  removeNode,
  toCanvas,
  updateEdge,
} from '../../src/flow/editing.js';

const edgesOf = (flow: Flow) => flow.nodes.flatMap((n) => n.edges.map((e) => `${n.id}->${e.to}:${e.id}`)).sort();

describe('flow editing', () => {
  it('a new flow has a start conversation node leading to an end node, and no problem', () => {
    const flow = newFlow();
    expect(flow.nodes.map((n) => n.type)).toEqual(['conversation', 'end']);
    expect(flow.start_node_id).toBe('start');
    expect(flowProblems(flow, [])).toEqual([]);
  });

  it('adds a node of each type with a fresh id; an unconnected node is unreachable', () => {
    let flow = newFlow();
    const ids: string[] = [];
    for (const type of ['conversation', 'function', 'extract', 'logic_split', 'transfer', 'press_digit', 'end'] as const) {
      const added = addNode(flow, type, ['book']);
      flow = added.flow;
      ids.push(added.id);
    }
    expect(new Set(ids).size).toBe(7);
    expect(new Set(flow.nodes.map((n) => n.id)).size).toBe(9);
    const extract = flow.nodes.find((n) => n.type === 'extract');
    expect(extract?.type === 'extract' && extract.variables[0]?.name).toMatch(/^variable_\d+$/);
    // the transfer has no number yet: the contract's message points at its node
    const problems = flowProblems(flow, ['book']);
    const transfer = ids[4]!;
    expect(problems).toContainEqual({ node_id: transfer, message: FLOW_MESSAGES.number });
  });

  it('connects, conditions, retargets and deletes edges; deleting a node drops the edges into it', () => {
    let flow = addNode(newFlow(), 'conversation').flow;
    const added = flow.nodes[2]!.id;
    const connected = addEdge(flow, 'start', added);
    flow = connected.flow;
    expect(flowProblems(flow, [])).toEqual([
      { node_id: 'start', edge_id: connected.id, message: FLOW_MESSAGES.conditionRequired },
      { node_id: added, message: FLOW_MESSAGES.noWayOut },
    ]);
    flow = updateEdge(flow, connected.id, { condition: { type: 'prompt', prompt: 'The caller wants to book' } });
    expect(conditionLabel(findEdge(flow, connected.id)?.edge.condition)).toBe('The caller wants to book');
    flow = addEdge(flow, added, 'end').flow;
    flow = updateEdge(flow, flow.nodes[2]!.edges[0]!.id, { condition: { type: 'always' } });
    expect(flowProblems(flow, [])).toEqual([]);
    flow = updateEdge(flow, connected.id, { to: 'end' });
    expect(findEdge(flow, connected.id)?.edge.to).toBe('end');
    expect(flowProblems(flow, []).map((p) => p.message)).toEqual([FLOW_MESSAGES.unreachable]);
    const without = removeNode(flow, 'end');
    expect(edgesOf(without)).toEqual([]);
    expect(removeNode(flow, 'start').start_node_id).toBe('');
    expect(edgesOf(removeEdge(flow, connected.id))).not.toContain(`start->end:${connected.id}`);
  });

  it('converts to canvas nodes and edges: ids kept, start and problems marked, labels are conditions', () => {
    const flow = addEdge(newFlow(), 'start', 'end').flow;
    const problems = flowProblems(flow, []);
    const canvas = toCanvas(flow, problems);
    expect(canvas.nodes.map((n) => n.id)).toEqual(['start', 'end']);
    expect(canvas.nodes[0]?.data.start).toBe(true);
    expect(canvas.nodes[0]?.data.problems).toBe(1);
    expect(canvas.edges.map((e) => [e.source, e.target, e.label, e.data.problem])).toEqual([
      ['start', 'end', 'The caller has nothing else', false],
      ['start', 'end', 'No condition', true],
    ]);
  });

  it('auto layout keeps every node and edge and separates the nodes', () => {
    let flow = newFlow();
    for (let i = 0; i < 5; i++) flow = addNode(flow, 'conversation').flow;
    flow = moveNodes(flow, new Map(flow.nodes.map((n) => [n.id, { x: 0, y: 0 }])));
    for (const n of flow.nodes.slice(2)) flow = addEdge(flow, 'start', n.id).flow;
    const laid = layoutFlow(flow);
    expect(laid.nodes.map((n) => n.id)).toEqual(flow.nodes.map((n) => n.id));
    expect(edgesOf(laid)).toEqual(edgesOf(flow));
    const spots = laid.nodes.map((n) => n.position!);
    for (let i = 0; i < spots.length; i++)
      for (let j = i + 1; j < spots.length; j++) {
        const apart =
          Math.abs(spots[i]!.x - spots[j]!.x) >= NODE_SIZE.width || Math.abs(spots[i]!.y - spots[j]!.y) >= NODE_SIZE.height;
        expect(apart).toBe(true);
      }
    // the start node is above the nodes it leads to
    const y = new Map(laid.nodes.map((n) => [n.id, n.position!.y]));
    for (const n of flow.nodes.slice(2)) expect(y.get(n.id)!).toBeGreaterThan(y.get('start')!);
  });

  it('positions stay inside the contract bounds', () => {
    const moved = moveNodes(newFlow(), new Map([['start', { x: 5e9, y: -5e9 }]]));
    expect(moved.nodes[0]?.position).toEqual({ x: 1_000_000, y: -1_000_000 });
  });
});

describe('the editor form of a flow agent', () => {
  it('saves kind and flow outside the editor object, and a loaded flow agent opens with them', () => {
    const form = { ...newFlowAgentForm(), voice: 'Rachel', voiceId: 'v1' };
    const payload = editorFormToSavePayload(form);
    expect(payload.kind).toBe('conversation_flow');
    expect(payload.flow).toEqual(newFlow());
    expect(Object.keys(payload.editor)).not.toContain('kind');
    expect(Object.keys(payload.editor)).not.toContain('flow');
    expect(agentToEditorForm(payload)).toEqual(form);
    expect(agentToSavePayload(payload)).toEqual(payload);
  });

  it('a single-prompt form has neither kind nor flow, saved or loaded', () => {
    const payload = editorFormToSavePayload(AGENT_EDITOR_FORM_DEFAULTS);
    expect(payload).not.toHaveProperty('kind');
    expect(payload).not.toHaveProperty('flow');
    const loaded = agentToEditorForm({ ...payload, kind: 'single_prompt', flow: newFlow() });
    expect(loaded).not.toHaveProperty('kind');
    expect(loaded).not.toHaveProperty('flow');
  });
});
