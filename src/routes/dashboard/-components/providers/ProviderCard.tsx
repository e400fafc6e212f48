import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useId } from 'react';
import type { ActorRefFrom } from 'xstate';
import { type ProviderName, providerCallUse } from '../../../../api/contract/provider';
import { notify } from '../../../../app/toaster';
import { providerConnectionMachine } from '../../../../machines/providerConnection.machine';
import { AlertDialog } from '../../../../ui/alert-dialog/alert-dialog';
import { Button } from '../../../../ui/button/button';
import { CheckIcon } from '../../../../ui/icons';
import { visuallyHidden } from '../../../../ui/shared.css';
import { ProviderDialog } from './ProviderDialog';
import { PROVIDER_BLURBS, ProviderLogo } from './ProviderLogo';
import * as s from './providers.css';

// toasts go to the app's toaster (the machines declare `notify`; src/app/toaster.ts supplies it)
const providerConnectionLogic = providerConnectionMachine.provide({ actions: { notify } });

export type ProviderConnectionActor = ActorRefFrom<typeof providerConnectionMachine>;

export interface ProviderCardProps {
  name: ProviderName;
  label: string;
  /** the status the screen knows (GET /provider); the card's machine follows it while no dialog is open */
  connected: boolean;
}

/**
 * One provider: its logo, what it does in calls (when it makes an agent talk), and 'Connect', or a green
 * 'Connected' mark with 'Edit' and 'Disconnect'. The buttons show the spec's words; their accessible names
 * add the provider ('Edit Twilio') so a screen reader's list of buttons tells the cards apart.
 */
export function ProviderCard({ name, label, connected }: ProviderCardProps) {
  const actor = useActorRef(providerConnectionLogic, { input: { name, label, connected } });
  // the card keeps its look while one of its dialogs is open
  const isConnected = useSelector(actor, (snap) => snap.context.connected);
  const confirming = useSelector(actor, (snap) => snap.hasTag('confirming'));
  const disconnecting = useSelector(actor, (snap) => snap.hasTag('confirming') && snap.hasTag('busy'));
  const headingId = useId();
  const callUse = providerCallUse(name);

  useEffect(() => {
    actor.send({ type: 'status.sync', connected });
  }, [actor, connected]);

  return (
    <article className={s.card} aria-labelledby={headingId}>
      <div className={s.cardHead}>
        <ProviderLogo name={name} label={label} />
        <div className={s.cardHeadText}>
          <h2 id={headingId} className={s.cardTitle}>
            {label}
          </h2>
          <p className={s.cardText}>{PROVIDER_BLURBS[name]}</p>
          {callUse ? <p className={s.callUse}>{callUse}</p> : null}
        </div>
      </div>
      <div className={s.cardFoot}>
        {isConnected ? (
          <>
            <span className={s.connected}>
              <CheckIcon size={16} />
              Connected
            </span>
            <div className={s.cardActions}>
              <Button variant="secondary" size="sm" onClick={() => actor.send({ type: 'disconnect.request' })}>
                Disconnect<span className={visuallyHidden}> {label}</span>
              </Button>
              <Button size="sm" onClick={() => actor.send({ type: 'dialog.open' })}>
                Edit<span className={visuallyHidden}> {label}</span>
              </Button>
            </div>
          </>
        ) : (
          <div className={s.cardActions}>
            <Button size="sm" onClick={() => actor.send({ type: 'dialog.open' })}>
              Connect<span className={visuallyHidden}> {label}</span>
            </Button>
          </div>
        )}
      </div>
      <ProviderDialog actor={actor} />
      <AlertDialog
        open={confirming}
        onClose={() => actor.send({ type: 'disconnect.cancel' })}
        onConfirm={() => actor.send({ type: 'disconnect.confirm' })}
        title={`Disconnect ${label}?`}
        description={`The stored keys of ${label} will be deleted. Anything that uses them stops working until you connect ${label} again.`}
        confirmLabel="Disconnect"
        confirming={disconnecting}
        confirmingLabel="Disconnecting..."
      />
    </article>
  );
}
