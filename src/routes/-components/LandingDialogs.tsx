import { useRouter } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { notify } from '../../app/toaster';
import { authDialogMachine } from '../../machines/authDialog.machine';
import { contactMachine } from '../../machines/contact.machine';
import { forgotPasswordMachine } from '../../machines/forgotPassword.machine';
import type { SessionActor } from '../../session';
import { AuthDialog } from './AuthDialog';
import { ContactDialog } from './ContactDialog';
import { ForgotPasswordDialog } from './ForgotPasswordDialog';

const forgotPassword = forgotPasswordMachine.provide({ actions: { notify } });
const contactForm = contactMachine.provide({ actions: { notify } });

/** Which dialog the landing page asked for; a new `seq` asks again (the same dialog can reopen). */
export interface DialogRequest {
  dialog: 'auth' | 'contact';
  tab?: 'login';
  seq: number;
}

/** True from the first time `flag` is true: a dialog stays mounted after opening so it can animate out. */
function useLatch(flag: boolean): boolean {
  const [latched, setLatched] = useState(flag);
  if (flag && !latched) setLatched(true);
  return latched || flag;
}

/**
 * The landing page's dialogs (auth, contact, forgot password) with their machines. Loaded on first
 * intent, so neither the dialogs nor their machines weigh on the landing's first load; the page only
 * says which dialog to open.
 */
export function LandingDialogs({ request, session }: { request: DialogRequest; session: SessionActor }) {
  const router = useRouter();
  const forgot = useActorRef(forgotPassword);
  const contact = useActorRef(contactForm);
  const auth = useActorRef(
    authDialogMachine.provide({
      actions: {
        notify,
        startSession: (_, r) =>
          session.send({
            type: 'session.login',
            accessToken: r.token,
            refreshToken: r.refresh_token,
            accountId: r.account._id,
            companyId: r.account.companyId,
          }),
        // Back to where the guard stopped the visitor, else the dashboard.
        enterDashboard: () => void router.navigate({ href: session.getSnapshot().context.previousUrl ?? '/dashboard' }),
        openForgotPassword: () => forgot.send({ type: 'dialog.open' }),
      },
    }),
  );
  const authMounted = useLatch(useSelector(auth, (snap) => snap.hasTag('open')));
  const contactMounted = useLatch(useSelector(contact, (snap) => snap.hasTag('open')));
  const forgotMounted = useLatch(useSelector(forgot, (snap) => snap.hasTag('open')));

  const { dialog, tab, seq } = request;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new request (seq) opens its dialog once
  useEffect(() => {
    if (dialog === 'contact') contact.send({ type: 'dialog.open' });
    else auth.send(tab ? { type: 'dialog.open', tab } : { type: 'dialog.open' });
  }, [seq]);

  return (
    <>
      {contactMounted ? <ContactDialog actor={contact} /> : null}
      {authMounted ? <AuthDialog actor={auth} /> : null}
      {forgotMounted ? <ForgotPasswordDialog actor={forgot} /> : null}
    </>
  );
}
