/**
 * The `notify` effect: every machine that shows a toast declares this action in its `setup` and calls it
 * with the app's one toast type (src/api/toast.ts). It does nothing here; the machine's creator supplies the
 * real one with `.provide({ actions: { notify } })` (src/app/toaster.ts in the app, a recorder in tests), so
 * machines never import the toaster or anything of src/ui.
 */
import type { ToastMessage } from '../api/toast';

export type { ToastMessage };

export const notify = (_: unknown, _toast: ToastMessage): void => {};
