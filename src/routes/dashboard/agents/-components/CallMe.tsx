import { useActorRef, useSelector } from '@xstate/react';
import { type FormEvent, memo, useEffect } from 'react';
import { toast } from '../../../../app/toaster';
import { callMeMachine } from '../../../../machines/callMe.machine';
import { Button } from '../../../../ui/button/button';
import { TextField } from '../../../../ui/text-field/text-field';
import * as s from './editor.css';
import { useEditor } from './editor-context';

/**
 * Call me, in the editor's right column: a phone number and a button; the agent being edited
 * calls that number from one of the company's numbers (its own first).
 */
export const CallMe = memo(function CallMe() {
  const editor = useEditor();
  const agentId = useSelector(editor, (snap) => snap.context.agent?._id);
  const actor = useActorRef(callMeMachine.provide({ actions: { notify: (_, params) => void toast(params) } }), {
    input: { agentId },
  });
  useEffect(() => actor.send({ type: 'agent.change', agentId }), [actor, agentId]);
  const phone = useSelector(actor, (snap) => snap.context.phone);
  const error = useSelector(actor, (snap) => snap.context.error);
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'call.start' });
  };
  return (
    <form className={s.card} onSubmit={onSubmit} aria-label="Call me">
      <h2 className={s.lead}>Call me</h2>
      <div className={s.row}>
        <TextField
          label="Phone number"
          type="tel"
          placeholder="+14155550123"
          autoComplete="tel"
          value={phone}
          error={error ?? undefined}
          onChange={(e) => actor.send({ type: 'phone.change', value: e.target.value })}
        />
        <Button type="submit" variant="secondary" disabled={busy}>
          Call me
        </Button>
      </div>
    </form>
  );
});
