import { useActorRef, useSelector } from '@xstate/react';
import { useState } from 'react';
import { fromPromise } from 'xstate';
import { notify } from '../../../../app/toaster';
import {
  type SettingsFormInput,
  type SettingsLoaded,
  type SettingsSaved,
  settingsFormMachine,
} from '../../../../machines/settingsForm.machine';

/** A settingsForm actor with this screen's load and save, plus what a form needs from its snapshot. */
export function useSettingsForm(
  input: SettingsFormInput,
  load: () => Promise<SettingsLoaded>,
  save: (body: unknown) => Promise<SettingsSaved>,
) {
  const [machine] = useState(() =>
    settingsFormMachine.provide({
      actors: {
        load: fromPromise<SettingsLoaded>(() => load()),
        save: fromPromise<SettingsSaved, unknown>(({ input: body }) => save(body)),
      },
      actions: { notify },
    }),
  );
  const actor = useActorRef(machine, { input });
  const values = useSelector(actor, (s) => s.context.values);
  const errors = useSelector(actor, (s) => s.context.errors);
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const field = (name: string) => ({
    name,
    value: values[name] ?? '',
    error: errors[name] || undefined,
    disabled: busy,
    onChange: (e: { currentTarget: { value: string } }) =>
      actor.send({ type: 'field.change', field: name, value: e.currentTarget.value }),
  });
  return { actor, field, busy };
}
