import * as Ariakit from '@ariakit/react';
import type { SendMode } from '../../../../api/contract/batch';
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
    <Ariakit.RadioProvider value={value} setValue={(v) => onChange(v === 'scheduled' ? 'scheduled' : 'now')}>
      <Ariakit.RadioGroup className={s.fieldset} aria-labelledby="batch-timing-label">
        <span id="batch-timing-label" className={s.legend}>
          When to send
        </span>
        <div className={s.radios}>
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
        </div>
      </Ariakit.RadioGroup>
    </Ariakit.RadioProvider>
  );
}
