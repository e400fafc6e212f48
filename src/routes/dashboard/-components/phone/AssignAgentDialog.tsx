import { useSelector } from '@xstate/react';
import { type FormEvent, useId } from 'react';
import type { ActorRefFrom } from 'xstate';
import { type CallDirection, prettyPhoneNumber } from '../../../../api/contract/phone';
import type { AgentOption, assignAgentMachine } from '../../../../machines/assignAgent.machine';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { SearchIcon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import { TextField } from '../../../../ui/text-field/text-field';
import { FormDialogFooter } from './FormDialogFooter';
import * as s from './phone.css';
import { RadioChoices } from './RadioChoices';

export type AssignAgentActor = ActorRefFrom<typeof assignAgentMachine>;

const DIRECTIONS = [
  { value: 'inbound', label: 'Inbound', note: 'The agent answers calls to this number.' },
  { value: 'outbound', label: 'Outbound', note: 'The agent places calls from this number.' },
] as const;

/** The agents to offer: the search's matches, with the chosen agent first when the search does not list it. */
function offered(agents: AgentOption[], chosen: AgentOption | undefined): AgentOption[] {
  return chosen?._id && !agents.some((a) => a._id === chosen._id) ? [chosen, ...agents] : agents;
}

/** 'Assign Agent to Phone Number', driven by the assignAgent machine. */
export function AssignAgentDialog({ actor }: { actor: AssignAgentActor }) {
  const formId = useId();
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const agentsLoading = useSelector(actor, (snap) => snap.hasTag('agentsLoading'));
  const agentsFailed = useSelector(actor, (snap) => snap.hasTag('agentsFailed'));
  const { number, agentId, agentName, direction, search, agents, agentsError, error } = useSelector(
    actor,
    (snap) => snap.context,
  );

  const list = offered(agents, agentId ? { _id: agentId, name: agentName } : undefined);
  let listState = null;
  if (agentsFailed)
    listState = (
      <div className={s.listState} role="alert">
        <span>{agentsError}</span>
        <Button variant="secondary" size="sm" onClick={() => actor.send({ type: 'agents.retry' })}>
          Retry
        </Button>
      </div>
    );
  else if (agentsLoading && agents.length === 0)
    listState = (
      <div className={s.listState}>
        <Spinner size="sm" label="Loading agents" />
        <span aria-hidden="true">Loading agents…</span>
      </div>
    );
  else if (list.length === 0)
    listState = (
      <p className={s.listState}>
        {search ? `No agents match “${search}”.` : 'No agents yet. Create an agent on the Agents page first.'}
      </p>
    );

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };

  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      hideOnInteractOutside={false}
      title="Assign Agent to Phone Number"
      description={number ? `Choose the agent for ${prettyPhoneNumber(number.phone)} and the calls it handles.` : undefined}
      footer={<FormDialogFooter formId={formId} busy={busy} onCancel={() => actor.send({ type: 'dialog.close' })} />}
    >
      <form id={formId} className={s.form} noValidate onSubmit={onSubmit} aria-label="Assign Agent to Phone Number">
        <TextField
          label="Search agents"
          type="search"
          placeholder="Search agents..."
          leading={<SearchIcon size={14} />}
          value={search}
          // the dialog opens on the search box
          autoFocus
          onChange={(e) => actor.send({ type: 'agent.search', search: e.currentTarget.value })}
        />
        <RadioChoices
          label="Agent"
          list
          busy={agentsLoading && agents.length > 0}
          value={agentId}
          disabled={busy}
          error={error}
          choices={list.map((a) => ({ value: a._id, label: a.name }))}
          onChange={(id) => {
            const agent = list.find((a) => a._id === id);
            if (agent) actor.send({ type: 'agent.select', agent });
          }}
        >
          {listState}
        </RadioChoices>
        <RadioChoices<CallDirection>
          label="Call direction"
          value={direction}
          disabled={busy}
          choices={DIRECTIONS}
          onChange={(d) => actor.send({ type: 'direction.select', direction: d })}
        />
      </form>
    </Dialog>
  );
}
