import { createFileRoute, Link, useRouter } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { type FormEvent, useEffect, useState } from 'react';
import { notify } from '../app/toaster';
import { resetPasswordMachine } from '../machines/resetPassword.machine';
import { Button } from '../ui/button/button';
import { LogoMark } from '../ui/icons';
import { TextField } from '../ui/text-field/text-field';
import * as s from './-components/auth.css';
import { noSearch } from './-lib/search';

/**
 * /reset-password#token=...: the emailed link carries the token in the fragment, which browsers never
 * send to a server (no access logs, no Referer). It is read once and then removed from the address bar.
 */
export const Route = createFileRoute('/reset-password')({
  validateSearch: noSearch,
  component: ResetPasswordPage,
});

const tokenFromHash = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';

function ResetPasswordPage() {
  const router = useRouter();
  const [token] = useState(() => tokenFromHash(window.location.hash));
  const actor = useActorRef(
    resetPasswordMachine.provide({
      actions: { notify, openLogin: () => void router.navigate({ to: '/', search: { login: 1 } }) },
    }),
    { input: { token } },
  );
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);
  const linkInvalid = useSelector(actor, (snap) => snap.matches('linkInvalid'));
  const done = useSelector(actor, (snap) => snap.status === 'done');
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const values = useSelector(actor, (snap) => snap.context);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  return (
    <main className={s.page}>
      <div className={s.card}>
        <Link to="/" className={s.brand}>
          <LogoMark />
          Parley
        </Link>
        <h1 className={s.title}>Choose a new password</h1>
        {linkInvalid ? (
          <div className={s.form}>
            <p className={s.muted}>
              This reset link is invalid or has expired. Reset links work once and for 30 minutes; ask for a new one.
            </p>
            <Button render={<Link to="/forgot-password" />}>Request a new link</Button>
          </div>
        ) : done ? (
          <p className={s.muted} role="status">
            Your password has been reset. You can now log in.
          </p>
        ) : (
          <form className={s.form} noValidate aria-label="Choose a new password" onSubmit={onSubmit}>
            <TextField
              label="New password"
              type="password"
              name="password"
              autoComplete="new-password"
              hint="At least 6 characters."
              autoFocus
              value={values.password}
              error={values.errors.password}
              disabled={busy}
              onChange={(e) => actor.send({ type: 'field.change', field: 'password', value: e.currentTarget.value })}
            />
            <TextField
              label="Confirm new password"
              type="password"
              name="confirm"
              autoComplete="new-password"
              value={values.confirm}
              error={values.errors.confirm}
              disabled={busy}
              onChange={(e) => actor.send({ type: 'field.change', field: 'confirm', value: e.currentTarget.value })}
            />
            <Button type="submit" fullWidth loading={busy}>
              Reset password
            </Button>
          </form>
        )}
        <p className={s.footerLinks}>
          <Link to="/" search={{ login: 1 }} className={s.link}>
            Back to login
          </Link>
        </p>
      </div>
    </main>
  );
}
