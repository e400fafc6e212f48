import { useSelector } from '@xstate/react';
import { useRef } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { agentImportMachine } from '../../../machines/agentImport.machine';
import { Button } from '../../../ui/button/button';

export type AgentImportActor = ActorRefFrom<typeof agentImportMachine>;

/** 'Import': picks a file made by Export; the agentImport machine validates it and creates the agent. */
export function ImportAgentButton({ actor }: { actor: AgentImportActor }) {
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button variant="secondary" loading={busy} onClick={() => input.current?.click()}>
        Import
      </Button>
      <input
        ref={input}
        type="file"
        accept="application/json,.json"
        hidden
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          // the same file may be chosen again after fixing it
          e.currentTarget.value = '';
          if (file) actor.send({ type: 'file.pick', file });
        }}
      />
    </>
  );
}
