import * as Ariakit from '@ariakit/react';
import { type ChangeEvent, forwardRef, type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { cx } from '../cx';
import { CheckIcon } from '../icons';
import * as s from './checkbox.css';

export interface CheckboxProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'checked' | 'defaultChecked'> {
  /** Visible label; names the checkbox. */
  label: ReactNode;
  /** Small text under the label. */
  description?: ReactNode;
  checked?: boolean | 'mixed';
  defaultChecked?: boolean;
  /** Convenience: called with the new checked state. */
  onCheckedChange?: (checked: boolean) => void;
}

/** A labelled checkbox (native input, styled box). */
export const Checkbox = forwardRef<HTMLInputElement, CheckboxProps>(function Checkbox(
  { label, description, className, onChange, onCheckedChange, id: idProp, ...rest },
  ref,
) {
  const autoId = useId();
  const id = idProp ?? autoId;
  return (
    <label htmlFor={id} className={cx(s.root, className)}>
      <Ariakit.Checkbox
        ref={ref}
        id={id}
        {...rest}
        onChange={(e: ChangeEvent<HTMLInputElement>) => {
          onChange?.(e);
          onCheckedChange?.(e.target.checked);
        }}
        className={s.input}
      />
      <span className={s.box} aria-hidden="true">
        {rest.checked === 'mixed' ? (
          <span style={{ width: 8, height: 2, background: 'currentColor' }} />
        ) : (
          <CheckIcon size={12} strokeWidth={3} />
        )}
      </span>
      <span className={s.text}>
        <span>{label}</span>
        {description ? <span className={s.description}>{description}</span> : null}
      </span>
    </label>
  );
});
