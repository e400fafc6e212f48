import { type ChangeEvent, forwardRef, type InputHTMLAttributes, type ReactNode } from 'react';
import { cx } from '../cx';
import * as s from './switch.css';

export interface SwitchProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  /** Visible label; names the switch. */
  label: ReactNode;
  description?: ReactNode;
  /** Put the label on the left and the switch on the right (settings rows). */
  labelFirst?: boolean;
  onCheckedChange?: (checked: boolean) => void;
}

/** An on/off switch: a native checkbox with role="switch". */
export const Switch = forwardRef<HTMLInputElement, SwitchProps>(function Switch(
  { label, description, labelFirst, className, onChange, onCheckedChange, ...rest },
  ref,
) {
  return (
    <label className={cx(s.root, labelFirst && s.labelFirst, className)}>
      <input
        ref={ref}
        type="checkbox"
        role="switch"
        aria-checked={rest.checked}
        {...rest}
        onChange={(e: ChangeEvent<HTMLInputElement>) => {
          onChange?.(e);
          onCheckedChange?.(e.target.checked);
        }}
        className={s.input}
      />
      <span className={s.track} aria-hidden="true">
        <span className={s.thumb} />
      </span>
      <span className={s.text}>
        <span>{label}</span>
        {description ? <span className={s.description}>{description}</span> : null}
      </span>
    </label>
  );
});
