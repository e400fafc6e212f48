/**
 * Every failure of an API call surfaces as one ApiError with a `kind`, so callers (machines) branch on
 * what happened instead of parsing messages:
 * - `http`: the server answered with an error status (`status`, its `msg` and per-field `errors`);
 * - `network`: no answer at all (offline, DNS, connection refused or reset);
 * - `timeout`: no answer within the client's time limit;
 * - `parse`: an answer that is not the JSON the contract describes;
 * - `aborted`: the caller cancelled the request (not a failure to report).
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'parse' | 'aborted';

export const API_ERROR_MESSAGES = {
  network: 'Could not reach the server. Check your connection and try again.',
  timeout: 'The server took too long to answer. Please try again.',
  parse: 'The server sent an answer that could not be read. Please try again.',
  aborted: 'The request was cancelled.',
  http: 'The request failed. Please try again.',
} as const satisfies Record<ApiErrorKind, string>;

export interface ApiErrorInit {
  kind: ApiErrorKind;
  status?: number;
  /** the `msg` of an `{ success: false, msg }` body, when the server sent one */
  serverMessage?: string;
  fieldErrors?: Record<string, string>;
  /** `Retry-After` in seconds (429) */
  retryAfter?: number;
  /** an app path that fixes the problem (e.g. '/dashboard/providers' for a provider key to connect) */
  link?: string;
  /** whether the client already showed this error in a toast */
  notified?: boolean;
  cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  readonly serverMessage: string | undefined;
  readonly fieldErrors: Record<string, string>;
  readonly retryAfter: number | undefined;
  readonly link: string | undefined;
  notified: boolean;

  constructor(init: ApiErrorInit) {
    super(
      init.serverMessage ??
        (init.kind === 'http' && init.status ? `${API_ERROR_MESSAGES.http} (${init.status})` : API_ERROR_MESSAGES[init.kind]),
      {
        cause: init.cause,
      },
    );
    this.kind = init.kind;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.fieldErrors = init.fieldErrors ?? {};
    this.retryAfter = init.retryAfter;
    this.link = init.link;
    this.notified = init.notified ?? false;
  }

  /** A definite refusal by the server (4xx): wrong input, wrong credentials, conflict, rate limit. */
  get isRejection(): boolean {
    return this.kind === 'http' && this.status !== undefined && this.status >= 400 && this.status < 500;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** The server's `msg` of a failure, if the error carries one. */
export const serverMessageOf = (error: unknown): string | undefined => (isApiError(error) ? error.serverMessage : undefined);
