import { useSelector } from '@xstate/react';
import { createContext, useCallback, useContext } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { AgentEditorForm } from '../../../../api/contract/agent/editor-form';
import type { agentEditorMachine, EditorField } from '../../../../machines/agentEditor.machine';
import { Icon } from '../../../../ui/icons';

type IconProps = Omit<Parameters<typeof Icon>[0], 'd'>;

export type EditorActor = ActorRefFrom<typeof agentEditorMachine>;

const EditorContext = createContext<EditorActor | null>(null);
export const EditorProvider = EditorContext.Provider;

export function useEditor(): EditorActor {
  const actor = useContext(EditorContext);
  if (!actor) throw new Error('useEditor outside <EditorProvider>');
  return actor;
}

/**
 * One form field: its value and a setter. Each field subscribes to itself only, so typing in the prompt
 * re-renders the prompt and nothing else.
 */
export function useField<K extends EditorField>(field: K): [AgentEditorForm[K], (value: AgentEditorForm[K]) => void] {
  const actor = useEditor();
  const value = useSelector(actor, (s) => s.context.form[field]);
  const set = useCallback(
    (next: AgentEditorForm[K]) => actor.send({ type: 'field.change', field, value: next } as never),
    [actor, field],
  );
  return [value, set];
}

/** The validation message of a field (nested keys like `llmSettings.temperature` too). */
export function useFieldError(field: string): string | undefined {
  return useSelector(useEditor(), (s) => s.context.errors[field]);
}

/** Attribute the machine's `focusField` uses to find a field's control. */
export const fieldAttr = (field: string) => ({ 'data-field': field });

export function focusField(field: string | undefined) {
  if (!field) return;
  const holder = document.querySelector(`[data-field="${CSS.escape(field.split('.')[0] ?? field)}"]`);
  const target =
    holder?.matches('input, textarea, button, [tabindex]') === true
      ? (holder as HTMLElement)
      : holder?.querySelector<HTMLElement>('input, textarea, button, [role="combobox"], [tabindex]');
  target?.focus();
  target?.scrollIntoView?.({ block: 'center' });
}

export const PencilIcon = (p: IconProps) => <Icon d="M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z" {...p} />;
export const TrashIcon = (p: IconProps) => <Icon d="M3 6h18M8 6V4h8v2m2 0-1 14H7L6 6" {...p} />;
export const SlidersIcon = (p: IconProps) => <Icon d="M4 21v-7M4 10V3m8 18v-9m0-4V3m8 18v-5m0-4V3M1 14h6m2-6h6m2 8h6" {...p} />;
