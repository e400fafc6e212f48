/** sidebar: open or an icon rail; every change the user makes is remembered (persist), nothing else is. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

const persisted = (open: boolean) => (_s: Snapshot, w: World) => {
  if (w.step === 0) {
    // the start follows what was remembered, and writes nothing
    expect(effectsNow(w)).toEqual([]);
    expect(open).toBe(_s.context.initiallyOpen);
    return;
  }
  if (cameFrom(w, open ? 'collapsed' : 'open')) {
    expect(effectsNow(w)).toEqual(['persist']);
    expect(paramsNow(w, 'persist')).toEqual({ open });
  } else expect(effectsNow(w)).toEqual([]);
};

export default defineInvariants({
  states: {
    deciding: () => {
      throw new Error('deciding decides at once');
    },
    open: persisted(true),
    collapsed: persisted(false),
  },
});
