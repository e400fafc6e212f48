/**
 * batchCall: the 'Create a batch call' form (the specification). Send is never made
 * without valid recipients (read to the end), a name and a From number, nor with a past or missing time
 * when scheduling; one request at a time; a failure keeps everything typed; `sendMode` is the timing the
 * user chose; a different body gets a different Idempotency-Key.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { sendModeOf } from '../../../src/machines/batchCall.machine.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

const request = (w: World, src: 'saveDraft' | 'sendBatch') => {
  const r = w.pending().filter((p) => p.id === src);
  expect(r.length, `${src} requests in flight`).toBe(1);
  // biome-ignore lint/suspicious/noExplicitAny: the persist input
  return r[0]?.input as any;
};

/** What the form sends: the contract's body of what was typed. */
function expectBody(s: Snapshot, body: Record<string, unknown>) {
  const { name, fromNumber, scheduledAt } = s.context.values;
  expect(body).toMatchObject({ name, fromNumber, sendMode: sendModeOf(s), status: 'draft' });
  if (sendModeOf(s) === 'scheduled' && scheduledAt) expect(body.scheduledAt).toBe(new Date(scheduledAt).toISOString());
  else expect(body.scheduledAt).toBeUndefined();
}

const finished = {
  saved: ['Batch call saved', 'It waits in the list as a draft.'],
  scheduled: ['Batch call scheduled', 'Batch call scheduled.'],
  sent: ['Batch call sent', 'Batch call is sending.'],
} as const;

function finishedState(name: keyof typeof finished) {
  return (s: Snapshot, w: World) => {
    expect(s.hasTag('done')).toBe(true);
    if (cameFrom(w, 'form.saving') || cameFrom(w, 'form.sending')) {
      expect(s.context.saved).toEqual(ev(w).output);
      expect(effectsNow(w)).toEqual(['notify']);
      const [title, description] = finished[name];
      expect(paramsNow(w, 'notify')).toEqual({ title, description });
      if (name === 'scheduled') expect(ev(w).output.status).toBe('scheduled');
      if (name === 'sent') expect(ev(w).output.status).not.toBe('scheduled');
    }
  };
}

