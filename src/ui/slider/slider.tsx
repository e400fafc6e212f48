import { type ChangeEvent, type CSSProperties, forwardRef, type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { cx } from '../cx';
import * as f from '../shared.css';
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
    id: idProp,
    className,
    containerClassName,
    ...rest
  },
  ref,
) {
  const autoId = useId();
  const id = idProp ?? autoId;
  const pct = max > min ? ((Math.min(Math.max(value, min), max) - min) / (max - min)) * 100 : 0;
  const shown = formatValue(value);
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cx(f.fieldRoot, containerClassName)}>
      <div className={s.header}>
        <label htmlFor={id} className={cx(f.fieldLabel, hideLabel && f.visuallyHidden)}>
          {label}
        </label>
        {hideValue ? null : (
          <output htmlFor={id} className={s.output} aria-hidden="true">
            {shown}
          </output>
        )}
      </div>
      <input
        ref={ref}
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        aria-valuetext={shown}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...rest}
        onChange={(e: ChangeEvent<HTMLInputElement>) => {
          onChange?.(e);
          onValueChange?.(Number(e.target.value));
        }}
        className={cx(s.range, className)}
        style={{ '--slider-fill': `${pct}%`, ...rest.style } as CSSProperties}
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
