import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { ContactField, contactMachine } from '../../machines/contact.machine';
import { Button } from '../../ui/button/button';
import { CONTACT_TEXTAREA_ROWS } from '../../ui/constants';
import { Dialog } from '../../ui/dialog/dialog';
import { TextField } from '../../ui/text-field/text-field';
import { Textarea } from '../../ui/textarea/textarea';
import * as s from './auth.css';

export type ContactActor = ActorRefFrom<typeof contactMachine>;

/** 'Get in Touch' dialog of the landing page, driven by the contact machine (POST /contact). */
export function ContactDialog({ actor }: { actor: ContactActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const values = useSelector(actor, (snap) => snap.context.values);
  const errors = useSelector(actor, (snap) => snap.context.errors);
  const change = (field: ContactField) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    actor.send({ type: 'field.change', field, value: e.currentTarget.value });
  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      title="Get in Touch"
      description="Questions about Parley? Send us a message."
    >
      {/* Native checks (required, type=email) run first, as the spec describes; the machine checks again. */}
      <form
        className={s.form}
        aria-label="Contact"
        onSubmit={(e) => {
          e.preventDefault();
          actor.send({ type: 'form.submit' });
        }}
      >
        <TextField
          label="Name"
          hideLabel
          name="name"
          placeholder="Your Name"
          autoComplete="name"
          required
          autoFocus
          value={values.name}
          error={errors.name}
          disabled={busy}
          onChange={change('name')}
        />
        <TextField
          label="Email"
          hideLabel
          name="email"
          type="email"
          placeholder="Your Email"
          autoComplete="email"
          required
          value={values.email}
          error={errors.email}
          disabled={busy}
          onChange={change('email')}
        />
        <Textarea
          label="Message"
          hideLabel
          name="message"
          placeholder="Your Message"
          rows={CONTACT_TEXTAREA_ROWS}
          required
          value={values.message}
          error={errors.message}
          disabled={busy}
          onChange={change('message')}
        />
        <Button type="submit" fullWidth loading={busy}>
          Send Message
        </Button>
      </form>
    </Dialog>
  );
}
