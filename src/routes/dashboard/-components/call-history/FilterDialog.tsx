import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { CALL_TYPE_LABELS } from '../../../../api/contract/call';
import { CALL_STATUSES, CALL_TYPES, type CallStatus, type CallType } from '../../../../api/contract/call-values';
import { prettyPhoneNumber } from '../../../../api/contract/phone';
import type { callFiltersMachine } from '../../../../machines/callFilters.machine';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { Select } from '../../../../ui/select/select';
import { LoadError } from '../QueryStates';
import { callStatusLabel } from './call-columns';
import * as s from './call-history.css';

/** The Select value meaning "no filter" (the listbox needs a value for its first option). */
const ANY = 'any';

/** The 'Filter Call History' dialog: phone number, call type, call status; Apply and Clear (the specification). */
export function FilterDialog({ actor }: { actor: ActorRefFrom<typeof callFiltersMachine> }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const loading = useSelector(actor, (snap) => snap.hasTag('loading'));
  const failed = useSelector(actor, (snap) => snap.hasTag('error'));
  const { draft, numbers, error } = useSelector(actor, (snap) => snap.context);

  const numberOptions = [
    { value: ANY, label: 'All numbers' },
    ...(numbers ?? []).map((n) => ({
      value: n.phone,
      label: n.nickname ? `${prettyPhoneNumber(n.phone)} (${n.nickname})` : prettyPhoneNumber(n.phone),
    })),
  ];
  // a number in the URL that is not (or not yet) in the list still shows as chosen
  if (draft.phoneNumber && !numberOptions.some((o) => o.value === draft.phoneNumber))
    numberOptions.push({ value: draft.phoneNumber, label: prettyPhoneNumber(draft.phoneNumber) });

  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      title="Filter Call History"
      description="Show only the calls of one number, type or status."
      size="sm"
      footer={
        <>
          <Button variant="secondary" onClick={() => actor.send({ type: 'filters.clear' })}>
            Clear
          </Button>
          <Button onClick={() => actor.send({ type: 'filters.apply' })}>Apply</Button>
        </>
      }
    >
      <div className={s.dialogFields}>
        <Select
          label="Phone Number"
          value={draft.phoneNumber || ANY}
          onChange={(value) => actor.send({ type: 'field.change', field: 'phoneNumber', value: value === ANY ? '' : value })}
          options={numberOptions}
          hint={loading && !numbers ? 'Loading your numbers…' : undefined}
        />
        {failed ? (
          <LoadError
            what={error ?? 'Could not load your numbers.'}
            error={undefined}
            onRetry={() => actor.send({ type: 'numbers.retry' })}
          />
        ) : null}
        <Select
          label="Call Type"
          value={draft.type || ANY}
          onChange={(value) =>
            actor.send({ type: 'field.change', field: 'type', value: value === ANY ? '' : (value as CallType) })
          }
          options={[{ value: ANY, label: 'All types' }, ...CALL_TYPES.map((t) => ({ value: t, label: CALL_TYPE_LABELS[t] }))]}
        />
        <Select
          label="Call Status"
          value={draft.status || ANY}
          onChange={(value) =>
            actor.send({ type: 'field.change', field: 'status', value: value === ANY ? '' : (value as CallStatus) })
          }
          options={[
            { value: ANY, label: 'All statuses' },
            ...CALL_STATUSES.map((v) => ({ value: v, label: callStatusLabel(v) })),
          ]}
        />
      </div>
    </Dialog>
  );
}
