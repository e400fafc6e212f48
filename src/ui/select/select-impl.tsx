import * as Ariakit from '@ariakit/react';
import { type ReactNode, useRef } from 'react';
import { cx } from '../cx';
import * as field from '../field/field.css';
import { CheckIcon } from '../icons';
import { visuallyHidden } from '../shared.css';
import { type SelectOption, TriggerContent } from './select';
import * as s from './select.css';

export interface SelectControlProps<V extends string> {
  label: ReactNode;
  hideLabel?: boolean;
  value: V | '';
  onChange: (value: V) => void;
  options: ReadonlyArray<SelectOption<V>>;
  placeholder: ReactNode;
  disabled?: boolean;
  name?: string;
  prefix?: ReactNode;
  invalid: boolean;
  describedBy: string | undefined;
  /** mounted open (the stand-in in select.tsx was clicked) */
  defaultOpen?: boolean;
}

/** The Ariakit listbox behind `Select` (select.tsx): its label, trigger and popover, loaded on first use. */
export function AriakitSelectControl<V extends string>(props: SelectControlProps<V>) {
  const { value, options } = props;
  const selected = options.find((o) => o.value === value);
  // mounted open by the stand-in's click: closing must still hand the focus back to the trigger
  const trigger = useRef<HTMLButtonElement>(null);
  return (
    <Ariakit.SelectProvider value={value} setValue={(v) => props.onChange(v as V)} defaultOpen={props.defaultOpen}>
      <Ariakit.SelectLabel className={cx(field.label, props.hideLabel && visuallyHidden)}>{props.label}</Ariakit.SelectLabel>
      <Ariakit.Select
        ref={trigger}
        name={props.name}
        disabled={props.disabled}
        aria-invalid={props.invalid || undefined}
        aria-describedby={props.describedBy}
        className={s.trigger}
      >
        <TriggerContent prefix={props.prefix} selected={selected} placeholder={props.placeholder} />
      </Ariakit.Select>
      <Ariakit.SelectPopover gutter={4} sameWidth portal unmountOnHide finalFocus={trigger} className={s.popover}>
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
  );
}
