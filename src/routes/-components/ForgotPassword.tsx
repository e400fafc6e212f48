import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { forgotPasswordMachine } from '../../machines/forgotPassword.machine';
import { Button } from '../../ui/button/button';
import { MailIcon } from '../../ui/icons';
import { TextField } from '../../ui/text-field/text-field';
import * as s from './auth.css';

export type ForgotPasswordActor = ActorRefFrom<typeof forgotPasswordMachine>;

/**
 * The forgot-password flow (email form, then 'Check your inbox'), shared by the landing page's dialog
 * and the /forgot-password page. `onDone` is the 'Got it' button.
 */
export function ForgotPasswordFlow({ actor, onDone }: { actor: ForgotPasswordActor; onDone: () => void }) {
  const sent = useSelector(actor, (snap) => snap.hasTag('sent'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const email = useSelector(actor, (snap) => snap.context.email);
  const error = useSelector(actor, (snap) => snap.context.error);
  if (sent) {
    return (
      <div className={s.sent} role="status">
        <span className={s.sentIcon}>
          <MailIcon size={22} />
        </span>
        <h3 className={s.sentTitle}>Check your inbox</h3>
        <p className={s.muted}>
          If an account exists for <strong>{email}</strong>, we have sent it a link to reset the password. The link works once and
          expires in 30 minutes.
        </p>
        <Button onClick={onDone}>Got it</Button>
      </div>
    );
  }
  return (
    <form
      className={s.form}
      noValidate
      aria-label="Forgot password"
      onSubmit={(e) => {
        e.preventDefault();
        actor.send({ type: 'form.submit' });
      }}
    >
      <p className={s.muted}>Enter the email address of your account and we will send you a link to choose a new password.</p>
      <TextField
        label="Email"
        type="email"
        name="email"
        autoComplete="email"
        placeholder="you@example.com"
        autoFocus
        value={email}
        error={error ?? undefined}
        disabled={busy}
        onChange={(e) => actor.send({ type: 'field.change', value: e.currentTarget.value })}
      />
      <Button type="submit" fullWidth loading={busy}>
        Send reset link
      </Button>
    </form>
  );
}
