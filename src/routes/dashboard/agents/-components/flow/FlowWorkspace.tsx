import '@xyflow/react/dist/style.css';
import { useSelector } from '@xstate/react';
import {
  applyNodeChanges,
  Background,
  Controls,
  type EdgeChange,
  Handle,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import { type KeyboardEvent, memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { newFlow } from '../../../../../api/contract/agent/editor-form';
import {
  FLOW_NODE_TYPES,
  type Flow,
  type FlowNode,
  type FlowNodeType,
  type FlowProblem,
} from '../../../../../api/contract/agent/flow';
import {
  addEdge,
  addNode,
  type CanvasNodeData,
  FLOW_NODE_LABELS,
  findEdge,
  flowProblems,
  layoutFlow,
  moveNodes,
  removeEdge,
  removeNode,
  toCanvas,
  updateEdge,
  updateNode,
} from '../../../../../flow/editing';
import { Button } from '../../../../../ui/button/button';
import { PlusIcon } from '../../../../../ui/icons';
import { Textarea } from '../../../../../ui/textarea/textarea';
import { fieldAttr, useEditor, useFieldError } from '../editor-context';
import { EdgePanel, NodePanel } from './FlowPanels';
import * as s from './flow.css';

/** How many steps Undo remembers. */
const HISTORY_LIMIT = 100;

export type Selection = { kind: 'node' | 'edge'; id: string } | null;
type CanvasNode = Node<CanvasNodeData, 'flow'>;

const FlowNodeView = memo(function FlowNodeView({ data }: NodeProps<CanvasNode>) {
  const { node, start, problems } = data;
  return (
    <div className={`${s.node} ${problems > 0 ? s.nodeProblem : ''}`}>
      <Handle type="target" position={Position.Top} />
      <div className={s.nodeType}>
        {FLOW_NODE_LABELS[node.type]}
        {start ? <span className={s.nodeBadge}>· Start</span> : null}
        {node.global ? <span className={s.nodeBadge}>· Global</span> : null}
      </div>
      <div className={s.nodeName}>{node.name || 'Unnamed'}</div>
      {problems > 0 ? (
        <div className={s.nodeBadgeDanger}>
          {problems} problem{problems === 1 ? '' : 's'}
        </div>
      ) : null}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
});
const nodeTypes = { flow: FlowNodeView };

const isTyping = (target: EventTarget) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The conversation flow editor: a toolbar (add a node of each type, undo, redo, auto layout), the canvas
 * (@xyflow/react: drag to move, drag a handle to connect, zoom and fit), a side panel for the selected node or
 * edge, and the flow's problems, each selecting its node. The flow is the editor form's `flow`: every change
 * is a `field.change`, so drafts, the leave guard and Save work as for any field.
 */
export function FlowWorkspace() {
  return (
    <ReactFlowProvider>
      <Workspace />
    </ReactFlowProvider>
  );
}

function Workspace() {
  const actor = useEditor();
  const flow = useSelector(actor, (snap) => snap.context.form.flow) ?? EMPTY;
  const functions = useSelector(actor, (snap) => snap.context.form.functions);
  const dynamicVariables = useSelector(actor, (snap) => snap.context.form.dynamicVariables);
  const functionNames = useMemo(() => functions.map((f) => f.name), [functions]);
  const variableNames = useMemo(() => dynamicVariables.map((d) => d.name).filter(Boolean), [dynamicVariables]);
  const problems = useMemo(() => flowProblems(flow, functionNames, variableNames), [flow, functionNames, variableNames]);
  const [selection, setSelection] = useState<Selection>(null);
  const [history, setHistory] = useState<{ past: Flow[]; future: Flow[] }>({ past: [], future: [] });
  const lastKey = useRef<string | undefined>(undefined);
  const reactFlow = useReactFlow();

  const current = useCallback(() => actor.getSnapshot().context.form.flow ?? newFlow(), [actor]);
  const send = useCallback((next: Flow) => actor.send({ type: 'field.change', field: 'flow', value: next }), [actor]);
  /** One change of the flow, remembered for Undo (typing in one field is one step). */
  const change = useCallback(
    (next: Flow, key?: string) => {
      const before = current();
      if (key === undefined || key !== lastKey.current)
        setHistory((h) => ({ past: [...h.past, before].slice(-HISTORY_LIMIT), future: [] }));
      lastKey.current = key;
      send(next);
    },
    [current, send],
  );
  const undo = useCallback(() => {
    const prev = history.past.at(-1);
    if (!prev) return;
    const now = current();
    lastKey.current = undefined;
    setHistory({ past: history.past.slice(0, -1), future: [now, ...history.future] });
    // the global prompt is a settings field, not a drawing step
    send({ ...prev, global_prompt: now.global_prompt });
  }, [history, current, send]);
  const redo = useCallback(() => {
    const next = history.future[0];
    if (!next) return;
    const now = current();
    lastKey.current = undefined;
    setHistory({ past: [...history.past, now], future: history.future.slice(1) });
    send({ ...next, global_prompt: now.global_prompt });
  }, [history, current, send]);

  const select = useCallback(
    (next: Selection) => setSelection((prev) => (prev?.kind === next?.kind && prev?.id === next?.id ? prev : next)),
    [],
  );
  const add = (type: FlowNodeType) => {
    const added = addNode(current(), type, functionNames);
    change(added.flow);
    select({ kind: 'node', id: added.id });
  };
  const deleteSelection = useCallback(() => {
    if (!selection) return;
    change(selection.kind === 'node' ? removeNode(current(), selection.id) : removeEdge(current(), selection.id));
    setSelection(null);
  }, [selection, change, current]);
  const showProblem = (p: FlowProblem) => {
    if (p.edge_id) select({ kind: 'edge', id: p.edge_id });
    else if (p.node_id) select({ kind: 'node', id: p.node_id });
    if (p.node_id) void reactFlow.fitView({ nodes: [{ id: p.node_id }], duration: 200, maxZoom: 1.2 });
  };

  // the canvas: nodes kept locally while dragging (the form gets the positions on drop), edges from the flow
  const canvas = useMemo(() => toCanvas(flow, problems), [flow, problems]);
  const [nodes, setNodes] = useState<CanvasNode[]>([]);
  useEffect(() => {
    setNodes(
      canvas.nodes.map((n) => ({
        ...n,
        selected: selection?.kind === 'node' && selection.id === n.id,
        ariaLabel: `${FLOW_NODE_LABELS[n.data.node.type]} node ${n.data.node.name}${n.data.start ? ' (start)' : ''}`,
      })),
    );
  }, [canvas, selection]);
  const names = useMemo(() => new Map(flow.nodes.map((n) => [n.id, n.name])), [flow]);
  const edges = useMemo(
    () =>
      canvas.edges.map((e) => ({
        ...e,
        selected: selection?.kind === 'edge' && selection.id === e.id,
        ariaLabel: `Edge from ${names.get(e.source)} to ${names.get(e.target)}: ${e.label}`,
        style: e.data.problem ? { stroke: 'var(--flow-danger, #dc2626)' } : undefined,
      })),
    [canvas, selection, names],
  );
  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      setNodes((ns) => applyNodeChanges(changes, ns));
      for (const c of changes) if (c.type === 'select' && c.selected) select({ kind: 'node', id: c.id });
    },
    [select],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      for (const c of changes) if (c.type === 'select' && c.selected) select({ kind: 'edge', id: c.id });
    },
    [select],
  );

  const onKeyDown = (e: KeyboardEvent) => {
    if (isTyping(e.target)) return;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === 'z') {
      e.preventDefault();
      if (e.shiftKey) redo();
      else undo();
    } else if (mod && e.key.toLowerCase() === 'y') {
      e.preventDefault();
      redo();
    } else if (e.key === 'Delete' && selection) {
      e.preventDefault();
      deleteSelection();
    }
  };

  const selectedNode = selection?.kind === 'node' ? flow.nodes.find((n) => n.id === selection.id) : undefined;
  const selectedEdge = selection?.kind === 'edge' ? findEdge(flow, selection.id) : undefined;

  return (
    <section className={s.workspace} aria-label="Flow editor" onKeyDown={onKeyDown}>
      <div className={s.main}>
        <div className={s.toolbar} role="toolbar" aria-label="Flow tools">
          {FLOW_NODE_TYPES.map((type) => (
            <Button
              key={type}
              size="sm"
              variant="secondary"
              onClick={() => add(type)}
              aria-label={`Add ${FLOW_NODE_LABELS[type]} node`}
            >
              <PlusIcon />
              {FLOW_NODE_LABELS[type]}
            </Button>
          ))}
          <span className={s.toolbarGap} />
          <Button size="sm" variant="ghost" onClick={undo} disabled={history.past.length === 0} aria-keyshortcuts="Control+Z">
            Undo
          </Button>
          <Button
            size="sm"
            variant="ghost"
            onClick={redo}
            disabled={history.future.length === 0}
            aria-keyshortcuts="Control+Shift+Z"
          >
            Redo
          </Button>
          <Button
            size="sm"
            variant="secondary"
            onClick={() => {
              change(layoutFlow(current()));
              requestAnimationFrame(() => void reactFlow.fitView({ duration: 200 }));
            }}
          >
            Auto layout
          </Button>
        </div>
        <div className={s.canvas}>
          <ReactFlow<CanvasNode>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={(c) => {
              if (!c.source || !c.target) return;
              const added = addEdge(current(), c.source, c.target);
              change(added.flow);
              select({ kind: 'edge', id: added.id });
            }}
            onNodeDragStop={(_, __, dragged) =>
              change(moveNodes(current(), new Map(dragged.map((n) => [n.id, n.position] as const))))
            }
            onPaneClick={() => setSelection(null)}
            deleteKeyCode={null}
            fitView
            minZoom={0.1}
            aria-label="Flow canvas"
          >
            <Background />
            <Controls />
          </ReactFlow>
        </div>
        <GlobalPrompt flow={flow} onChange={(text) => send({ ...current(), global_prompt: text })} />
      </div>
      <div className={s.side}>
        <Problems problems={problems} names={names} onShow={showProblem} />
        {selectedNode ? (
          <NodePanel
            key={selectedNode.id}
            node={selectedNode}
            flow={flow}
            functions={functionNames}
            onChange={(next, field) => change(updateNode(current(), selectedNode.id, next), `${selectedNode.id}.${field}`)}
            onStart={() => change({ ...current(), start_node_id: selectedNode.id })}
            onAddEdge={() => {
              const to = flow.nodes.find((n) => n.id !== selectedNode.id)?.id ?? selectedNode.id;
              const added = addEdge(current(), selectedNode.id, to);
              change(added.flow);
              select({ kind: 'edge', id: added.id });
            }}
            onSelectEdge={(id) => select({ kind: 'edge', id })}
            onDelete={deleteSelection}
          />
        ) : selectedEdge ? (
          <EdgePanel
            key={selectedEdge.edge.id}
            edge={selectedEdge.edge}
            from={selectedEdge.from}
            flow={flow}
            onChange={(patch, field) =>
              change(updateEdge(current(), selectedEdge.edge.id, patch), `${selectedEdge.edge.id}.${field}`)
            }
            onSelectNode={(id) => select({ kind: 'node', id })}
            onDelete={deleteSelection}
          />
        ) : (
          <NodeList flow={flow} onSelect={(id) => select({ kind: 'node', id })} />
        )}
      </div>
    </section>
  );
}

