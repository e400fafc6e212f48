import { type ReactNode, useId } from 'react';
import {
  FLOW_CONDITION_TYPES,
  FLOW_VARIABLE_TYPES,
  type Flow,
  type FlowCondition,
  type FlowConditionType,
  type FlowEdge,
  type FlowInstruction,
  type FlowNode,
  type FlowVariable,
} from '../../../../../api/contract/agent/flow';
import { TRANSFER_MODES } from '../../../../../api/contract/agent/functions';
import { conditionLabel, FLOW_NODE_LABELS } from '../../../../../flow/editing';
import { Button } from '../../../../../ui/button/button';
import { TextField } from '../../../../../ui/text-field/text-field';
import { Textarea } from '../../../../../ui/textarea/textarea';
import * as s from './flow.css';

/** A native select with its label (keyboard and screen readers work as everywhere). */
function NativeSelect({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
}) {
  const id = useId();
  return (
    <div className={s.label}>
      <label htmlFor={id}>{label}</label>
      <select id={id} className={s.select} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

const CONDITION_LABELS: Record<FlowConditionType, string> = {
  prompt: 'The model decides (prompt)',
  expression: 'Expression on variables',
  result: 'Function result',
  always: 'Always',
  else: 'Else',
};
const VARIABLE_LABELS: Record<FlowVariable['type'], string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  enum: 'One of a list',
  date: 'Date',
};

function Panel({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className={s.card} aria-labelledby={id}>
      <h2 id={id} className={s.heading}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Instruction type and text (a node without one gets one once typed into). */
function InstructionFields({
  instruction,
  onChange,
}: {
  instruction: FlowInstruction | undefined;
  onChange: (next: FlowInstruction, field: string) => void;
}) {
  const value = instruction ?? { type: 'prompt', text: '' };
  return (
    <>
      <NativeSelect
        label="Instruction type"
        value={value.type}
        onChange={(type) => onChange({ ...value, type: type as FlowInstruction['type'] }, 'instruction.type')}
        options={[
          { value: 'prompt', label: 'Prompt (the model follows it)' },
          { value: 'static_text', label: 'Static sentence (said as written)' },
        ]}
      />
      <Textarea
        label={value.type === 'prompt' ? 'Instruction' : 'Sentence'}
        rows={4}
        value={value.text}
        onChange={(e) => onChange({ ...value, text: e.currentTarget.value }, 'instruction.text')}
      />
    </>
  );
}

export interface NodePanelProps {
  node: FlowNode;
  flow: Flow;
  functions: readonly string[];
  /** `field` groups typing into one Undo step */
  onChange: (next: FlowNode, field: string) => void;
  onStart: () => void;
  onAddEdge: () => void;
  onSelectEdge: (id: string) => void;
  onDelete: () => void;
}

/** The selected node: its name and its type's fields, global node, start node, its edges, delete. */
export function NodePanel({ node, flow, functions, onChange, onStart, onAddEdge, onSelectEdge, onDelete }: NodePanelProps) {
  const names = new Map(flow.nodes.map((n) => [n.id, n.name]));
  const set = (patch: Partial<FlowNode>, field: string) => onChange({ ...node, ...patch } as FlowNode, field);
  const isStart = flow.start_node_id === node.id;
  return (
    <Panel title={`${FLOW_NODE_LABELS[node.type]} node`}>
      <TextField
        label="Node name"
        value={node.name}
        maxLength={200}
        onChange={(e) => set({ name: e.currentTarget.value }, 'name')}
      />
      {node.type === 'function' ? (
        <NativeSelect
          label="Function"
          value={node.function}
          onChange={(name) => set({ function: name }, 'function')}
          options={[
            { value: '', label: functions.length ? 'Choose a function' : 'The agent has no functions yet' },
            ...functions.map((f) => ({ value: f, label: f })),
            ...(node.function && !functions.includes(node.function)
              ? [{ value: node.function, label: `${node.function} (missing)` }]
              : []),
          ]}
        />
      ) : null}
      {node.type === 'extract' ? <Variables node={node} onChange={(variables) => set({ variables }, 'variables')} /> : null}
      {node.type === 'transfer' ? (
        <>
          <TextField
            label="Transfer number"
            placeholder="+14155550100"
            value={node.number}
            onChange={(e) => set({ number: e.currentTarget.value.trim() }, 'number')}
          />
          <NativeSelect
            label="Transfer mode"
            value={node.mode}
            onChange={(mode) => set({ mode: mode as (typeof TRANSFER_MODES)[number] }, 'mode')}
            options={TRANSFER_MODES.map((m) => ({ value: m, label: m === 'cold' ? 'Cold' : 'Warm' }))}
          />
        </>
      ) : null}
      {node.type === 'press_digit' ? (
        <TextField
          label="Digits"
          hint="Leave empty to let the model choose from the instruction."
          value={node.digits ?? ''}
          onChange={(e) => {
            const digits = e.currentTarget.value.trim();
            const { digits: _, ...rest } = node;
            onChange((digits ? { ...rest, digits } : rest) as FlowNode, 'digits');
          }}
        />
      ) : null}
      {node.type !== 'logic_split' ? (
        <InstructionFields
          instruction={node.instruction}
          onChange={(instruction, field) => set({ instruction } as Partial<FlowNode>, field)}
        />
      ) : null}
      <label className={s.checkbox}>
        <input
          type="checkbox"
          checked={node.global !== undefined}
          onChange={(e) => {
            const { global: _, ...rest } = node;
            onChange(
              (e.currentTarget.checked
                ? { ...rest, global: { condition: { type: 'prompt', prompt: '' }, return: 'return' } }
                : rest) as FlowNode,
              'global',
            );
          }}
        />
        Global node (entered from any node when its condition holds)
      </label>
      {node.global ? (
        <>
          <Textarea
            label="Global condition"
            rows={2}
            value={node.global.condition.prompt}
            onChange={(e) =>
              set(
                { global: { ...node.global!, condition: { type: 'prompt', prompt: e.currentTarget.value } } },
                'global.condition',
              )
            }
          />
          <NativeSelect
            label="After the global node"
            value={node.global.return === true || node.global.return === 'return' ? 'return' : 'end'}
            onChange={(r) => set({ global: { ...node.global!, return: r as 'return' | 'end' } }, 'global.return')}
            options={[
              { value: 'return', label: 'Go back to where the call was' },
              { value: 'end', label: 'End the call' },
            ]}
          />
        </>
      ) : null}
      <div className={s.row}>
        <Button size="sm" variant="secondary" onClick={onStart} disabled={isStart}>
          {isStart ? 'Start node' : 'Make start node'}
        </Button>
        {node.type !== 'end' ? (
          <Button size="sm" variant="secondary" onClick={onAddEdge}>
            Add edge
          </Button>
        ) : null}
        <Button size="sm" variant="destructive" onClick={onDelete}>
          Delete node
        </Button>
      </div>
      {node.edges.length > 0 ? (
        <ul className={s.list} aria-label="Edges of this node">
          {node.edges.map((e) => (
            <li key={e.id}>
              <button type="button" className={s.nodeButton} onClick={() => onSelectEdge(e.id)}>
                Edge to {names.get(e.to) ?? e.to}: {conditionLabel(e.condition)}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </Panel>
  );
}

/** An extract node's variables: name, type, description, and the choices of a one-of-a-list. */
function Variables({
  node,
  onChange,
}: {
  node: Extract<FlowNode, { type: 'extract' }>;
  onChange: (next: FlowVariable[]) => void;
}) {
  const update = (i: number, patch: Partial<FlowVariable>) =>
    onChange(node.variables.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <fieldset className={s.card}>
      <legend className={s.heading}>Variables</legend>
      {node.variables.map((x, i) => (
        <div key={i} className={s.side}>
          <TextField
            label={`Variable ${i + 1} name`}
            value={x.name}
            onChange={(e) => update(i, { name: e.currentTarget.value })}
          />
          <NativeSelect
            label={`Variable ${i + 1} type`}
            value={x.type}
            onChange={(type) => update(i, { type: type as FlowVariable['type'] })}
            options={FLOW_VARIABLE_TYPES.map((t) => ({ value: t, label: VARIABLE_LABELS[t] }))}
          />
          <TextField
            label={`Variable ${i + 1} description`}
            value={x.description}
            onChange={(e) => update(i, { description: e.currentTarget.value })}
          />
          {x.type === 'enum' ? (
            <TextField
              label={`Variable ${i + 1} choices`}
              hint="Separated by commas"
              value={x.choices.join(', ')}
              onChange={(e) =>
                update(i, {
                  choices: e.currentTarget.value
                    .split(',')
                    .map((c) => c.trim())
                    .filter(Boolean),
                })
              }
            />
          ) : null}
          <Button
            size="sm"
            variant="ghost"
            onClick={() => onChange(node.variables.filter((_, j) => j !== i))}
            aria-label={`Remove variable ${i + 1}`}
          >
            Remove
          </Button>
        </div>
      ))}
      <Button
        size="sm"
        variant="secondary"
        onClick={() =>
          onChange([
            ...node.variables,
            { name: `variable_${node.variables.length + 1}`, type: 'text', description: '', choices: [] },
          ])
        }
      >
        Add variable
      </Button>
    </fieldset>
  );
}

export interface EdgePanelProps {
  edge: FlowEdge;
  from: FlowNode;
  flow: Flow;
  onChange: (patch: { to?: string; condition?: FlowCondition | undefined }, field: string) => void;
  onSelectNode: (id: string) => void;
  onDelete: () => void;
}

/** A blank condition of a type (the text is typed next). */
function conditionOf(type: FlowConditionType | ''): FlowCondition | undefined {
  switch (type) {
    case '':
      return undefined;
    case 'prompt':
      return { type, prompt: '' };
    case 'expression':
      return { type, expression: '' };
    case 'result':
      return { type, ok: true };
    default:
      return { type };
  }
}

/** The selected edge: where it goes ('To', the keyboard's way to connect) and its condition. */
export function EdgePanel({ edge, from, flow, onChange, onSelectNode, onDelete }: EdgePanelProps) {
  const c = edge.condition;
  return (
    <Panel title="Edge">
      <p className={s.muted}>
        From{' '}
        <button type="button" className={s.nodeButton} style={{ width: 'auto' }} onClick={() => onSelectNode(from.id)}>
          {from.name}
        </button>
      </p>
      <NativeSelect
        label="To"
        value={edge.to}
        onChange={(to) => onChange({ to }, 'to')}
        options={[
          ...flow.nodes.map((n) => ({ value: n.id, label: `${n.name} (${FLOW_NODE_LABELS[n.type]})` })),
          ...(flow.nodes.some((n) => n.id === edge.to) ? [] : [{ value: edge.to, label: `${edge.to} (missing)` }]),
        ]}
      />
      <NativeSelect
        label="Condition type"
        value={c?.type ?? ''}
        onChange={(type) => onChange({ condition: conditionOf(type as FlowConditionType | '') }, 'condition.type')}
        options={[
          { value: '', label: 'No condition yet' },
          ...FLOW_CONDITION_TYPES.map((t) => ({ value: t, label: CONDITION_LABELS[t] })),
        ]}
      />
      {c?.type === 'prompt' ? (
        <Textarea
          label="Condition"
          hint="What the caller said or wants, as the model decides it."
          rows={3}
          value={c.prompt}
          onChange={(e) => onChange({ condition: { type: 'prompt', prompt: e.currentTarget.value } }, 'condition')}
        />
      ) : null}
      {c?.type === 'expression' ? (
        <TextField
          label="Expression"
          placeholder='age >= 65 && insurance == "none"'
          value={c.expression}
          onChange={(e) => onChange({ condition: { type: 'expression', expression: e.currentTarget.value } }, 'condition')}
        />
      ) : null}
      {c?.type === 'result' ? (
        <NativeSelect
          label="Result"
          value={c.ok ? 'ok' : 'failed'}
          onChange={(r) => onChange({ condition: { type: 'result', ok: r === 'ok' } }, 'condition')}
          options={[
            { value: 'ok', label: 'Succeeded' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
      ) : null}
      <div className={s.row}>
        <Button size="sm" variant="destructive" onClick={onDelete}>
          Delete edge
        </Button>
      </div>
    </Panel>
  );
}
