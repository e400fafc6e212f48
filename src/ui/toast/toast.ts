import { createActor } from 'xstate';
import { type ToastInput, type ToastVariant, toasterMachine } from '../../machines/toaster.machine';

/**
 * The app's one toaster actor. Module-level so non-React code (the API client, machines' actions)
 * can raise notifications; <Toaster/> renders its snapshot.
 */
export const toaster = createActor(toasterMachine).start();

let seq = 0;

export interface ToastOptions {
  title?: string;
  description?: string;
  variant?: ToastVariant;
  /** ms; default TOAST_DEFAULT_DURATION (5000). */
  duration?: number;
}

/** Shows a toast; returns its id and a `dismiss` for it. */
export function toast(options: ToastOptions): { id: string; dismiss: () => void } {
  seq += 1;
  const id = `t${seq}`;
  const input: ToastInput = { ...options, id };
  toaster.send({ type: 'toast.show', toast: input });
  return { id, dismiss: () => dismissToast(id) };
}

/** Dismisses one toast, or every toast when no id is given. */
export function dismissToast(id?: string): void {
  toaster.send({ type: 'toast.dismiss', id });
}
