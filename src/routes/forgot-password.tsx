import { createFileRoute, Link, useRouter } from '@tanstack/react-router';
import { useActorRef } from '@xstate/react';
import { notify } from '../app/toaster';
import { forgotPasswordMachine } from '../machines/forgotPassword.machine';
import { LogoMark } from '../ui/icons';
import * as s from './-components/auth.css';
import { ForgotPasswordFlow } from './-components/ForgotPassword';
import { noSearch } from './-lib/search';

const forgotPassword = forgotPasswordMachine.provide({ actions: { notify } });

/** /forgot-password: the forgot-password flow as a page (no login needed). */
export const Route = createFileRoute('/forgot-password')({
  validateSearch: noSearch,
  component: ForgotPasswordPage,
});

function ForgotPasswordPage() {
  const router = useRouter();
  const actor = useActorRef(forgotPassword);
  return (
    <main className={s.page}>
      <div className={s.card}>
        <Link to="/" className={s.brand}>
          <LogoMark />
          Parley
        </Link>
        <h1 className={s.title}>Forgot password</h1>
        <ForgotPasswordFlow actor={actor} onDone={() => void router.navigate({ to: '/' })} />
        <p className={s.footerLinks}>
          <Link to="/" search={{ login: 1 }} className={s.link}>
            Back to login
          </Link>
        </p>
      </div>
    </main>
  );
}
