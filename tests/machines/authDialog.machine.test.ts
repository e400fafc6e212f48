import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromPromise } from 'xstate';
import type { LoginBody, LoginResponse, RegisterForm } from '../../src/api/contract/account.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import { type AuthDialogContext, authDialogMachine } from '../../src/machines/authDialog.machine.js';
import { describeModel } from './harness.js';

/** Files serialise to `{}`: name them so the harness tells them apart. */
const file = (name: string, type: string) =>
  Object.assign(new File(['x'], name, { type }), { toJSON: () => `${name} (${type})` });
const png = file('me.png', 'image/png');
const gif = file('me.gif', 'image/gif');

const ok: LoginResponse = {
  success: true,
  msg: 'Welcome',
  token: 'a1',
  refresh_token: 'r1',
  account: { _id: 'acc', companyId: 'co' },
};
const notOk: LoginResponse = { ...ok, success: false, msg: 'Account locked' };

describeModel('authDialog', authDialogMachine, {
  implementations: { actions: { notify: () => {} } },
  events: {
    'dialog.open': [{ type: 'dialog.open' }, { type: 'dialog.open', tab: 'signup' }],
    'tab.select': [
      { type: 'tab.select', tab: 'login' },
      { type: 'tab.select', tab: 'signup' },
    ],
    // Fields are filled in one order (email, password, name) to keep the state space small.
    'field.change': (snapshot: AnyMachineSnapshot) => {
      const { values } = snapshot.context as AuthDialogContext;
      if (!values.email) return [{ type: 'field.change', field: 'email', value: 'ava@example.com' }];
      if (!values.password) return [{ type: 'field.change', field: 'password', value: 'secret1' }];
      if (!values.name) return [{ type: 'field.change', field: 'name', value: 'Ava Lee' }];
      return [];
    },
    'photo.pick': [
      { type: 'photo.pick', file: png },
      { type: 'photo.pick', file: gif },
    ],
    'xstate.done.actor.login': [
      { type: 'xstate.done.actor.login', output: ok },
      { type: 'xstate.done.actor.login', output: notOk },
    ],
    'xstate.error.actor.login': [
      {
        type: 'xstate.error.actor.login',
        error: new ApiError({ kind: 'http', status: 401, serverMessage: 'Invalid email or password' }),
      },
      { type: 'xstate.error.actor.login', error: new ApiError({ kind: 'network' }) },
    ],
    'xstate.done.actor.register': [
      { type: 'xstate.done.actor.register', output: ok },
      { type: 'xstate.done.actor.register', output: notOk },
    ],
    'xstate.error.actor.register': [
      {
        type: 'xstate.error.actor.register',
        error: new ApiError({
          kind: 'http',
          status: 409,
          serverMessage: 'An account with this email already exists',
          fieldErrors: { email: 'Taken' },
        }),
      },
      { type: 'xstate.error.actor.register', error: new ApiError({ kind: 'timeout' }) },
    ],
  },
});

/** An actor whose API calls are answered by `answer`, recording toasts and effects. */
function dialog(answer: (kind: 'login' | 'register', input: LoginBody | RegisterForm) => Promise<LoginResponse>) {
  const toasts: ToastMessage[] = [];
  const effects: string[] = [];
  const inputs: unknown[] = [];
  const actor = createActor(
    authDialogMachine.provide({
      actors: {
        login: fromPromise<LoginResponse, LoginBody>(({ input }) => {
          inputs.push(input);
          return answer('login', input);
        }),
        register: fromPromise<LoginResponse, RegisterForm>(({ input }) => {
          inputs.push(input);
          return answer('register', input);
        }),
      },
      actions: {
        notify: (_, t) => toasts.push(t),
        startSession: (_, r) => effects.push(`startSession:${r.token}`),
        enterDashboard: () => effects.push('enterDashboard'),
        openForgotPassword: () => effects.push('openForgotPassword'),
      },
    }),
  ).start();
  const type = (field: 'name' | 'email' | 'password', value: string) => actor.send({ type: 'field.change', field, value });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { actor, toasts, effects, inputs, type, settle };
}

