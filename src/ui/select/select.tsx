import * as Ariakit from '@ariakit/react';
import { type ReactNode, useId } from 'react';
import { cx } from '../cx';
import { CheckIcon, ChevronDownIcon } from '../icons';
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

/** A labelled listbox select (role=combobox trigger, role=option items). */
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
  const selected = options.find((o) => o.value === value);
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cx(f.fieldRoot, className)}>
      <Ariakit.SelectProvider value={value} setValue={(v) => onChange(v as V)}>
        <Ariakit.SelectLabel className={cx(f.fieldLabel, hideLabel && f.visuallyHidden)}>{label}</Ariakit.SelectLabel>
        <Ariakit.Select
          name={name}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          className={s.trigger}
        >
          {prefix}
          <span className={cx(s.value, !selected && s.placeholder)}>{selected ? selected.label : placeholder}</span>
          <ChevronDownIcon className={s.chevron} />
        </Ariakit.Select>
        <Ariakit.SelectPopover gutter={4} sameWidth portal unmountOnHide className={s.popover}>
          {options.map((o) => (
            <Ariakit.SelectItem key={o.value} value={o.value} disabled={o.disabled} className={s.item}>
              <span className={s.itemText}>
                <span>{o.label}</span>
                {o.description ? <span className={s.itemDescription}>{o.description}</span> : null}
              </span>
              {o.value === value ? <CheckIcon /> : null}
            </Ariakit.SelectItem>
          ))}
        </Ariakit.SelectPopover>
      </Ariakit.SelectProvider>
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
