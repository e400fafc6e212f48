import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { account } from '../api/account';
import {
  type LoginBody,
  LoginBodySchema,
  type LoginResponse,
  PhotoFileSchema,
  type RegisterForm,
  RegisterFormSchema,
} from '../api/contract/account';
import { type ApiError, isApiError } from '../api/errors';
import { notify, type ToastMessage } from './notify';

export type AuthTab = 'login' | 'signup';
export type AuthField = 'name' | 'email' | 'password';
export type AuthErrors = Partial<Record<AuthField | 'file', string>>;

/** Spec section 8: the auth dialog's toasts, verbatim. */
export const AUTH_TOASTS = {
  loginSucceeded: { title: 'Login successful', description: 'Welcome back to Parley!' },
  signupSucceeded: { title: 'Account created', description: 'Welcome to Parley!' },
  loginFailed: (msg?: string): ToastMessage => ({
    title: 'Login failed',
    description: msg || 'Invalid credentials. Please try again.',
    variant: 'destructive',
  }),
  signupFailed: (msg?: string): ToastMessage => ({
    title: 'Registration failed',
    description: msg || 'Could not create account. Please try again.',
    variant: 'destructive',
  }),
  /** no answer, a server fault or an unreadable answer */
  crashed: { title: 'Error', description: 'An error occurred. Please try again later.', variant: 'destructive' },
} as const satisfies Record<string, ToastMessage | ((msg?: string) => ToastMessage)>;

export type AuthDialogEvent =
  | { type: 'dialog.open'; tab?: AuthTab }
  | { type: 'dialog.close' }
  | { type: 'tab.select'; tab: AuthTab }
  | { type: 'field.change'; field: AuthField; value: string }
  | { type: 'photo.pick'; file: File | null }
  | { type: 'form.submit' }
  | { type: 'password.forgot' };

export interface AuthDialogContext {
  values: Record<AuthField, string>;
  photo: File | null;
  errors: AuthErrors;
}

/** First message per field of a failed validation. */
function errorsOf(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]] | undefined): AuthErrors {
  if (!issues) return {};
  const nested = v.flatten(issues).nested ?? {};
  const errors: AuthErrors = {};
  for (const [key, messages] of Object.entries(nested)) {
    if (messages?.[0]) errors[key as keyof AuthErrors] = messages[0];
  }
  return errors;
}

const loginForm = (c: AuthDialogContext) => ({ email: c.values.email, password: c.values.password });
const signupForm = (c: AuthDialogContext) => ({ ...c.values, file: c.photo ?? undefined });

/** A definite "no" from the server (4xx with its msg) as opposed to an exception (no answer, 5xx, garbage). */
const isRefusal = (error: unknown): error is ApiError => isApiError(error) && error.isRejection;

const initialContext: AuthDialogContext = { values: { name: '', email: '', password: '' }, photo: null, errors: {} };

/**
 * The landing page's Login / Sign Up dialog. Values live here so validation (the contract's schemas,
 * the specification's messages) and the reset on close are the machine's; the view only renders.
 * Effects: `login` / `register` call the API (own toasts, so the client's automatic one is off);
 * `startSession`, `enterDashboard` and `openForgotPassword` are provided by the view (session actor,
 * router, the forgot-password dialog); `notify` shows a toast.
 */