const EMPTY: Flow = { start_node_id: '', global_prompt: '', nodes: [] };

/** The flow's problems, each a button that selects its node (or edge); Save is refused while there are any. */
function Problems({
  problems,
  names,
  onShow,
}: {
  problems: FlowProblem[];
  names: Map<string, string>;
  onShow: (p: FlowProblem) => void;
}) {
  const refused = useFieldError('flow');
  return (
    <section className={s.card} aria-labelledby="flow-problems" {...fieldAttr('flow')}>
      <h2 id="flow-problems" className={s.heading}>
        {problems.length === 0 ? 'No problems' : `Problems (${problems.length})`}
      </h2>
      {refused && problems.length > 0 ? (
        <p className={s.muted} role="alert">
          The flow cannot be saved until these problems are fixed.
        </p>
      ) : null}
      {problems.length === 0 ? (
        <p className={s.muted}>The flow can be saved and run.</p>
      ) : (
        <ul className={s.list}>
          {problems.map((p, i) => (
            <li key={`${p.node_id}.${p.edge_id ?? ''}.${i}`}>
              <button type="button" className={s.problem} onClick={() => onShow(p)}>
                {p.node_id ? `${names.get(p.node_id) ?? p.node_id}: ` : ''}
                {p.message}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** With nothing selected: every node as a button (the keyboard's way to a node besides Tab on the canvas). */
function NodeList({ flow, onSelect }: { flow: Flow; onSelect: (id: string) => void }) {
  return (
    <section className={s.card} aria-labelledby="flow-nodes">
      <h2 id="flow-nodes" className={s.heading}>
        Nodes
      </h2>
      <p className={s.muted}>Select a node or an edge to edit it.</p>
      <ul className={s.list}>
        {flow.nodes.map((n: FlowNode) => (
          <li key={n.id}>
            <button type="button" className={s.nodeButton} onClick={() => onSelect(n.id)}>
              {n.name || n.id} ({FLOW_NODE_LABELS[n.type]})
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The prompt every node's instructions are given with. */
function GlobalPrompt({ flow, onChange }: { flow: Flow; onChange: (text: string) => void }) {
  return (
    <div className={s.card}>
      <Textarea
        label="Global prompt"
        hint="Who the agent is and how it speaks, in every node."
        rows={4}
        value={flow.global_prompt}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    </div>
  );
}
