import { type ChangeEvent, type CSSProperties, forwardRef, type InputHTMLAttributes, type ReactNode } from 'react';
import { cx } from '../cx';
import { Field, useFieldControl } from '../field/field';
import * as s from './slider.css';

export interface SliderProps
  extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'value' | 'defaultValue' | 'min' | 'max' | 'step'> {
  /** Visible label; names the slider. */
  label: ReactNode;
  hideLabel?: boolean;
  value: number;
  /** Called with the parsed number. The native onChange still fires. */
  onValueChange?: (value: number) => void;
  min?: number;
  max?: number;
  step?: number;
  /** Formats the shown value and aria-valuetext (e.g. v => `${v} s`). */
  formatValue?: (value: number) => string;
  hideValue?: boolean;
  hint?: ReactNode;
  error?: ReactNode;
  containerClassName?: string;
}

/** A labelled native range input that shows its current value. Defaults: 0..1 step 0.1. */
export const Slider = forwardRef<HTMLInputElement, SliderProps>(function Slider(
  {
    label,
    hideLabel,
    value,
    onValueChange,
    onChange,
    min = 0,
    max = 1,
    step = 0.1,
    formatValue = String,
    hideValue,
    hint,
    error,
    id,
    className,
    containerClassName,
    ...rest
  },
  ref,
) {
  const pct = max > min ? ((Math.min(Math.max(value, min), max) - min) / (max - min)) * 100 : 0;
  const shown = formatValue(value);
  const control = useFieldControl(id, { hint, error, describedBy: rest['aria-describedby'] });
  return (
    <Field
      id={control.id}
      label={label}
      hideLabel={hideLabel}
      labelEnd={
        hideValue ? null : (
          <output htmlFor={control.id} className={s.output} aria-hidden="true">
            {shown}
          </output>
        )
      }
      hint={hint}
      error={error}
      className={containerClassName}
    >
      <input
        ref={ref}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        aria-valuetext={shown}
        {...rest}
        {...control}
        aria-invalid={control['aria-invalid'] ?? rest['aria-invalid']}
        onChange={(e: ChangeEvent<HTMLInputElement>) => {
          onChange?.(e);
          onValueChange?.(Number(e.target.value));
        }}
        className={cx(s.range, className)}
        style={{ '--slider-fill': `${pct}%`, ...rest.style } as CSSProperties}
      />
    </Field>
  );
});
