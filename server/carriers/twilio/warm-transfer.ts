/**
 * Warm transfer on Twilio, from Twilio's building blocks (rest.ts names the documents): the person is dialled
 * on a new call (Calls resource, create) from the call's own number, with `Timeout` so Twilio itself gives up
 * ringing, and TwiML that first says the summary and then enters the conference room. Parley follows that
 * consult leg with the Calls resource's fetch until it is answered (in-progress) or ends (busy, no-answer,
 * failed, canceled); answered, the caller's live call gets new TwiML that puts it in the same room (its
 * media stream then stops). Nobody answering within the deadline, the leg is cancelled (Status=canceled; one
 * answered in that very moment is hung up) and the caller stays with the agent.
 */

import type { WarmTransferEnd } from '../../voice/lines/types.js';
import type { ConsultTransfer } from '../types.js';
import { conferenceTwiml, type TwilioRest } from './rest.js';

/** how often the consult leg's status is fetched while it rings */
export const CONSULT_POLL_MS = 250;

const NOT_ANSWERED: Record<string, Exclude<WarmTransferEnd, { connected: true }>['reason']> = {
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
  // answered and hung up between two fetches: the person is gone
  completed: 'no-answer',
};

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export async function twilioWarmTransfer(rest: TwilioRest, t: ConsultTransfer): Promise<WarmTransferEnd> {
  const ringSeconds = Math.min(600, Math.max(5, Math.ceil(t.timeoutMs / 1000)));
  const consult = await rest.createCall([
    ['To', t.to],
    ['From', t.from],
    ['Twiml', conferenceTwiml(t.room, { startOnEnter: true, say: t.summary })],
    ['Timeout', String(ringSeconds)],
  ]);
  const deadline = Date.now() + t.timeoutMs;
  let status = consult.status;
  for (;;) {
    if (status === 'in-progress') break;
    const ended = NOT_ANSWERED[status];
    if (ended) return { connected: false, reason: ended };
    if (t.signal.aborted || Date.now() >= deadline) {
      await giveUp(rest, consult.sid);
      return { connected: false, reason: t.signal.aborted ? 'canceled' : 'no-answer' };
    }
    await pause(Math.min(CONSULT_POLL_MS, Math.max(0, deadline - Date.now())), t.signal);
    status = (await rest.fetchCall(consult.sid)).status;
  }
  try {
    await rest.updateTwiml(t.callId, conferenceTwiml(t.room, { startOnEnter: false }));
  } catch (e) {
    // the caller is gone (or Twilio refused): the person is not left waiting in an empty room
    await rest.hangUp(consult.sid).catch(() => {});
    throw e;
  }
  return { connected: true };
}

/** Cancels the consult leg; one that was answered in the meantime cannot be cancelled and is hung up. */
async function giveUp(rest: TwilioRest, sid: string) {
  const after = await rest.cancel(sid).catch(() => undefined);
  if (after?.status === 'in-progress') await rest.hangUp(sid).catch(() => {});
}