export default defineInvariants({
  refused: [
    'options.retry',
    'timing.now',
    'timing.schedule',
    'recipients.clear',
    'recipients.progress',
    'recipients.parsed',
    'recipients.failed',
    'field.change',
  ],
  explore: {
    events: {
      'xstate.done.actor.loadOptions': [
        {
          type: 'xstate.done.actor.loadOptions',
          output: {
            numbers: [
              { _id: 'n1', phone: '+14155550101', provider: 'twilio' },
              { _id: 'n2', phone: '+14155550102', provider: 'twilio' },
            ],
            numbersTotal: 2,
            concurrencyLimit: 3,
          },
        },
      ],
      'xstate.error.actor.saveDraft': [
        {
          type: 'xstate.error.actor.saveDraft',
          error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Bad name', fieldErrors: { name: 'Too long' } }),
        },
      ],
    },
  },
  always: (s, w) => {
    if (w.step === 0)
      expect(s.context).toMatchObject({
        values: { name: '', fromNumber: '', scheduledAt: '' },
        errors: {},
        numbers: [],
        numbersTotal: 0,
        file: null,
        fileError: null,
        progress: { loaded: 0, size: 0 },
        summary: null,
        table: null,
        intent: 'draft',
        idempotencyKey: 'k0',
        failure: null,
        saved: null,
        timeZone: 'Europe/Paris',
      });
    const editable = Boolean(w.previous?.matches({ form: 'editing' }));
    if (w.event.type === 'options.retry' && cameFrom(w, 'options.failed')) expect(s.matches({ options: 'loading' })).toBe(true);
    if (w.event.type === 'timing.schedule' && editable && cameFrom(w, 'timing.now')) {
      expect(s.matches({ timing: 'scheduled' })).toBe(true);
      expect(s.context.errors).toEqual({ ...w.previous?.context.errors, scheduledAt: undefined });
    }
    if (w.event.type === 'timing.now' && editable && cameFrom(w, 'timing.scheduled')) {
      expect(s.matches({ timing: 'now' })).toBe(true);
      expect(s.context.errors).toEqual({ ...w.previous?.context.errors, scheduledAt: undefined });
    }
    if (!editable && ['timing.now', 'timing.schedule', 'recipients.pick', 'recipients.clear'].includes(w.event.type))
      expect(s.context).toEqual(w.previous?.context);
    if (w.event.type === 'recipients.clear' && editable) expect(s.matches({ recipients: 'empty' })).toBe(true);
    if (w.event.type === 'recipients.parsed' && cameFrom(w, 'recipients.parsing'))
      expect(s.matches({ recipients: 'ready' })).toBe(true);
    if (w.event.type === 'recipients.failed' && cameFrom(w, 'recipients.parsing'))
      expect(s.matches({ recipients: 'rejected' })).toBe(true);
    if (w.event.type === 'field.change' && editable)
      expect(s.context.errors).toEqual({ ...w.previous?.context.errors, [ev(w).field]: undefined });
    // the form's send mode is read from the timing region (sendModeOf), never kept beside it
    expect(s.context).not.toHaveProperty('sendMode');
    expectPending(w, 'loadOptions', s.matches({ options: 'loading' }) ? 1 : 0);
    expectPending(w, 'parseRecipients', s.matches({ recipients: 'parsing' }) ? 1 : 0);
    expect(w.pending().filter((p) => p.id === 'saveDraft').length).toBe(s.matches({ form: 'saving' }) ? 1 : 0);
    expect(w.pending().filter((p) => p.id === 'sendBatch').length).toBe(s.matches({ form: 'sending' }) ? 1 : 0);
    expect(s.hasTag('loading')).toBe(s.matches({ options: 'loading' }) || s.matches({ recipients: 'parsing' }));
    expect(s.hasTag('busy')).toBe(s.matches({ form: 'saving' }) || s.matches({ form: 'sending' }));
    // an event of one region leaves the others where they were
    if (w.previous && ['recipients.pick', 'recipients.clear', 'field.change'].includes(w.event.type)) {
      const before = w.previous.value as Record<string, unknown>;
      const now = s.value as Record<string, unknown>;
      expect([now.options, now.timing, now.form]).toEqual([before.options, before.timing, before.form]);
    }
    if (w.previous && (w.event.type === 'timing.now' || w.event.type === 'timing.schedule')) {
      const before = w.previous.value as Record<string, unknown>;
      const now = s.value as Record<string, unknown>;
      expect([now.options, now.recipients, now.form]).toEqual([before.options, before.recipients, before.form]);
    }
    // a different body, a different key; the same body, the same key
    if (w.previous) {
      const changedBody =
        (w.event.type === 'field.change' && cameFrom(w, 'form.editing')) ||
        (w.previous ? sendModeOf(w.previous) : undefined) !== sendModeOf(s);
      if (changedBody) expect(s.context.idempotencyKey).not.toBe(w.previous.context.idempotencyKey);
      else expect(s.context.idempotencyKey).toBe(w.previous.context.idempotencyKey);
    }
    if (
      !w.event.type.startsWith('xstate.done.actor.save') &&
      !w.event.type.startsWith('xstate.done.actor.send') &&
      !w.event.type.startsWith('xstate.error.actor.s')
    )
      expect(effectsNow(w)).toEqual([]);
    // nothing changes once the form is done or while it is saving
    if (w.previous && (w.previous.hasTag('done') || w.previous.hasTag('busy')) && !w.event.type.startsWith('xstate.'))
      expect(s.context.values).toEqual(w.previous.context.values);
  },
  states: {
    'options.loading': (s) => expect(s.hasTag('loading')).toBe(true),
    'options.ready': (s, w) => {
      if (cameFrom(w, 'options.loading')) {
        const out = ev(w).output;
        expect(s.context.numbers).toEqual(out.numbers);
        expect(s.context.numbersTotal).toBe(out.numbersTotal);
        expect(s.context.concurrencyLimit).toBe(out.concurrencyLimit);
        // one number: nothing to choose
        const prev = (w.previous as Snapshot).context.values.fromNumber;
        expect(s.context.values.fromNumber).toBe(prev === '' && out.numbers.length === 1 ? out.numbers[0].phone : prev);
      }
    },
    'options.failed': (s, w) => {
      if (cameFrom(w, 'options.loading')) expect(s.context.numbers).toEqual((w.previous as Snapshot).context.numbers);
    },
    // 'Send Now': no time is asked for or sent; 'Schedule': what is saved or sent is scheduled
    'timing.now': (s, w) => {
      expect(s.context.errors.scheduledAt).toBeUndefined();
      for (const r of w.startedNow.filter((x) => x.id === 'saveDraft' || x.id === 'sendBatch')) {
        // biome-ignore lint/suspicious/noExplicitAny: the persist input
        const body = (r.input as any).body;
        expect(body.sendMode).toBe('now');
        expect(body.scheduledAt).toBeUndefined();
      }
    },
    'timing.scheduled': (_s, w) => {
      for (const r of w.startedNow.filter((x) => x.id === 'saveDraft' || x.id === 'sendBatch')) {
        const body = (r.input as { body: { sendMode: string } }).body;
        expect(body.sendMode).toBe('scheduled');
      }
    },
    'recipients.empty': (s, w) => {
      if (w.event.type === 'recipients.clear') expect(s.context.progress).toEqual({ loaded: 0, size: 0 });
      expect(s.context.file).toBeNull();
      expect(s.context.summary).toBeNull();
      expect(s.context.table).toBeNull();
      expect(s.context.fileError).toBeNull();
    },
    'recipients.parsing': (s, w) => {
      // the file picked is the one read, and nothing is counted before it is read
      expect(onlyRequest(w, 'parseRecipients')).toEqual({ file: s.context.file });
      expect(s.context.summary).toBeNull();
      expect(s.context.fileError).toBeNull();
      if (w.event.type === 'recipients.pick') {
        expect(s.context.file).toBe(ev(w).file);
        expect(s.context.progress).toEqual({ loaded: 0, size: ev(w).file.size });
        expect(s.context.errors).toEqual({ ...(w.previous as Snapshot).context.errors, recipients: undefined });
      }
      if (w.event.type === 'recipients.progress' && cameFrom(w, 'recipients.parsing'))
        expect(s.context.progress).toEqual({ loaded: ev(w).loaded, size: ev(w).size });
    },
    'recipients.ready': (s, w) => {
      expect(s.context.file).not.toBeNull();
      expect(s.context.summary).not.toBeNull();
      if (w.event.type === 'recipients.parsed' && cameFrom(w, 'recipients.parsing')) {
        expect(s.context.summary).toEqual(ev(w).summary);
        expect(s.context.table).toBe(ev(w).table);
        const size = (w.previous as Snapshot).context.progress.size;
        expect(s.context.progress).toEqual({ loaded: size, size });
      }
    },
    'recipients.rejected': (s, w) => {
      // a rejected file is neither kept nor counted, and says why
      expect(s.context.file).toBeNull();
      expect(s.context.summary).toBeNull();
      expect(s.context.table).toBeNull();
      expect(typeof s.context.fileError).toBe('string');
      if (w.event.type === 'recipients.failed' && cameFrom(w, 'recipients.parsing'))
        expect(s.context.fileError).toBe(ev(w).reason);
      if (w.event.type === 'recipients.pick') {
        const f = ev(w).file;
        expect(s.context.fileError).toBe(f.size > 50 * 1024 * 1024 ? 'The CSV file is larger than 50 MB' : s.context.fileError);
      }
    },
    'form.editing': (s, w) => {
      if (w.event.type === 'field.change') {
        expect(s.context.values[ev(w).field]).toBe(ev(w).value);
        expect(s.context.errors[ev(w).field]).toBeUndefined();
      }
      if (w.event.type === 'form.send' || w.event.type === 'form.saveDraft') {
        // refused: say why, send nothing
        const { errors, values, summary } = s.context;
        if (w.previous?.matches({ recipients: 'parsing' })) {
          expect(errors.recipients).toBe('Please wait until the recipients file has been read.');
          return;
        }
        expect(Object.keys(errors).filter((k) => errors[k] !== undefined).length).toBeGreaterThan(0);
        if (values.name.trim() === '') expect(errors.name).toBe('Batch call name is required');
        if (w.event.type === 'form.send' && !(summary && summary.valid > 0))
          expect(errors.recipients).toBe('Please upload recipients first');
        if (w.event.type === 'form.send' && sendModeOf(s) === 'scheduled' && values.scheduledAt === '')
          expect(errors.scheduledAt).toBe('Please choose when to send');
        expect(s.context.intent).toBe(w.event.type === 'form.send' ? 'send' : 'draft');
      }
      if (cameFrom(w, 'form.saving') || cameFrom(w, 'form.sending')) {
        // a failure keeps the form, the recipients and the key (a retry is the same request)
        const prev = w.previous as Snapshot;
        expect(s.context.values).toEqual(prev.context.values);
        expect(s.context.file).toBe(prev.context.file);
        expect(s.context.summary).toEqual(prev.context.summary);
        const e = ev(w).error;
        const message = e.serverMessage ?? e.message ?? 'The batch call could not be saved. Please try again.';
        expect(s.context.failure).toBe(message);
        expect(s.context.errors).toEqual({ ...prev.context.errors, ...(e.fieldErrors ?? {}) });
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Error', description: message, variant: 'destructive' });
      }
    },
    'form.validating': () => {
      throw new Error('validating decides at once');
    },
    'form.saving': (s, w) => {
      const input = request(w, 'saveDraft');
      expect(s.context.values.name.trim()).not.toBe('');
      expect(input.next).toBe('draft');
      expect(input.idempotencyKey).toBe(s.context.idempotencyKey);
      expectBody(s, input.body);
      // the recipients go with a draft only once read
      expect(input.file).toBe(s.context.summary ? s.context.file : null);
      expect(s.context.errors).toEqual({});
      expect(s.context.intent).toBe('draft');
    },
    'form.sending': (s, w) => {
      // send is never made without valid recipients read to the end, a name and a From number
      const input = request(w, 'sendBatch');
      expect(s.matches({ recipients: 'ready' })).toBe(true);
      expect(s.context.summary.valid).toBeGreaterThan(0);
      expect(s.context.values.name.trim()).not.toBe('');
      expect(s.context.values.fromNumber).not.toBe('');
      if (sendModeOf(s) === 'scheduled')
        expect(Date.parse(new Date(s.context.values.scheduledAt).toISOString())).toBeGreaterThan(Date.now());
      expect(input).toMatchObject({ idempotencyKey: s.context.idempotencyKey, file: s.context.file, next: sendModeOf(s) });
      expectBody(s, input.body);
      expect(s.context.errors).toEqual({});
      expect(s.context.intent).toBe('send');
    },
    'form.saved': finishedState('saved'),
    'form.scheduled': finishedState('scheduled'),
    'form.sent': finishedState('sent'),
  },
});
