/**
 * providerConnection: connect, update or disconnect one provider. Every
 * non-optional field must be filled before a call is made; one save or disconnect at a time; a retry of
 * the same values reuses the Idempotency-Key; the typed secrets are forgotten when the dialog closes.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const missing = (c: Snapshot['context']): string[] =>
  c.fields
    .filter((f: { name: string; optional?: boolean }) => !f.optional && (c.values[f.name] ?? '').trim() === '')
    .map((f: { name: string }) => f.name);
const failed = (description: string) => ({ title: 'Error', description, variant: 'destructive' });
const noForm = (s: Snapshot) => {
  expect(s.context.fields).toEqual([]);
  expect(s.context.values).toEqual({});
  expect(s.context.attempt).toBeUndefined();
  expect(s.context.fieldErrors).toEqual({});
};

const withOptional = {
  success: true,
  name: 'twilio',
  label: 'Twilio',
  _id: null,
  connected: false,
  keys: [
    { name: 'Account SID', value: 'AC1', secret: false },
    { name: 'Auth Token', value: '', secret: true },
    { name: 'Region', value: '', secret: false, optional: true },
    { name: 'Webhook', value: 'https://x.example', secret: false, url: true },
  ],
};

export default defineInvariants({
  refused: ['dialog.open', 'dialog.close', 'field.change', 'status.sync', 'disconnect.request', 'disconnect.cancel'],
  explore: {
    events: {
      'xstate.done.actor.loadFields': [{ type: 'xstate.done.actor.loadFields', output: withOptional }],
      'xstate.error.actor.saveConnection': [
        { type: 'xstate.error.actor.saveConnection', error: new ApiError({ kind: 'network' }) },
        {
          type: 'xstate.error.actor.saveConnection',
          error: new ApiError({
            kind: 'http',
            status: 400,
            serverMessage: 'Twilio refused the key: Authenticate',
            fieldErrors: { 'Auth Token': 'Authenticate', Elsewhere: 'x' },
          }),
        },
      ],
      'xstate.error.actor.disconnect': [
        { type: 'xstate.error.actor.disconnect', error: new ApiError({ kind: 'http', status: 409, serverMessage: 'Busy' }) },
        { type: 'xstate.error.actor.disconnect', error: new ApiError({ kind: 'timeout' }) },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'loadFields', s.matches('loadingFields') ? 1 : 0);
    expectPending(w, 'saveConnection', s.matches('saving') ? 1 : 0);
    expectPending(w, 'disconnect', s.matches('disconnecting') ? 1 : 0);
    expect(s.hasTag('open')).toBe(['loadingFields', 'fieldsFailed', 'editing', 'saving'].some((x) => s.matches(x)));
    expect(s.hasTag('confirming')).toBe(s.matches('confirmingDisconnect') || s.matches('disconnecting'));
    expect(s.hasTag('busy')).toBe(s.matches('saving') || s.matches('disconnecting'));
    // the provider a card is for never changes
    expect(s.context.name).toBe('twilio');
    expect(s.context.label).toBe('Twilio');
    // an open dialog that is not saving closes; a closed card opens its dialog
    if (w.event.type === 'dialog.close' && w.previous?.hasTag('open') && !w.previous.hasTag('busy'))
      expect(s.matches('idle')).toBe(true);
    if (w.event.type === 'dialog.close' && w.previous?.hasTag('busy')) expect(s.value).toEqual(w.previous.value);
    if (w.event.type === 'dialog.open' && cameFrom(w, 'idle')) expect(s.matches('loadingFields')).toBe(true);
    if (w.event.type === 'disconnect.request' && cameFrom(w, 'idle.connected'))
      expect(s.matches('confirmingDisconnect')).toBe(true);
    if (w.event.type === 'disconnect.cancel' && cameFrom(w, 'confirmingDisconnect'))
      expect(s.matches({ idle: 'connected' })).toBe(true);
    const quiet = [
      'dialog.open',
      'dialog.close',
      'field.change',
      'status.sync',
      'fields.retry',
      'disconnect.request',
      'disconnect.cancel',
      'disconnect.confirm',
    ];
    if (quiet.includes(w.event.type)) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    idle: (s, w) => {
      // no typed value outlives the dialog
      noForm(s);
      if (w.event.type === 'status.sync') expect(s.context.connected).toBe(ev(w).connected);
      if (cameFrom(w, 'saving')) {
        expect(s.context.connected).toBe(true);
        // the spec's success toast (one: a second would hide it), with the warning of a card saved without the
        // provider's word on the key under its words
        const warning = ev(w).output.warning as string | undefined;
        expect(effectsNow(w)).toEqual(['notify']);
        const prev = (w.previous as Snapshot).context;
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Success',
          description: prev.connectionId ? 'Twilio has been updated.' : 'Twilio has been successfully connected.',
          ...(warning ? { note: warning } : {}),
        });
        expect(s.context.connectionId).toBe(prev.connectionId ?? ev(w).output.provider._id);
      }
      if (cameFrom(w, 'disconnecting')) {
        expect(s.context.connected).toBe(false);
        expect(s.context.connectionId).toBeNull();
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Success', description: 'Twilio has been disconnected.' });
      }
    },
    'idle.resolving': () => {
      throw new Error('resolving decides at once: the card never rests in it');
    },
    'idle.connected': (s) => expect(s.context.connected).toBe(true),
    'idle.notConnected': (s) => expect(s.context.connected).toBe(false),
    loadingFields: (s, w) => {
      expect(onlyRequest(w, 'loadFields')).toEqual({ name: 'twilio' });
      expect(s.hasTag('loading')).toBe(true);
    },
    fieldsFailed: (s, w) => {
      expect(s.hasTag('fieldsFailed')).toBe(true);
      noForm(s);
      if (cameFrom(w, 'loadingFields')) {
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed('Failed to load provider fields. Please try again.'));
      }
    },
    editing: (s, w) => {
      expect(s.hasTag('editing')).toBe(true);
      if (cameFrom(w, 'loadingFields')) {
        // the stored values come back as they are (a secret as its mask)
        const out = ev(w).output;
        expect(s.context.connected).toBe(out.connected);
        expect(s.context.connectionId).toBe(out._id);
        expect(s.context.values).toEqual(
          Object.fromEntries(out.keys.map((k: { name: string; value: string }) => [k.name, k.value])),
        );
        expect(s.context.fields).toEqual(
          out.keys.map((k: { name: string; secret: boolean; optional?: boolean; url?: boolean }) => ({
            name: k.name,
            secret: k.secret,
            ...(k.optional ? { optional: true } : {}),
            ...(k.url ? { url: true } : {}),
          })),
        );
      }
      if (w.event.type === 'field.change') {
        expect(s.context.values).toEqual({ ...w.previous?.context.values, [ev(w).name]: ev(w).value });
        // typing in a field clears its error, and only its
        const { [ev(w).name]: _, ...others } = w.previous?.context.fieldErrors ?? {};
        expect(s.context.fieldErrors).toEqual(others);
      }
      if (w.event.type === 'form.submit') {
        // a missing field: the toast names them, no call
        const names = missing(s.context);
        expect(names.length).toBeGreaterThan(0);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Missing information',
          description: `Please fill in the following fields: ${names.join(', ')}`,
          variant: 'destructive',
        });
        // and each says so under it
        expect(s.context.fieldErrors).toEqual(Object.fromEntries(names.map((n) => [n, 'A value is required'])));
      }
      if (cameFrom(w, 'saving')) {
        // the dialog and its input stay; the toast says why
        expect(s.context.values).toEqual(w.previous?.context.values);
        const msg = ev(w).error?.serverMessage;
        // a refused key: the provider's reason under its field (only the dialog's own fields)
        const names = new Set(s.context.fields.map((f: { name: string }) => f.name));
        const given: Record<string, string> = ev(w).error?.fieldErrors ?? {};
        expect(s.context.fieldErrors).toEqual(Object.fromEntries(Object.entries(given).filter(([n]) => names.has(n))));
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(
          failed(
            msg ||
              (s.context.connectionId
                ? 'Failed to update the provider. Please try again.'
                : 'Failed to connect the provider. Please try again.'),
          ),
        );
      }
    },
    validating: () => {
      throw new Error('validating decides at once');
    },
    saving: (s, w) => {
      // one save, of every field trimmed, only with nothing missing; no error shown while it runs
      expect(missing(s.context)).toEqual([]);
      expect(s.context.fieldErrors).toEqual({});
      const request = onlyRequest(w, 'saveConnection');
      expect(request).toEqual({
        name: 'twilio',
        connectionId: s.context.connectionId,
        keys: s.context.fields.map((f: { name: string }) => ({ name: f.name, value: (s.context.values[f.name] ?? '').trim() })),
        idempotencyKey: s.context.attempt.key,
      });
      if (cameFrom(w, 'editing')) {
        expect(effectsNow(w)).toEqual([]);
        const saves = w.started.filter((r) => r.src === 'saveConnection');
        const before = saves.at(-2)?.input as typeof request | undefined;
        if (before && saves.at(-2)) {
          const closedSince = w.events
            .slice((saves.at(-2) as { step: number }).step)
            .some((e) => e.type === 'dialog.close' || e.type.startsWith('xstate.done.actor.saveConnection'));
          const same =
            JSON.stringify([before.name, before.connectionId, before.keys]) ===
            JSON.stringify([request.name, request.connectionId, request.keys]);
          if (same && !closedSince) expect(request.idempotencyKey).toBe(before.idempotencyKey);
          else expect(request.idempotencyKey).not.toBe(before.idempotencyKey);
        }
      }
    },
    confirmingDisconnect: (s, w) => {
      expect(s.context.connected).toBe(true);
      if (cameFrom(w, 'disconnecting')) {
        const msg = ev(w).error?.serverMessage;
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed(msg || 'Failed to disconnect the provider. Please try again.'));
      }
    },
    disconnecting: (_s, w) => {
      expect(onlyRequest(w, 'disconnect')).toEqual({ name: 'twilio' });
    },
  },
});