describe('authDialog behaviour', () => {
  it('shows the validation messages and sends nothing while invalid', () => {
    const d = dialog(async () => ok);
    d.actor.send({ type: 'dialog.open' });
    d.actor.send({ type: 'form.submit' });
    expect(d.actor.getSnapshot().context.errors).toEqual({ email: 'Email is required', password: 'Password is required' });
    d.type('email', 'not-an-email');
    d.type('password', '123');
    d.actor.send({ type: 'form.submit' });
    expect(d.actor.getSnapshot().context.errors).toEqual({
      email: 'Invalid email',
      password: 'Password must be at least 6 characters',
    });
    d.actor.send({ type: 'tab.select', tab: 'signup' });
    d.type('name', 'A');
    d.actor.send({ type: 'photo.pick', file: new File(['GIF89a'], 'x.gif', { type: 'image/gif' }) });
    expect(d.actor.getSnapshot().context.errors.file).toBe('Only JPG, PNG, or WEBP files are allowed');
    d.actor.send({ type: 'form.submit' });
    expect(d.actor.getSnapshot().context.errors).toMatchObject({
      name: 'Name is required',
      file: 'Only JPG, PNG, or WEBP files are allowed',
    });
    expect(d.inputs).toEqual([]);
  });

  it('a successful login locks the form, then starts the session, toasts, closes and enters the dashboard', async () => {
    let release: (r: LoginResponse) => void = () => {};
    const d = dialog(() => new Promise((resolve) => (release = resolve)));
    d.actor.send({ type: 'dialog.open' });
    d.type('email', ' ava@example.com ');
    d.type('password', 'secret1');
    d.actor.send({ type: 'form.submit' });
    expect(d.actor.getSnapshot().hasTag('submitting')).toBe(true);
    expect(d.actor.getSnapshot().can({ type: 'form.submit' })).toBe(false);
    expect(d.actor.getSnapshot().can({ type: 'dialog.close' })).toBe(false);
    expect(d.inputs).toEqual([{ email: 'ava@example.com', password: 'secret1' }]);
    release(ok);
    await d.settle();
    expect(d.actor.getSnapshot().matches('closed')).toBe(true);
    expect(d.toasts).toEqual([{ title: 'Login successful', description: 'Welcome back to Parley!' }]);
    expect(d.effects).toEqual(['startSession:a1', 'enterDashboard']);
    expect(d.actor.getSnapshot().context.values).toEqual({ name: '', email: '', password: '' });
  });

  it("login failures: 'Login failed' with the server msg or the default; exceptions say so", async () => {
    const answers = [
      () => Promise.reject(new ApiError({ kind: 'http', status: 401, serverMessage: 'Invalid email or password' })),
      () => Promise.reject(new ApiError({ kind: 'http', status: 401 })),
      () => Promise.resolve(notOk),
      () => Promise.reject(new ApiError({ kind: 'network' })),
      () => Promise.reject(new ApiError({ kind: 'http', status: 500, serverMessage: 'Internal error' })),
    ];
    const d = dialog(() => (answers.shift() as () => Promise<LoginResponse>)());
    d.actor.send({ type: 'dialog.open' });
    d.type('email', 'ava@example.com');
    d.type('password', 'wrong-password');
    for (let i = 0; i < 5; i += 1) {
      d.actor.send({ type: 'form.submit' });
      await d.settle();
      expect(d.actor.getSnapshot().matches({ open: 'login' })).toBe(true);
    }
    expect(d.toasts).toEqual([
      { title: 'Login failed', description: 'Invalid email or password', variant: 'destructive' },
      { title: 'Login failed', description: 'Invalid credentials. Please try again.', variant: 'destructive' },
      { title: 'Login failed', description: 'Account locked', variant: 'destructive' },
      { title: 'Error', description: 'An error occurred. Please try again later.', variant: 'destructive' },
      { title: 'Error', description: 'An error occurred. Please try again later.', variant: 'destructive' },
    ]);
    expect(d.effects).toEqual([]);
  });

  it("sign-up sends the photo, toasts 'Account created'; a refusal says 'Registration failed' and marks the field", async () => {
    const photo = new File(['png'], 'me.png', { type: 'image/png' });
    let fail = true;
    const d = dialog(async () => {
      if (fail) {
        fail = false;
        throw new ApiError({
          kind: 'http',
          status: 409,
          serverMessage: 'An account with this email already exists',
          fieldErrors: { email: 'Taken' },
        });
      }
      return ok;
    });
    d.actor.send({ type: 'dialog.open', tab: 'signup' });
    d.type('name', 'Ava Lee');
    d.type('email', 'ava@example.com');
    d.type('password', 'secret1');
    d.actor.send({ type: 'photo.pick', file: photo });
    d.actor.send({ type: 'form.submit' });
    await d.settle();
    expect(d.actor.getSnapshot().matches({ open: 'signup' })).toBe(true);
    expect(d.actor.getSnapshot().context.errors).toEqual({ email: 'Taken' });
    expect(d.toasts).toEqual([
      { title: 'Registration failed', description: 'An account with this email already exists', variant: 'destructive' },
    ]);
    d.actor.send({ type: 'form.submit' });
    await d.settle();
    expect(d.inputs[1]).toEqual({ name: 'Ava Lee', email: 'ava@example.com', password: 'secret1', file: photo });
    expect(d.toasts[1]).toEqual({ title: 'Account created', description: 'Welcome to Parley!' });
    expect(d.effects).toEqual(['startSession:a1', 'enterDashboard']);
  });

  it("'Forgot password' closes this dialog, forgets the password and opens the other one", () => {
    const d = dialog(async () => ok);
    d.actor.send({ type: 'dialog.open' });
    d.type('email', 'ava@example.com');
    d.type('password', 'secret1');
    d.actor.send({ type: 'password.forgot' });
    expect(d.actor.getSnapshot().matches('closed')).toBe(true);
    expect(d.effects).toEqual(['openForgotPassword']);
    expect(d.actor.getSnapshot().context.values).toEqual({ name: '', email: 'ava@example.com', password: '' });
  });
});
