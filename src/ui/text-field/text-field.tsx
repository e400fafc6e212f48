import { forwardRef, type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { cx } from '../cx';
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
  { label, hideLabel, hint, error, leading, id: idProp, className, containerClassName, ...rest },
  ref,
) {
  const autoId = useId();
  const id = idProp ?? autoId;
  const describedBy =
    [rest['aria-describedby'], hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cx(f.fieldRoot, containerClassName)}>
      <label htmlFor={id} className={cx(f.fieldLabel, hideLabel && f.visuallyHidden)}>
        {label}
      </label>
      <div className={s.wrap}>
        {leading ? <span className={s.leading}>{leading}</span> : null}
        <input
          ref={ref}
          id={id}
          {...rest}
          aria-invalid={error ? true : rest['aria-invalid']}
          aria-describedby={describedBy}
          className={cx(f.fieldControl, leading ? s.withLeading : undefined, className)}
        />
      </div>
      {hint ? (
        <p id={`${id}-hint`} className={f.fieldHint}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className={f.fieldError}>
          {error}
        </p>
      ) : null}
    </div>
  );
});
