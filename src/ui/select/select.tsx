import type { ReactNode } from 'react';
import { cx } from '../cx';
import { Field, fieldLabelId, useFieldControl } from '../field/field';
import { ChevronDownIcon } from '../icons';
import { lazyModule, standInHandlers, useActivation } from '../lazy-control';
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
  const field = useFieldControl(undefined, { hint, error });
  const selected = options.find((o) => o.value === value);
  const describedBy = field['aria-describedby'];
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
    // with the Ariakit control loaded, its SelectLabel is the label
    <Field
      id={field.id}
      label={m ? undefined : label}
      hideLabel={hideLabel}
      labelFor="none"
      hint={hint}
      error={error}
      className={className}
    >
      {m ? (
        <m.AriakitSelectControl {...control} defaultOpen />
      ) : (
        <>
          <button
            type="button"
            role="combobox"
            aria-haspopup="listbox"
            aria-expanded={false}
            aria-labelledby={fieldLabelId(field.id)}
            aria-invalid={field['aria-invalid']}
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
    </Field>
  );
}
