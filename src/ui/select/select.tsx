import { type ReactNode, useId } from 'react';
import { cx } from '../cx';
import { ChevronDownIcon } from '../icons';
import { lazyModule, standInHandlers, useActivation } from '../lazy-control';
import * as f from '../shared.css';
import * as s from './select.css';

export interface SelectOption<V extends string = string> {
  value: V;
  label: ReactNode;
  /** Secondary line under the label (e.g. a price). */
  description?: ReactNode;
  disabled?: boolean;
}

export interface SelectProps<V extends string = string> {
  /** Visible label; names the combobox. */
  label: ReactNode;
  /** Keep the label for assistive technology only. */
  hideLabel?: boolean;
  value: V | '';
  onChange: (value: V) => void;
  options: ReadonlyArray<SelectOption<V>>;
  placeholder?: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  disabled?: boolean;
  /** Renders a hidden native select with this name, for native form submission. */
  name?: string;
  className?: string;
  /** Extra content inside the trigger, before the value (e.g. an icon). */
  prefix?: ReactNode;
}

/** The listbox (select-impl.tsx, Ariakit): downloaded when a select is first reached for. */
const impl = lazyModule(() => import('./select-impl'));

/** What the trigger shows: the prefix, the chosen option's label (or the placeholder), the chevron. */
export function TriggerContent({
  prefix,
  selected,
  placeholder,
}: {
  prefix: ReactNode;
  selected: SelectOption | undefined;
  placeholder: ReactNode;
}) {
  return (
    <>
      {prefix}
      <span className={cx(s.value, !selected && s.placeholder)}>{selected ? selected.label : placeholder}</span>
      <ChevronDownIcon className={s.chevron} />
    </>
  );
}

/**
 * A labelled listbox select (role=combobox trigger, role=option items). Until it is first used the
 * trigger is a plain combobox button with the same look, name and value; a click or an arrow key mounts
 * the Ariakit listbox, open (see `useActivation`).
 */
export function Select<V extends string = string>({
  label,
  hideLabel,
  value,
  onChange,
  options,
  placeholder = 'Select…',
  hint,
  error,
  disabled,
  name,
  className,
  prefix,
}: SelectProps<V>) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const labelId = `${id}-label`;
  const selected = options.find((o) => o.value === value);
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  const activation = useActivation(impl);
  const m = activation.impl;
  const control = {
    label,
    hideLabel,
    value,
    onChange,
    options,
    placeholder,
    disabled,
    name,
    prefix,
    invalid: !!error,
    describedBy,
  };
  return (
    <div className={cx(f.fieldRoot, className)}>
      {m ? (
        <m.AriakitSelectControl {...control} defaultOpen />
      ) : (
        <>
          <div id={labelId} className={cx(f.fieldLabel, hideLabel && f.visuallyHidden)}>
            {label}
          </div>
          <button
            type="button"
            role="combobox"
            aria-haspopup="listbox"
            aria-expanded={false}
            aria-labelledby={labelId}
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy}
            disabled={disabled}
            className={s.trigger}
            {...standInHandlers(activation)}
          >
            <TriggerContent prefix={prefix} selected={selected} placeholder={placeholder} />
          </button>
          {name ? <input type="hidden" name={name} value={value} /> : null}
        </>
      )}
      {hint ? (
        <p id={hintId} className={f.fieldHint}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className={f.fieldError}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
