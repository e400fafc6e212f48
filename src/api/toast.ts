/**
 * The one toast type of the app: what the HTTP client's 'Error' toast and every machine's
 * `notify` action carry. Nothing below the app layer shows a toast itself: the client is bound to the app's
 * toaster (`api.bindNotify`, main.tsx) and a machine gets its `notify` through `.provide()` where it is
 * created (src/app/toaster.ts `notify`).
 */
export interface ToastMessage {
  title: string;
  description?: string;
  /** a second line under the description (what else the user should know, e.g. a key saved unchecked) */
  note?: string;
  /** 'destructive' for failures (announced at once, role=alert); default 'default' */
  variant?: 'default' | 'destructive';
}

/** Shows a toast (the app's toaster; tests pass a recorder). */
export type Notify = (toast: ToastMessage) => void;
