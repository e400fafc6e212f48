/**
 * Typed calls of the account resource. Requests and
 * answers are the contract's valibot schemas; failures reject with ApiError (./errors.ts).
 */

import { type ApiClient, api } from './client';
import {
  ACCOUNT_PATHS,
  type ChangePasswordBody,
  ChangePasswordResponseSchema,
  type ContactBody,
  ContactResponseSchema,
  type ForgotPasswordBody,
  ForgotPasswordResponseSchema,
  type LoginBody,
  LoginResponseSchema,
  LogoutResponseSchema,
  MeResponseSchema,
  RefreshResponseSchema,
  type RegisterForm,
  RegisterResponseSchema,
  type ResetPasswordBody,
  ResetPasswordResponseSchema,
} from './contract/account';

export interface CallOptions {
  /** show the automatic 'Error' toast (default true; forms with their own messages pass false) */
  notify?: boolean;
  signal?: AbortSignal;
}

export function accountApi(client: ApiClient) {
  return {
    login: (body: LoginBody, options?: CallOptions) =>
      client.post(ACCOUNT_PATHS.login, LoginResponseSchema, { ...body }, { auth: 'none', ...options }),

    /** Multipart: name, email, password and the optional photo as `file`. */
    register: (form: RegisterForm, options?: CallOptions) => {
      const body = new FormData();
      body.set('name', form.name);
      body.set('email', form.email);
      body.set('password', form.password);
      if (form.file) body.set('file', form.file, form.file.name);
      return client.post(ACCOUNT_PATHS.register, RegisterResponseSchema, body, { auth: 'none', ...options });
    },

    me: (options?: CallOptions) => client.get(ACCOUNT_PATHS.me, MeResponseSchema, options),

    logout: (options?: CallOptions) => client.get(ACCOUNT_PATHS.logout, LogoutResponseSchema, options),

    changePassword: (body: ChangePasswordBody, options?: CallOptions) =>
      client.put(ACCOUNT_PATHS.changePassword, ChangePasswordResponseSchema, { ...body }, options),

    forgotPassword: (body: ForgotPasswordBody, options?: CallOptions) =>
      client.post(ACCOUNT_PATHS.forgotPassword, ForgotPasswordResponseSchema, { ...body }, { auth: 'none', ...options }),

    resetPassword: (body: ResetPasswordBody, options?: CallOptions) =>
      client.post(ACCOUNT_PATHS.resetPassword, ResetPasswordResponseSchema, { ...body }, { auth: 'none', ...options }),

    contact: (body: ContactBody, options?: CallOptions) =>
      client.post(ACCOUNT_PATHS.contact, ContactResponseSchema, { ...body }, { auth: 'none', ...options }),

    /** POST /auth/refresh with the refresh token as Bearer; never toasts (the session handles failure). */
    refresh: (refreshToken: string, options?: Omit<CallOptions, 'notify'>) =>
      client.post(ACCOUNT_PATHS.refresh, RefreshResponseSchema, undefined, {
        auth: 'none',
        headers: { authorization: `Bearer ${refreshToken}` },
        notify: false,
        ...options,
      }),
  };
}

export type AccountApi = ReturnType<typeof accountApi>;

export const account = accountApi(api);
