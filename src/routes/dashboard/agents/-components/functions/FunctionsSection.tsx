/**
 * The agent editor's Functions section: the agent's functions (name, type, a short summary, Edit and
 * Remove), 'Add function' with every function type (single-use types disabled once present) and the
 * dialog that adds or edits one. A function joins the list only once the contract's schema accepts it;
 * a refused Save keeps the dialog open with what was typed and the messages at their inputs.
 */
import { useSelector } from '@xstate/react';
import { memo, useRef, useState } from 'react';
import {
  type AgentFunction,
  FUNCTION_LABELS,
  FUNCTION_TYPES,
  type FunctionType,
} from '../../../../../api/contract/agent/functions';
import { Button } from '../../../../../ui/button/button';
import { Dialog } from '../../../../../ui/dialog/dialog';
import { Menu, MenuItem } from '../../../../../ui/menu/menu';
import { Section } from '../EditorSections';
import * as s from '../editor.css';
import { PencilIcon, TrashIcon, useEditor, useField } from '../editor-context';
import { FunctionFields } from './FunctionFields';
import { type DraftErrors, draftOf, type FunctionDraft, functionOf, isTypeTaken, metaOf, newDraft } from './function-draft';
import * as f from './functions.css';

/** Dialogs with many inputs (headers, parameters, tools) get more room. */
const WIDE: readonly FunctionType[] = ['custom', 'mcp'];

export const FunctionsSection = memo(function FunctionsSection() {
  const [functions, setFunctions] = useField('functions');
  const agentId = useSelector(useEditor(), (snap) => snap.context.agent?._id ?? snap.context.agentId);
  const [draft, setDraft] = useState<FunctionDraft | null>(null);
  const [errors, setErrors] = useState<DraftErrors>({});
  const formRef = useRef<HTMLFormElement>(null);

  const start = (next: FunctionDraft) => {
    setErrors({});
    setDraft(next);
  };
  const change = (patch: Partial<FunctionDraft>, errorKeys: string[] = []) => {
    setDraft((d) => (d ? { ...d, ...patch } : d));
    if (errorKeys.length > 0 || errors.form)
      setErrors((e) => {
        const next = { ...e };
        for (const k of [...errorKeys, 'form']) delete next[k];
        return next;
      });
  };
  const save = () => {
    if (!draft) return;
    const others = functions.filter((x) => x.id !== draft.id);
    const result = functionOf(draft, others);
    if (!result.ok) {
      setErrors(result.errors);
      // the first input with a message gets the focus
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setFunctions(draft.id === null ? [...functions, result.value] : functions.map((x) => (x.id === draft.id ? result.value : x)));
    setDraft(null);
  };
  // while the dialog closes (its leave animation) it keeps showing the last draft, not an empty box
  const lastDraft = useRef<FunctionDraft | null>(null);
  if (draft) lastDraft.current = draft;
  const shown = draft ?? lastDraft.current;
  const editing = shown?.id != null;
  const label = shown ? FUNCTION_LABELS[shown.type] : '';

  return (
    <Section title="Functions">
      <p className={s.lead}>
        What the agent can do during a call: end or transfer it, call your API or an MCP server, check calendars and book, search
        the web, send messages, press keypad digits.
      </p>
      {functions.length === 0 ? <p className={s.muted}>No functions yet.</p> : null}
      <ul className={s.list} aria-label="Functions">
        {functions.map((fn: AgentFunction) => (
          <li key={fn.id} className={s.listItem}>
            <span className={s.itemText}>
              <span>{fn.name}</span>
              <span className={s.itemMeta}>{metaOf(fn)}</span>
            </span>
            <span className={f.actions}>
              <Button variant="ghost" size="iconSm" aria-label={`Edit function ${fn.name}`} onClick={() => start(draftOf(fn))}>
                <PencilIcon />
              </Button>
              <Button
                variant="ghost"
                size="iconSm"
                aria-label={`Remove function ${fn.name}`}
                onClick={() => setFunctions(functions.filter((x) => x.id !== fn.id))}
              >
                <TrashIcon />
              </Button>
            </span>
          </li>
        ))}
      </ul>
      <div>
        <Menu label={<>Add function</>} buttonSize="sm" placement="bottom-start">
          {FUNCTION_TYPES.map((type) => (
            <MenuItem key={type} disabled={isTypeTaken(type, functions)} onClick={() => start(newDraft(type, functions))}>
              {FUNCTION_LABELS[type]}
            </MenuItem>
          ))}
        </Menu>
      </div>
      <Dialog
        open={draft !== null}
        onClose={() => setDraft(null)}
        title={shown ? `${editing ? 'Edit' : 'Add'} ${label}${label.endsWith(' Function') ? '' : ' function'}` : ''}
        size={shown && WIDE.includes(shown.type) ? 'lg' : undefined}
        footer={
          <>
            <Button variant="secondary" onClick={() => setDraft(null)}>
              Cancel
            </Button>
            <Button onClick={save}>{editing ? 'Update' : 'Save'}</Button>
          </>
        }
      >
        {shown ? (
          <form
            ref={formRef}
            className={s.stack}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            {errors.form ? (
              <p className={s.error} role="alert">
                {errors.form}
              </p>
            ) : null}
            <FunctionFields draft={shown} errors={errors} change={change} agentId={agentId} />
          </form>
        ) : null}
      </Dialog>
    </Section>
  );
});
