/**
 * Phone calls in flight when a server died: a call still `registered` (dialled, ringing, or answered while
 * no server took its stream) whose status callbacks were lost with the server. At start the server asks
 * the carrier for each such call and stores the ones the carrier has ended, with the carrier's status
 * (busy, no-answer, failed, canceled get their dial reasons, as a status callback would). A call the carrier
 * still has in flight is left to its callbacks; one nobody ends is stored as failed after STALE_PHONE_MS
 * (server/modules/conversations/sweep.ts).
 *
 * Each carrier answers through its REST API's `callEnd` (server/carriers/types.ts):
 * - Twilio: the Calls resource's fetch, `GET /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json`
 *   (server/carriers/twilio/rest.ts fetchCall): `status`.
 * - Plivo: Retrieve a call, `GET /v1/Account/{auth_id}/Call/{call_uuid}/` (server/carriers/plivo/rest.ts
 *   getCall): the call detail record exists once the call has ended (404 before); its hangup cause gives the
 *   status. An outbound Plivo call has its CallUUID only from its answer callback: one still ringing cannot
 *   be asked.
 */

import { carriers } from '../../carriers/registry.js';
import type { AppDeps } from '../../platform/deps.js';
import { carrierAccount, carrierRest, dialEnded } from './service.js';
import { callsAwaitingCarrier } from './telephony.repo.js';

const BATCH = 100;

/** The carrier's end of a call: { end, completed } once it has ended there, undefined while in flight or unknown. */
async function carrierEnd(deps: AppDeps, row: { company_id: string; provider: string; provider_call_id: string | null }) {
  const carrier = carriers.get(row.provider);
  const id = row.provider_call_id;
  if (!carrier || !id) return undefined;
  const account = await carrierAccount(deps, carrier, row.company_id);
  if (account === undefined) return undefined;
  return carrierRest(deps, carrier, account).callEnd(id);
}

/**
 * Asks the carriers about the phone calls still `registered` that were created before `before` (this
 * server's start); stores those the carrier has ended. Answers how many were asked and ended.
 */
export async function askCarriersAboutCalls(deps: AppDeps, before: Date): Promise<{ asked: number; ended: number }> {
  const rows = await callsAwaitingCarrier(deps.db.db, carriers.ids(), before, BATCH);
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
