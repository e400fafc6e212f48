import * as Ariakit from '@ariakit/react';
import type { ReactNode } from 'react';
import { Field, fieldLabelId, useFieldControl } from '../../../../ui/field/field';
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
  const field = useFieldControl(undefined, { error });
  const id = field.id;
  return (
    <Field
      id={id}
      label={label}
      labelFor="none"
      labelEnd={busy ? <Spinner size="sm" label={`Updating ${label.toLowerCase()}`} /> : null}
      error={error}
    >
      <Ariakit.RadioProvider value={value || null} setValue={(v) => onChange(String(v) as V)}>
        <Ariakit.RadioGroup
          aria-labelledby={fieldLabelId(id)}
          aria-describedby={field['aria-describedby']}
          aria-invalid={field['aria-invalid']}
          aria-busy={busy || undefined}
        >
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
        </Ariakit.RadioGroup>
      </Ariakit.RadioProvider>
    </Field>
  );
}
