import { forwardRef, type InputHTMLAttributes, type ReactNode } from 'react';
import { cx } from '../cx';
import { Field, useFieldControl } from '../field/field';
import * as f from '../shared.css';
import * as s from './text-field.css';

export interface TextFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  /** Visible label; names the input. */
  label: ReactNode;
  hideLabel?: boolean;
  hint?: ReactNode;
  /** Error text: sets aria-invalid and joins aria-describedby. */
  error?: ReactNode;
  /** Icon or text shown inside the input on the left (decorative). */
  leading?: ReactNode;
  containerClassName?: string;
}

/** Label + input + hint/error, wired for assistive technology. Accepts every native input prop. */
export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField(
  { label, hideLabel, hint, error, leading, id, className, containerClassName, ...rest },
  ref,
) {
  const control = useFieldControl(id, { hint, error, describedBy: rest['aria-describedby'] });
  return (
    <Field id={control.id} label={label} hideLabel={hideLabel} hint={hint} error={error} className={containerClassName}>
      <div className={s.wrap}>
        {leading ? <span className={s.leading}>{leading}</span> : null}
        <input
          ref={ref}
          {...rest}
          {...control}
          aria-invalid={control['aria-invalid'] ?? rest['aria-invalid']}
          className={cx(f.fieldControl, leading ? s.withLeading : undefined, className)}
        />
      </div>
    </Field>
  );
});
