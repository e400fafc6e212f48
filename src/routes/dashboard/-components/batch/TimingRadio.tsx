import * as Ariakit from '@ariakit/react';
import type { SendMode } from '../../../../api/contract/batch';
import { Field, fieldLabelId } from '../../../../ui/field/field';
import * as s from './batch.css';

/** The send-timing radio of the batch form: 'Send Now' or 'Schedule'. */
export function TimingRadio({
  value,
  onChange,
  disabled,
}: {
  value: SendMode;
  onChange: (mode: SendMode) => void;
  disabled?: boolean;
}) {
  return (
    <Field id="batch-timing" label="When to send" labelFor="none">
      <Ariakit.RadioProvider value={value} setValue={(v) => onChange(v === 'scheduled' ? 'scheduled' : 'now')}>
        <Ariakit.RadioGroup className={s.radios} aria-labelledby={fieldLabelId('batch-timing')}>
          {(
            [
              ['now', 'Send Now'],
              ['scheduled', 'Schedule'],
            ] as const
          ).map(([mode, label]) => (
            <label key={mode} htmlFor={`batch-timing-${mode}`} className={s.radio}>
              <Ariakit.Radio id={`batch-timing-${mode}`} value={mode} disabled={disabled} className={s.radioInput} />
              {label}
            </label>
          ))}
        </Ariakit.RadioGroup>
      </Ariakit.RadioProvider>
    </Field>
  );
}
