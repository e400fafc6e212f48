/**
 * Contract of every account / auth / contact call. Imported by the client
 * (forms, typed calls) AND the server (request validation), so rules and messages live only here.
 */
import * as v from 'valibot';

// ---------------------------------------------------------------------------------------------
// Constants and messages

export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;
export const NAME_MIN = 2;
export const NAME_MAX = 100;
export const EMAIL_MAX = 254;
export const CONTACT_MESSAGE_MAX = 5000;
/** Profile photo: at most 5 MB. */
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoType = (typeof PHOTO_TYPES)[number];

export const ACCOUNT_MESSAGES = {
  emailRequired: 'Email is required',
  emailInvalid: 'Invalid email',
  emailInvalidFormat: 'Invalid email format',
  emailTooLong: `Email must be at most ${EMAIL_MAX} characters`,
  passwordRequired: 'Password is required',
  passwordTooShort: `Password must be at least ${PASSWORD_MIN} characters`,
  passwordTooLong: `Password must be at most ${PASSWORD_MAX} characters`,
  passwordTooCommon: 'This password is too common',
  passwordTooWeak: 'This password is too easy to guess. Use a longer one, such as a few unrelated words.',
  currentPasswordRequired: 'Current password is required',
  currentPasswordWrong: 'Current password is incorrect',
  nameRequired: 'Name is required',
  nameTooLong: `Name must be at most ${NAME_MAX} characters`,
  photoType: 'Only JPG, PNG, or WEBP files are allowed',
  photoTooLarge: 'Photo must be at most 5 MB',
  photoTooManyPixels: 'Photo must be at most 16 megapixels (for example 4096 × 4096)',
  photoUnreadable: 'This photo could not be read. Please use another one.',
  messageRequired: 'Message is required',
  messageTooLong: `Message must be at most ${CONTACT_MESSAGE_MAX} characters`,
  emailTaken: 'An account with this email already exists',
  invalidCredentials: 'Invalid email or password',
  loginSuccess: 'Login successful',
  registered: 'Account created',
  passwordChanged: 'Your password has been changed.',
  forgotPasswordSent: 'If an account exists for that email, a reset link has been sent.',
  resetInvalid: 'This reset link is invalid or has expired.',
  passwordReset: 'Your password has been reset. You can now log in.',
  sessionExpired: 'Session expired. Please log in again.',
  contactSent: 'Thanks! We will get back to you soon.',
} as const;

// ---------------------------------------------------------------------------------------------
// Field schemas

/**
 * A text field whose absence reads as empty, so a missing key answers the field's own "required"
 * message (valibot would otherwise report a generic missing-key issue).
 */
const text = (message: string) => v.optional(v.string(message), '');

const Email = (invalid: string = ACCOUNT_MESSAGES.emailInvalid) =>
  v.pipe(
    text(ACCOUNT_MESSAGES.emailRequired),
    v.trim(),
    v.nonEmpty(ACCOUNT_MESSAGES.emailRequired),
    v.maxLength(EMAIL_MAX, ACCOUNT_MESSAGES.emailTooLong),
    v.email(invalid),
  );

export const EmailSchema = Email();

export const PasswordSchema = v.pipe(
  text(ACCOUNT_MESSAGES.passwordRequired),
  v.nonEmpty(ACCOUNT_MESSAGES.passwordRequired),
  v.minLength(PASSWORD_MIN, ACCOUNT_MESSAGES.passwordTooShort),
  v.maxLength(PASSWORD_MAX, ACCOUNT_MESSAGES.passwordTooLong),
);

export const NameSchema = v.pipe(
  text(ACCOUNT_MESSAGES.nameRequired),
  v.trim(),
  v.minLength(NAME_MIN, ACCOUNT_MESSAGES.nameRequired),
  v.maxLength(NAME_MAX, ACCOUNT_MESSAGES.nameTooLong),
);

/**
 * Client-side photo check on the declared type and size. The server never trusts it: it sniffs the
 * bytes (magic numbers) and answers 400 with the same message, then decodes the image and stores only
 * its pixels, encoded again.
 */
export const PhotoFileSchema = v.pipe(
  v.file(ACCOUNT_MESSAGES.photoType),
  v.mimeType([...PHOTO_TYPES], ACCOUNT_MESSAGES.photoType),
  v.maxSize(PHOTO_MAX_BYTES, ACCOUNT_MESSAGES.photoTooLarge),
);

// ---------------------------------------------------------------------------------------------
// Requests

/** POST /account/register text fields (multipart form; the optional photo is the `file` part). */
export const RegisterFieldsSchema = v.object({
  name: NameSchema,
  email: EmailSchema,
  password: PasswordSchema,
});
export type RegisterFields = v.InferOutput<typeof RegisterFieldsSchema>;

/** The sign-up form as the client holds it: the fields plus an optional photo. */
export const RegisterFormSchema = v.object({
  ...RegisterFieldsSchema.entries,
  file: v.optional(PhotoFileSchema),
});
export type RegisterForm = v.InferOutput<typeof RegisterFormSchema>;

/** POST /account/login */
export const LoginBodySchema = v.object({
  email: EmailSchema,
  password: PasswordSchema,
});
export type LoginBody = v.InferOutput<typeof LoginBodySchema>;

