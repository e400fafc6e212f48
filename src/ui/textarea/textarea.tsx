import { forwardRef, type ReactNode, type TextareaHTMLAttributes, useId } from 'react';
import { cx } from '../cx';
import * as f from '../shared.css';
import * as s from '../text-field/text-field.css';

export interface TextareaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: ReactNode;
  hideLabel?: boolean;
  hint?: ReactNode;
  error?: ReactNode;
  containerClassName?: string;
}

/** Label + textarea + hint/error. Accepts every native textarea prop (rows, placeholder, ...). */
export const Textarea = forwardRef<HTMLTextAreaElement, TextareaProps>(function Textarea(
  { label, hideLabel, hint, error, id: idProp, className, containerClassName, ...rest },
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
      <textarea
        ref={ref}
        id={id}
        {...rest}
        aria-invalid={error ? true : rest['aria-invalid']}
        aria-describedby={describedBy}
        className={cx(f.fieldControl, s.textarea, className)}
      />
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
