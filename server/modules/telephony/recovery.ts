/**
 * Phone calls in flight when a server died: a call still `registered` (dialled, ringing, or answered while
 * no server took its stream) whose status callbacks were lost with the server. At start the server asks
 * the carrier for each such call and stores the ones the carrier has ended, with the carrier's status
 * (busy, no-answer, failed, canceled get their dial reasons, as a status callback would). A call the carrier
 * still has in flight is left to its callbacks; one nobody ends is stored as failed after STALE_PHONE_MS
 * (server/modules/conversations/sweep.ts).
 *
 * - Twilio: the Calls resource's fetch, `GET /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json`
 *   (server/carriers/twilio/rest.ts fetchCall): `status`.
 * - Plivo: Retrieve a call, `GET /v1/Account/{auth_id}/Call/{call_uuid}/` (plivo.ts getCall): the call
 *   detail record exists once the call has ended (404 before); its hangup cause gives the status. An
 *   outbound Plivo call has its CallUUID only from its answer callback: one still ringing cannot be asked.
 */

import { PlivoApiError, PlivoRest, plivoAccount } from '../../carriers/plivo/rest.js';
import { TwilioRest, twilioAccount } from '../../carriers/twilio/rest.js';
import type { AppDeps } from '../../platform/deps.js';
import { unansweredCarrierCalls } from '../conversations/session.repo.js';
import { PLIVO_END_STATUS } from './plivo-service.js';
import { dialEnded, TWILIO_END_STATUS } from './service.js';

const BATCH = 100;

type CarrierEnd = Parameters<typeof dialEnded>[2];

/** Plivo's hangup cause of an ended call as the CallStatus its hangup callback would have sent. */
export function plivoStatusOf(record: { hangupCause: string; answered: boolean }): string {
  const cause = record.hangupCause;
  if (/busy/i.test(cause)) return 'busy';
  if (/no answer|ring timeout/i.test(cause)) return 'no-answer';
  if (/cancel/i.test(cause)) return 'cancel';
  if (/reject/i.test(cause)) return 'rejected';
  return record.answered ? 'completed' : 'failed';
}

/** The carrier's end of a call: { end, completed } once it has ended there, undefined while in flight or unknown. */
async function carrierEnd(
  deps: AppDeps,
  row: { company_id: string; provider: string; provider_call_id: string | null },
): Promise<{ end: CarrierEnd; completed: boolean } | undefined> {
  const id = row.provider_call_id;
  if (!id) return undefined;
  if (row.provider === 'twilio') {
    const account = await twilioAccount(deps, row.company_id);
    if (!account) return undefined;
    const call = await new TwilioRest(deps, account).fetchCall(id);
    const end = TWILIO_END_STATUS[call.status];
    return end || call.status === 'completed' ? { end, completed: call.status === 'completed' } : undefined;
  }
  if (row.provider === 'plivo') {
    const account = await plivoAccount(deps, row.company_id);
    if (!account) return undefined;
    const record = await new PlivoRest(deps, account).getCall(id).catch((e: unknown) => {
      if (e instanceof PlivoApiError && e.status === 404) return undefined; // no record yet: still live
      throw e;
    });
    if (!record) return undefined;
    const status = plivoStatusOf(record);
    return { end: PLIVO_END_STATUS[status], completed: status === 'completed' };
  }
  return undefined;
}

/**
 * Asks the carriers about the phone calls still `registered` that were created before `before` (this
 * server's start); stores those the carrier has ended. Answers how many were asked and ended.
 */
export async function askCarriersAboutCalls(deps: AppDeps, before: Date): Promise<{ asked: number; ended: number }> {
  const rows = await unansweredCarrierCalls(deps.db.db, before, BATCH);
  let ended = 0;
  for (const row of rows) {
    try {
      const state = await carrierEnd(deps, row);
      if (!state) continue;
      await dialEnded(deps, row, state.end, state.completed, '');
      ended++;
    } catch (e) {
      deps.logger.warn('carrier not asked about a call in flight', {
        callId: row.id,
        provider: row.provider,
        reason: e instanceof Error ? e.message : String(e),
      });
    }
  }
  if (rows.length > 0) deps.logger.info('carriers asked about calls in flight', { asked: rows.length, ended });
  return { asked: rows.length, ended };
}
