import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { PHONE_PROVIDER_LABELS, PHONE_TEXTS, prettyPhoneNumber } from '../../../../api/contract/phone';
import type { numberImportMachine } from '../../../../machines/numberImport.machine';
import { Button } from '../../../../ui/button/button';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { Dialog } from '../../../../ui/dialog/dialog';
import { Spinner } from '../../../../ui/spinner/spinner';
import { ProviderProblem } from '../../agents/-components/ProviderProblem';
import * as s from './phone.css';

export type NumberImportActor = ActorRefFrom<typeof numberImportMachine>;

/** 'Import numbers from Twilio' / '… from Plivo': the account's numbers, ticked and imported (numberImport machine). */
export function ImportNumbersDialog({ actor }: { actor: NumberImportActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const loading = useSelector(actor, (snap) => snap.matches('loading'));
  const loadFailed = useSelector(actor, (snap) => snap.matches('loadFailed'));
  const importing = useSelector(actor, (snap) => snap.matches('importing'));
  const { provider, numbers, selected, error, errorLink } = useSelector(actor, (snap) => snap.context);
  const label = PHONE_PROVIDER_LABELS[provider];
  const close = () => actor.send({ type: 'dialog.close' });

  let body: React.ReactNode;
  if (loading)
    body = (
      <p className={s.importStatus}>
        <Spinner size="sm" label="Loading numbers" />
        <span aria-hidden="true">Loading numbers…</span>
      </p>
    );
  else if (loadFailed)
    body = (
      <div className={s.importStatus}>
        <ProviderProblem message={error ?? PHONE_TEXTS.importLoadFailed(label)} link={errorLink} />
        <Button variant="secondary" size="sm" onClick={() => actor.send({ type: 'numbers.retry' })}>
          Retry
        </Button>
      </div>
    );
  else if (numbers.length === 0) body = <p className={s.muted}>{PHONE_TEXTS.importEmpty(label)}</p>;
  else
    body = (
      <fieldset className={s.importList} aria-label={`Numbers on your ${label} account`} disabled={importing}>
        {numbers.map((n) => {
          const note = n.in_parley ? PHONE_TEXTS.importAlready : !n.voice ? PHONE_TEXTS.importNoVoice : n.friendly_name;
          return (
            <Checkbox
              key={n.phone_number}
              label={prettyPhoneNumber(n.phone_number)}
              description={note || undefined}
              checked={selected.includes(n.phone_number)}
              disabled={n.in_parley || !n.voice}
              onCheckedChange={() => actor.send({ type: 'number.toggle', phone: n.phone_number })}
            />
          );
        })}
      </fieldset>
    );

  return (
    <Dialog
      open={open}
      onClose={close}
      hideOnInteractOutside={false}
      title={PHONE_TEXTS.importTitle(label)}
      description={PHONE_TEXTS.importLead(label)}
      footer={
        <>
          <Button variant="secondary" onClick={close} disabled={importing}>
            Cancel
          </Button>
          <Button
            onClick={() => actor.send({ type: 'import.submit' })}
            disabled={selected.length === 0 || importing || loading}
            aria-busy={importing || undefined}
          >
            {importing ? 'Importing…' : PHONE_TEXTS.importSubmit}
          </Button>
        </>
      }
    >
      {body}
      {error && !loadFailed ? <ProviderProblem message={error} link={errorLink} /> : null}
    </Dialog>
  );
}
