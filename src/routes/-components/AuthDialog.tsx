import { Link } from '@tanstack/react-router';
import { useSelector } from '@xstate/react';
import { type FormEvent, useEffect, useState } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { AuthField, authDialogMachine } from '../../machines/authDialog.machine';
import { Button } from '../../ui/button/button';
import { Dialog } from '../../ui/dialog/dialog';
import { Tab, TabList, TabPanel, Tabs } from '../../ui/tabs/tabs';
import { TextField } from '../../ui/text-field/text-field';
import * as s from './auth.css';

export type AuthDialogActor = ActorRefFrom<typeof authDialogMachine>;

export interface AuthDialogProps {
  actor: AuthDialogActor;
}

const TAB_IDS = { login: 'auth-tab-login', signup: 'auth-tab-signup' } as const;

/** 'Welcome to Parley' dialog: Login and Sign Up tabs, driven by the authDialog machine. */
export function AuthDialog({ actor }: AuthDialogProps) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const tab = useSelector(actor, (snap) => (snap.hasTag('signup') ? 'signup' : 'login'));
  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      title="Welcome to Parley"
      description="Log in or create an account to build your voice agents."
    >
      <Tabs
        selectedId={TAB_IDS[tab]}
        onChange={(id) => actor.send({ type: 'tab.select', tab: id === TAB_IDS.signup ? 'signup' : 'login' })}
      >
        <TabList aria-label="Login or sign up">
          <Tab id={TAB_IDS.login}>Login</Tab>
          <Tab id={TAB_IDS.signup}>Sign Up</Tab>
        </TabList>
        <TabPanel tabId={TAB_IDS.login}>
          <LoginForm actor={actor} />
        </TabPanel>
        <TabPanel tabId={TAB_IDS.signup}>
          <SignupForm actor={actor} />
        </TabPanel>
      </Tabs>
      <p className={s.legal}>
        By continuing you agree to our{' '}
        <Link to="/terms" target="_blank" className={s.link}>
          Terms of Service
        </Link>{' '}
        and{' '}
        <Link to="/privacy" target="_blank" className={s.link}>
          Privacy Policy
        </Link>
        .
      </p>
    </Dialog>
  );
}

function useForm(actor: AuthDialogActor) {
  const values = useSelector(actor, (snap) => snap.context.values);
  const errors = useSelector(actor, (snap) => snap.context.errors);
  const busy = useSelector(actor, (snap) => snap.hasTag('submitting'));
  const field = (name: AuthField) => ({
    name,
    value: values[name],
    error: errors[name],
    disabled: busy,
    onChange: (e: { currentTarget: HTMLInputElement }) =>
      actor.send({ type: 'field.change', field: name, value: e.currentTarget.value }),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  return { field, errors, busy, onSubmit };
}

function LoginForm({ actor }: { actor: AuthDialogActor }) {
  const { field, busy, onSubmit } = useForm(actor);
  return (
    <form className={s.form} noValidate onSubmit={onSubmit} aria-label="Login">
      <TextField label="Email" type="email" autoComplete="email" placeholder="you@example.com" autoFocus {...field('email')} />
      <TextField label="Password" type="password" autoComplete="current-password" {...field('password')} />
      <div className={s.row}>
        <Link
          to="/forgot-password"
          className={s.link}
          onClick={(e) => {
            e.preventDefault();
            actor.send({ type: 'password.forgot' });
          }}
        >
          Forgot password
        </Link>
      </div>
      <Button type="submit" fullWidth loading={busy}>
        Log in
      </Button>
    </form>
  );
}

function SignupForm({ actor }: { actor: AuthDialogActor }) {
  const { field, errors, busy, onSubmit } = useForm(actor);
  const photo = useSelector(actor, (snap) => snap.context.photo);
  const preview = usePreview(errors.file ? null : photo);
  return (
    <form className={s.form} noValidate onSubmit={onSubmit} aria-label="Sign up">
      <TextField label="Name" autoComplete="name" placeholder="Your full name" autoFocus {...field('name')} />
      <TextField label="Email" type="email" autoComplete="email" placeholder="you@example.com" {...field('email')} />
      <TextField
        label="Password"
        type="password"
        autoComplete="new-password"
        hint="At least 6 characters."
        {...field('password')}
      />
      <div className={s.photoRow}>
        {preview ? <img className={s.photoPreview} src={preview} alt="Preview of the chosen file" /> : null}
        <TextField
          containerClassName={s.grow}
          label="Profile photo (optional)"
          type="file"
          name="file"
          accept="image/*"
          hint="JPG, PNG or WEBP, up to 5 MB."
          error={errors.file}
          disabled={busy}
          onChange={(e) => actor.send({ type: 'photo.pick', file: e.currentTarget.files?.[0] ?? null })}
        />
      </div>
      <Button type="submit" fullWidth loading={busy}>
        Create account
      </Button>
    </form>
  );
}

/** An object URL for an image preview, revoked when it changes or unmounts. */
function usePreview(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}
