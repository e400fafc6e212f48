import * as Ariakit from '@ariakit/react';
import { type ReactNode, useId } from 'react';
import { fieldError, fieldLabel } from '../../../../ui/shared.css';
import { Spinner } from '../../../../ui/spinner/spinner';
import * as s from './phone.css';

export interface RadioChoice<V extends string> {
  value: V;
  label: ReactNode;
  note?: ReactNode;
}

export interface RadioChoicesProps<V extends string> {
  /** names the radio group */
  label: string;
  value: V | '';
  onChange: (value: V) => void;
  choices: ReadonlyArray<RadioChoice<V>>;
  /** a scrolling list (agents) instead of a row (directions) */
  list?: boolean;
  disabled?: boolean;
  error?: ReactNode;
  /** the choices are being replaced (a search runs): marks the group busy and shows a spinner by the label */
  busy?: boolean;
  /** shown in place of the choices (loading, failure, nothing found) */
  children?: ReactNode;
}

/** A labelled radio group (Ariakit): arrow keys move the choice, the error joins the group's description. */
export function RadioChoices<V extends string>({
  label,
  value,
  onChange,
  choices,
  list,
  disabled,
  error,
  busy,
  children,
}: RadioChoicesProps<V>) {
  const id = useId();
  return (
    <Ariakit.RadioProvider value={value || null} setValue={(v) => onChange(String(v) as V)}>
      <Ariakit.RadioGroup
        className={s.group}
        aria-labelledby={`${id}-label`}
        aria-describedby={error ? `${id}-error` : undefined}
        aria-invalid={error ? true : undefined}
        aria-busy={busy || undefined}
      >
        <span className={s.groupHead}>
          <span id={`${id}-label`} className={fieldLabel}>
            {label}
          </span>
          {busy ? <Spinner size="sm" label={`Updating ${label.toLowerCase()}`} /> : null}
        </span>
        {children ?? (
          <div className={list ? s.choices : s.choicesInline}>
            {choices.map((c) => (
              <div key={c.value} className={list ? s.choice : s.choiceInline}>
                <Ariakit.Radio
                  id={`${id}-${c.value}`}
                  value={c.value}
                  disabled={disabled}
                  className={s.choiceInput}
                  aria-describedby={c.note ? `${id}-${c.value}-note` : undefined}
                />
                <span className={s.choiceText}>
                  <label htmlFor={`${id}-${c.value}`}>{c.label}</label>
                  {c.note ? (
                    <span id={`${id}-${c.value}-note`} className={s.choiceNote}>
                      {c.note}
                    </span>
                  ) : null}
                </span>
              </div>
            ))}
          </div>
        )}
        {error ? (
          <p id={`${id}-error`} className={fieldError}>
            {error}
          </p>
        ) : null}
      </Ariakit.RadioGroup>
    </Ariakit.RadioProvider>
  );
}