export const authDialogMachine = setup({
  types: {
    context: {} as AuthDialogContext,
    events: {} as AuthDialogEvent,
  },
  actors: {
    login: fromPromise<LoginResponse, LoginBody>(({ input, signal }) => account.login(input, { notify: false, signal })),
    register: fromPromise<LoginResponse, RegisterForm>(({ input, signal }) => account.register(input, { notify: false, signal })),
  },
  actions: {
    notify,
    startSession: (_, _params: LoginResponse) => {},
    enterDashboard: () => {},
    openForgotPassword: () => {},
    clearErrors: assign({ errors: {} }),
    forgetSecrets: assign({ values: ({ context }) => ({ ...context.values, password: '' }), photo: null, errors: {} }),
    forgetForm: assign(initialContext),
    setField: assign(({ context }, params: { field: keyof AuthDialogContext['values']; value: string }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: undefined },
    })),
    showLoginErrors: assign({ errors: ({ context }) => errorsOf(v.safeParse(LoginBodySchema, loginForm(context)).issues) }),
    showSignupErrors: assign({
      errors: ({ context }) => errorsOf(v.safeParse(RegisterFormSchema, signupForm(context)).issues),
    }),
    takePhoto: assign(({ context }, params: { file: File | null }) => {
      const checked = params.file ? v.safeParse(PhotoFileSchema, params.file) : undefined;
      return { photo: params.file, errors: { ...context.errors, file: checked?.issues?.[0]?.message } };
    }),
    showServerErrors: assign({ errors: (_, params: { error: unknown }) => (params.error as ApiError).fieldErrors }),
  },
  guards: {
    opensSignup: ({ event }) => event.type === 'dialog.open' && event.tab === 'signup',
    selectsSignup: ({ event }) => event.type === 'tab.select' && event.tab === 'signup',
    selectsLogin: ({ event }) => event.type === 'tab.select' && event.tab === 'login',
    loginIsValid: ({ context }) => v.is(LoginBodySchema, loginForm(context)),
    signupIsValid: ({ context }) => v.is(RegisterFormSchema, signupForm(context)),
    succeeded: (_, params: { success: boolean }) => params.success,
    wasRefused: (_, params: { error: unknown }) => isRefusal(params.error),
  },
}).createMachine({
  id: 'authDialog',
  description: "The landing page's Login / Sign Up dialog.",
  context: initialContext,
  initial: 'closed',
  states: {
    closed: {
      on: {
        'dialog.open': [
          { guard: 'opensSignup', target: 'open.signup', description: "'Sign Up' opens the Sign Up tab." },
          { description: "'Login / Sign up', 'Get Started' or /?login=1 open the Login tab.", target: 'open.login' },
        ],
      },
    },
    open: {
      tags: ['open'],
      initial: 'login',
      on: {
        'dialog.close': {
          target: 'closed',
          description: 'Escape, the close button or an outside click: the password and photo are forgotten.',
          actions: 'forgetSecrets',
        },
        'password.forgot': {
          description: "'Forgot password' swaps this dialog for the forgot-password dialog.",
          target: 'closed',
          actions: ['forgetSecrets', 'openForgotPassword'],
        },
        'field.change': {
          description: "A field's new value clears its error.",
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
      },
      states: {
        login: {
          tags: ['login'],
          on: {
            'tab.select': {
              guard: 'selectsSignup',
              target: 'signup',
              description: 'The Sign Up tab; the errors shown go.',
              actions: 'clearErrors',
            },
            'form.submit': [
              {
                guard: 'loginIsValid',
                target: '#authDialog.loggingIn',
                description: "'Login' with a valid email and password: log in.",
                actions: 'clearErrors',
              },
              {
                description: 'Shows the validation message under each invalid field.',
                actions: 'showLoginErrors',
              },
            ],
          },
        },
        signup: {
          tags: ['signup'],
          on: {
            'tab.select': {
              guard: 'selectsLogin',
              target: 'login',
              description: 'The Login tab; the errors shown go.',
              actions: 'clearErrors',
            },
            'photo.pick': {
              description: 'The picker accepts any image; only JPG, PNG or WEBP pass.',
              actions: { type: 'takePhoto', params: ({ event }) => ({ file: event.file }) },
            },
            'form.submit': [
              {
                guard: 'signupIsValid',
                target: '#authDialog.signingUp',
                description: "'Sign Up' with every field valid: register.",
                actions: 'clearErrors',
              },
              {
                description: 'Shows the validation message under each invalid field.',
                actions: 'showSignupErrors',
              },
            ],
          },
        },
      },
    },
    loggingIn: {
      description: 'POST /account/login; the submit button shows progress and the form is locked.',
      tags: ['open', 'login', 'submitting'],
      invoke: {
        id: 'login',
        src: 'login',
        input: ({ context }) => v.parse(LoginBodySchema, loginForm(context)),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => event.output },
            target: 'closed',
            description: 'Logged in: the session starts, a toast, and the dashboard opens.',
            actions: [
              { type: 'startSession', params: ({ event }) => event.output },
              { type: 'notify', params: AUTH_TOASTS.loginSucceeded },
              'forgetForm',
              'enterDashboard',
            ],
          },
          {
            target: 'open.login',
            description: 'The server answered without success: its message in a toast; the form stays.',
            actions: { type: 'notify', params: ({ event }) => AUTH_TOASTS.loginFailed(event.output.msg) },
          },
        ],
        onError: [
          {
            guard: { type: 'wasRefused', params: ({ event }) => ({ error: event.error }) },
            target: 'open.login',
            description: 'Refused (wrong password, unknown email): the message in a toast, field errors under the fields.',
            actions: [
              { type: 'showServerErrors', params: ({ event }) => ({ error: event.error }) },
              { type: 'notify', params: ({ event }) => AUTH_TOASTS.loginFailed((event.error as ApiError).serverMessage) },
            ],
          },
          {
            target: 'open.login',
            description: 'No answer (network, server error): a toast; the form stays.',
            actions: { type: 'notify', params: AUTH_TOASTS.crashed },
          },
        ],
      },
    },
    signingUp: {
      description: 'POST /account/register (multipart, with the optional photo).',
      tags: ['open', 'signup', 'submitting'],
      invoke: {
        id: 'register',
        src: 'register',
        input: ({ context }) => v.parse(RegisterFormSchema, signupForm(context)),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => event.output },
            target: 'closed',
            description: 'Registered: the session starts, a toast, and the dashboard opens.',
            actions: [
              { type: 'startSession', params: ({ event }) => event.output },
              { type: 'notify', params: AUTH_TOASTS.signupSucceeded },
              'forgetForm',
              'enterDashboard',
            ],
          },
          {
            target: 'open.signup',
            description: 'The server answered without success: its message in a toast; the form stays.',
            actions: { type: 'notify', params: ({ event }) => AUTH_TOASTS.signupFailed(event.output.msg) },
          },
        ],
        onError: [
          {
            guard: { type: 'wasRefused', params: ({ event }) => ({ error: event.error }) },
            target: 'open.signup',
            description: 'Refused (email taken, invalid field): the message in a toast, field errors under the fields.',
            actions: [
              { type: 'showServerErrors', params: ({ event }) => ({ error: event.error }) },
              { type: 'notify', params: ({ event }) => AUTH_TOASTS.signupFailed((event.error as ApiError).serverMessage) },
            ],
          },
          {
            target: 'open.signup',
            description: 'No answer (network, server error): a toast; the form stays.',
            actions: { type: 'notify', params: AUTH_TOASTS.crashed },
          },
        ],
      },
    },
  },
});
