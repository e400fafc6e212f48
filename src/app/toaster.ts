/**
 * The app layer's toaster: the one toaster actor, the imperative `toast()` the routes call, and the `notify`
 * action every machine declares, supplied with `.provide({ actions: { notify } })` where the machine is
 * created. main.tsx binds the HTTP client's error toast here (`api.bindNotify(toast)`). src/app sits between
 * the routes and the layers below: it may import machines, api and ui; machines and api never import it.
 */
import { createActor } from 'xstate';
import type { ToastMessage } from '../api/toast';
import { type ToastInput, toasterMachine } from '../machines/toaster.machine';

export const toaster = createActor(toasterMachine).start();

let seq = 0;

/** Shows a toast; returns its id and a `dismiss` for it. `duration` in ms (default TOAST_DEFAULT_DURATION). */
export function toast(options: Omit<ToastInput, 'id'>): { id: string; dismiss: () => void } {
  seq += 1;
  const id = `t${seq}`;
  toaster.send({ type: 'toast.show', toast: { ...options, id } });
  return { id, dismiss: () => dismissToast(id) };
}

/** Dismisses one toast, or every toast when no id is given. */
export function dismissToast(id?: string): void {
  toaster.send({ type: 'toast.dismiss', id });
}

/** The implementation of the `notify` action machines declare (src/machines/notify.ts). */
export const notify = (_: unknown, message: ToastMessage): void => {
  toast(message);
};

/** Code loaded on demand (a menu, a select, a dialog) could not be downloaded; main.tsx binds it into src/ui. */
export function reportLoadFailure(): void {
  toast({
    title: 'Could not open',
    description: 'Could not reach the server. Check your connection and try again.',
    variant: 'destructive',
  });
}
