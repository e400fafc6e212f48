/**
 * toaster: at most TOAST_LIMIT (1) toast, newest first; `showing` exactly while one is open; a dismissed
 * toast stays (closed) until removed.
 */
import { expect } from 'vitest';
import { ev } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

type T = { id: string; title: string; open: boolean; variant: string; duration: number; description?: string };
const toasts = (s: Snapshot) => s.context.toasts as T[];

export default defineInvariants({
  always: (s, w) => {
    expect(toasts(s).length).toBeLessThanOrEqual(1);
    expect(new Set(toasts(s).map((t) => t.id)).size).toBe(toasts(s).length);
    const before = w.previous ? toasts(w.previous as Snapshot) : [];
    if (w.event.type === 'toast.show') {
      const given = ev(w).toast;
      const [first] = toasts(s);
      expect(first).toEqual({
        id: given.id ?? `toast-${s.context.seq}`,
        title: given.title,
        description: given.description,
        variant: given.variant ?? 'default',
        duration: given.duration ?? 5000,
        open: true,
      });
      expect(s.context.seq).toBe((w.previous?.context.seq ?? 0) + 1);
    } else if (w.previous) expect(s.context.seq).toBe(w.previous.context.seq);
    if (w.event.type === 'toast.dismiss') {
      const id = ev(w).id;
      expect(toasts(s).map((t) => t.id)).toEqual(before.map((t) => t.id));
      for (const t of toasts(s)) {
        const was = before.find((b) => b.id === t.id) as T;
        expect(t.open).toBe(id === undefined || t.id === id ? false : was.open);
      }
    }
    if (w.event.type === 'toast.remove') {
      const id = ev(w).id;
      expect(toasts(s)).toEqual(id === undefined ? [] : before.filter((t) => t.id !== id));
    }
    if (w.event.type.startsWith('xstate.after.')) throw new Error('the toaster has no declared delays');
  },
  states: {
    idle: (s) => expect(toasts(s).some((t) => t.open)).toBe(false),
    showing: (s) => expect(toasts(s).some((t) => t.open)).toBe(true),
  },
});
