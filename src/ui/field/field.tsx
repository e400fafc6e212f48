import { type ReactNode, useId } from 'react';
import { cx } from '../cx';
import { visuallyHidden } from '../shared.css';
import * as s from './field.css';

/**
 * The ids and ARIA attributes that tie a control to its `Field`: the control's id (given, or a fresh
 * one), `aria-describedby` naming the hint and the error (after any description of the caller's own),
 * and `aria-invalid` while there is an error. Spread the result onto the control.
 */
export function useFieldControl(
  idProp: string | undefined,
  { hint, error, describedBy }: { hint?: ReactNode; error?: ReactNode; describedBy?: string | undefined },
) {
  const autoId = useId();
  const id = idProp ?? autoId;
  return {
    id,
    'aria-describedby':
      [describedBy, hint ? hintId(id) : null, error ? errorId(id) : null].filter(Boolean).join(' ') || undefined,
    'aria-invalid': error ? (true as const) : undefined,
  };
}

const hintId = (id: string) => `${id}-hint`;
const errorId = (id: string) => `${id}-error`;
/** The id of a `Field`'s label when it is text (`labelFor="none"`), for the control's `aria-labelledby`. */
export const fieldLabelId = (id: string) => `${id}-label`;

export interface FieldProps {
  /** the control's id (`useFieldControl(...).id`) */
  id: string;
  /** Visible label. Leave it out when the control renders its own (Ariakit's SelectLabel). */
  label?: ReactNode;
  hideLabel?: boolean;
  /**
   * 'control' (default): a <label> for a native control. 'none': the label is text with the id
   * `fieldLabelId(id)`, for a control named by `aria-labelledby` (a radio group, a custom combobox).
   */
  labelFor?: 'control' | 'none';
  /** shown at the end of the label's row (a slider's value, a spinner) */
  labelEnd?: ReactNode;
  hint?: ReactNode;
  /** the error text (the control gets `aria-invalid` and the text joins its description) */
  error?: ReactNode;
  className?: string;
  /** the control */
  children: ReactNode;
}

/** Label, control, hint and error, stacked: the one layout of every form field. */
export function Field({ id, label, hideLabel, labelFor = 'control', labelEnd, hint, error, className, children }: FieldProps) {
  const labelClass = cx(s.label, hideLabel && visuallyHidden);
  const labelEl =
    label === undefined ? null : labelFor === 'control' ? (
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
    ) : (
      <span id={fieldLabelId(id)} className={labelClass}>
        {label}
      </span>
    );
  return (
    <div className={cx(s.root, className)}>
      {labelEnd ? (
        <div className={s.labelRow}>
          {labelEl}
          {labelEnd}
        </div>
      ) : (
        labelEl
      )}
      {children}
      {hint ? (
        <p id={hintId(id)} className={s.hint}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId(id)} className={s.error}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
