import { forwardRef, type ReactNode, type TextareaHTMLAttributes } from 'react';
import { cx } from '../cx';
import { Field, useFieldControl } from '../field/field';
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
  { label, hideLabel, hint, error, id, className, containerClassName, ...rest },
  ref,
) {
  const control = useFieldControl(id, { hint, error, describedBy: rest['aria-describedby'] });
  return (
    <Field id={control.id} label={label} hideLabel={hideLabel} hint={hint} error={error} className={containerClassName}>
      <textarea
        ref={ref}
        {...rest}
        {...control}
        aria-invalid={control['aria-invalid'] ?? rest['aria-invalid']}
        className={cx(f.fieldControl, s.textarea, className)}
      />
    </Field>
  );
});