/** PUT /account/login: change the password of the signed-in account. */
export const ChangePasswordBodySchema = v.object({
  currentPassword: v.pipe(
    text(ACCOUNT_MESSAGES.currentPasswordRequired),
    v.nonEmpty(ACCOUNT_MESSAGES.currentPasswordRequired),
    v.maxLength(PASSWORD_MAX, ACCOUNT_MESSAGES.passwordTooLong),
  ),
  newPassword: PasswordSchema,
});
export type ChangePasswordBody = v.InferOutput<typeof ChangePasswordBodySchema>;

/** POST /account/forgotpassword */
export const ForgotPasswordBodySchema = v.object({
  email: Email(ACCOUNT_MESSAGES.emailInvalidFormat),
});
export type ForgotPasswordBody = v.InferOutput<typeof ForgotPasswordBodySchema>;

/** POST /account/resetpassword (token comes from the link's fragment `#token=...`). */
export const ResetPasswordBodySchema = v.object({
  token: v.pipe(
    text(ACCOUNT_MESSAGES.resetInvalid),
    v.nonEmpty(ACCOUNT_MESSAGES.resetInvalid),
    v.maxLength(200, ACCOUNT_MESSAGES.resetInvalid),
  ),
  password: PasswordSchema,
});
export type ResetPasswordBody = v.InferOutput<typeof ResetPasswordBodySchema>;

/** POST /contact */
export const ContactBodySchema = v.object({
  name: v.pipe(
    text(ACCOUNT_MESSAGES.nameRequired),
    v.trim(),
    v.nonEmpty(ACCOUNT_MESSAGES.nameRequired),
    v.maxLength(NAME_MAX, ACCOUNT_MESSAGES.nameTooLong),
  ),
  email: EmailSchema,
  message: v.pipe(
    text(ACCOUNT_MESSAGES.messageRequired),
    v.trim(),
    v.nonEmpty(ACCOUNT_MESSAGES.messageRequired),
    v.maxLength(CONTACT_MESSAGE_MAX, ACCOUNT_MESSAGES.messageTooLong),
  ),
});
export type ContactBody = v.InferOutput<typeof ContactBodySchema>;

// ---------------------------------------------------------------------------------------------
// Responses

/** Every failure: `{ success: false, msg }`, plus per-field `errors` on 400 validation failures. */
export const ErrorResponseSchema = v.object({
  success: v.literal(false),
  msg: v.string(),
  errors: v.optional(v.record(v.string(), v.string())),
});
export type ErrorResponse = v.InferOutput<typeof ErrorResponseSchema>;

/** A plain `{ success, msg }` answer (forgot/reset password, change password, contact). */
export const MessageResponseSchema = v.object({
  success: v.boolean(),
  msg: v.string(),
});
export type MessageResponse = v.InferOutput<typeof MessageResponseSchema>;

/** POST /account/register and POST /account/login */
export const LoginResponseSchema = v.object({
  success: v.boolean(),
  msg: v.string(),
  /** access token (JWT, 15 minutes) */
  token: v.string(),
  /** opaque refresh token, single use */
  refresh_token: v.string(),
  account: v.object({
    _id: v.string(),
    companyId: v.string(),
  }),
});
export type LoginResponse = v.InferOutput<typeof LoginResponseSchema>;
export const RegisterResponseSchema = LoginResponseSchema;
export type RegisterResponse = LoginResponse;

/** GET /account/me */
export const MeResponseSchema = v.object({
  success: v.boolean(),
  account: v.object({
    _id: v.string(),
    name: v.string(),
    email: v.string(),
    /** `/api/v1/files/<name>` or null when no photo was uploaded */
    photoUrl: v.nullable(v.string()),
    companyId: v.string(),
    company: v.object({
      _id: v.string(),
      name: v.string(),
    }),
  }),
});
export type MeResponse = v.InferOutput<typeof MeResponseSchema>;

/** GET /account/logout */
export const LogoutResponseSchema = v.object({ success: v.boolean() });
export type LogoutResponse = v.InferOutput<typeof LogoutResponseSchema>;

/** PUT /account/login, POST /account/forgotpassword, POST /account/resetpassword, POST /contact */
export const ChangePasswordResponseSchema = MessageResponseSchema;
export type ChangePasswordResponse = MessageResponse;
export const ForgotPasswordResponseSchema = MessageResponseSchema;
export type ForgotPasswordResponse = MessageResponse;
export const ResetPasswordResponseSchema = MessageResponseSchema;
export type ResetPasswordResponse = MessageResponse;
export const ContactResponseSchema = MessageResponseSchema;
export type ContactResponse = MessageResponse;

/** POST /auth/refresh (Authorization: Bearer <refresh token>) */
export const RefreshResponseSchema = v.object({
  access_token: v.string(),
  refresh_token: v.string(),
});
export type RefreshResponse = v.InferOutput<typeof RefreshResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Paths (relative to /api/v1)

export const ACCOUNT_PATHS = {
  register: '/account/register',
  login: '/account/login',
  changePassword: '/account/login',
  me: '/account/me',
  logout: '/account/logout',
  forgotPassword: '/account/forgotpassword',
  resetPassword: '/account/resetpassword',
  refresh: '/auth/refresh',
  contact: '/contact',
  file: (name: string) => `/files/${encodeURIComponent(name)}`,
} as const;
