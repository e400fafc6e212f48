import { Link } from '@tanstack/react-router';
import { type useActorRef, useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import type { StartConversationInput } from '../../../../api/contract/call-runtime';
import type { Levels, webCallMachine } from '../../../../machines/webCall.machine';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { MicIcon, PhoneIcon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import * as s from './editor.css';
import { ProviderProblem } from './ProviderProblem';
import * as t from './tests.css';

type WebCallActor = ReturnType<typeof useActorRef<typeof webCallMachine>>;

/** Why a call ended, in words (the disconnection reasons of the call runtime). */
export function endedText(reason: string | null, message: string | null): string {
  switch (reason) {
    case 'user_hangup':
      return 'You hung up.';
    case 'agent_hangup':
      return 'The agent ended the call.';
    case 'inactivity':
      return 'The call ended after a long silence.';
    case 'max_duration_reached':
      return 'The call reached its maximum duration.';
    case 'call_transfer':
      return 'The agent transferred the call.';
    case 'error_audio_flood':
      return 'The call was ended because your browser sent audio faster than real time.';
    default:
      return message ?? (reason ? `The call ended (${reason}).` : 'The call ended.');
  }
}

/** Test: the call window (Start / Hang up, mute, a level meter per side, the live transcript, the agent's state). */
export function WebCallDialog({
  open,
  actor,
  request,
  onClose,
}: {
  open: boolean;
  actor: WebCallActor;
  request: () => StartConversationInput;
  onClose: () => void;
}) {
  const starting = useSelector(actor, (snap) => snap.hasTag('starting'));
  const live = useSelector(actor, (snap) => snap.hasTag('live'));
  const hangingUp = useSelector(actor, (snap) => snap.matches({ active: 'hangingUp' }));
  const ended = useSelector(actor, (snap) => snap.matches('ended'));
  const failed = useSelector(actor, (snap) => snap.matches('failed'));
  const { agentState, muted, transcript, error, errorLink, endReason, endMessage, callId, levels } = useSelector(
    actor,
    (snap) => snap.context,
  );
  const logRef = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the newest line
  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [transcript]);

  const status = starting
    ? 'Connecting…'
    : hangingUp
      ? 'Hanging up…'
      : live
        ? agentState
          ? `Agent is ${agentState}`
          : 'Connected'
        : ended
          ? `Call ended. ${endedText(endReason, endMessage)}`
          : failed
            ? 'The call could not be placed.'
            : 'Press Start to call the agent from your microphone.';

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Test call"
      description="Talk to the agent as it is in the editor now, through your microphone."
      size="lg"
      footer={
        <div className={t.actions}>
          {starting || live ? (
            <>
              <Button
                variant="secondary"
                aria-pressed={muted}
                disabled={!live}
                onClick={() => actor.send({ type: 'mute.toggle' })}
              >
                <MicIcon />
                {muted ? 'Unmute' : 'Mute'}
              </Button>
              <Button variant="destructive" loading={hangingUp} onClick={() => actor.send({ type: 'call.hangup' })}>
                <PhoneIcon />
                Hang up
              </Button>
            </>
          ) : (
            <Button onClick={() => actor.send({ type: 'call.start', request: request() })}>
              <PhoneIcon />
              {ended || failed ? 'Call again' : 'Start'}
            </Button>
          )}
        </div>
      }
    >
      <div className={s.stack}>
        <p className={t.stateLine} role="status" aria-label="Call status">
          {starting ? <Spinner size="sm" decorative /> : null}
          {status}
        </p>
        {error ? <ProviderProblem message={error} link={errorLink} /> : null}
        <LevelMeters levels={live ? levels : null} />
        <div ref={logRef} className={t.log} role="log" aria-label="Live transcript">
          {transcript.length === 0 ? <span className={s.muted}>The conversation shows here.</span> : null}
          {transcript.map((line, i) => (
            <p key={i} className={`${line.role === 'user' ? t.user : t.agent} ${line.final ? '' : t.interim}`}>
              <span className={t.who}>{line.role === 'user' ? 'You' : 'Agent'}</span>
              {line.text}
            </p>
          ))}
        </div>
        {ended && callId ? (
          <p className={s.muted}>
            <Link to="/dashboard/call-history/$callId" params={{ callId }}>
              Open this call in Call History
            </Link>
          </p>
        ) : null}
      </div>
    </Dialog>
  );
}

/** The two level meters, redrawn every animation frame from the line (no React render per frame). */
function LevelMeters({ levels }: { levels: (() => Levels) | null }) {
  const caller = useRef<HTMLMeterElement>(null);
  const agent = useRef<HTMLMeterElement>(null);
  useEffect(() => {
    if (!levels) {
      if (caller.current) caller.current.value = 0;
      if (agent.current) agent.current.value = 0;
      return;
    }
    let frame = requestAnimationFrame(function draw() {
      const now = levels();
      if (caller.current) caller.current.value = now.caller;
      if (agent.current) agent.current.value = now.agent;
      frame = requestAnimationFrame(draw);
    });
    return () => cancelAnimationFrame(frame);
  }, [levels]);
  return (
    <div className={t.meters}>
      <span aria-hidden="true">You</span>
      <meter ref={caller} className={t.meter} aria-label="Your microphone level" min={0} max={1} value={0} />
      <span aria-hidden="true">Agent</span>
      <meter ref={agent} className={t.meter} aria-label="Agent voice level" min={0} max={1} value={0} />
    </div>
  );
}
