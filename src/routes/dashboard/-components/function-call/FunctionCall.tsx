import { useId, useState } from 'react';
import type { ToolCallRecord, ToolCallStatus } from '../../../../api/contract/call-runtime';
import { Button } from '../../../../ui/button/button';
import { cx } from '../../../../ui/cx';
import { ChevronDownIcon, ChevronUpIcon } from '../../../../ui/icons';
import { visuallyHidden } from '../../../../ui/shared.css';
import * as f from './function-call.css';

/** A function call's status in words. */
export const TOOL_STATUS_LABELS: Record<ToolCallStatus, string> = {
  ok: 'OK',
  error: 'Error',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  invalid_arguments: 'Invalid arguments',
};

const TONE: Record<ToolCallStatus, keyof typeof f.status> = {
  ok: 'good',
  error: 'bad',
  timeout: 'bad',
  cancelled: 'neutral',
  invalid_arguments: 'bad',
};

/** The parts of a call shown: the record of a transcript turn, or a chat line (no type). */
export type FunctionCallShown = Pick<ToolCallRecord, 'name' | 'arguments' | 'status' | 'result' | 'ms'>;

/**
 * One function call of the agent, the same in Test LLM and on the call detail: its name and arguments,
 * and once it has run its status, how long it took and its result (as the model read it, already cut by
 * the server), collapsed behind 'Show result'. end_call and transfer_call have no outcome: only their
 * name and arguments show. A group named 'Function call <name>' so it can be found by its name.
 */
export function FunctionCall({ call, className }: { call: FunctionCallShown; className?: string }) {
  const [open, setOpen] = useState(false);
  const resultId = useId();
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this groups the parts of one call for reading
    <div role="group" aria-label={`Function call ${call.name}`} className={cx(f.call, className)}>
      <div className={f.head}>
        <span>
          Function called: <span className={f.name}>{call.name}</span>
        </span>
        {call.status ? (
          <span className={f.status[TONE[call.status]]}>
            <span className={visuallyHidden}>Status: </span>
            {TOOL_STATUS_LABELS[call.status]}
          </span>
        ) : null}
        {call.ms !== undefined ? (
          <span>
            <span className={visuallyHidden}>Duration: </span>
            {Math.round(call.ms)} ms
          </span>
        ) : null}
      </div>
      <span className={f.mono}>Arguments: {JSON.stringify(call.arguments)}</span>
      {call.result !== undefined ? (
        <>
          <Button
            size="sm"
            variant="ghost"
            className={f.expander}
            aria-expanded={open}
            aria-controls={resultId}
            onClick={() => setOpen(!open)}
          >
            {open ? <ChevronUpIcon /> : <ChevronDownIcon />}
            {open ? 'Hide result' : 'Show result'}
          </Button>
          <pre id={resultId} className={f.result} hidden={!open}>
            {call.result === '' ? '(empty)' : call.result}
          </pre>
        </>
      ) : null}
    </div>
  );
}
