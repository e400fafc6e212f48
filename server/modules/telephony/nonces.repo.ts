/**
 * Nonces of carrier signatures (table carrier_nonces, migration 017). Plivo signs every request with a
 * nonce "unique for every request" that "can help protect your application server from replay attacks"
 * (https://www.plivo.com/docs/voice/concepts/signature-validation): a request whose nonce was already seen
 * is a replay. The nonce carries no time and Plivo states no expiry, so Parley remembers each one for
 * NONCE_TTL_MS, longer than any call lasts (a Plivo audio stream stops after its streamTimeout, at most
 * 24 hours by default: https://docs.plivo.com/docs/voice/xml/audiostream). A request replayed later still
 * makes nothing: one call per carrier call id, a stream token opens one stream, an ended call stays ended.
 * In the database, so servers sharing one PostgreSQL refuse a nonce any of them has seen.
 */
import type { AppDeps } from '../../platform/deps.js';

export const NONCE_TTL_MS = 25 * 3_600_000;
/** longer is not a carrier's nonce (Plivo's are about 20 digits) */
const NONCE_MAX = 128;

/**
 * Records `nonce` of a request the carrier signed for `companyId`: true the first time, false when it was
 * seen before (a replay) or is not a nonce. Nonces past their time are dropped on the way.
 */
export async function firstUseOfNonce(deps: AppDeps, companyId: string, provider: string, nonce: string): Promise<boolean> {
  if (nonce.length === 0 || nonce.length > NONCE_MAX) return false;
  const now = deps.clock.now();
  const db = deps.db.db;
  await db.deleteFrom('carrier_nonces').where('expires_at', '<', now.toISOString()).execute();
  const res = await db
    .insertInto('carrier_nonces')
    .values({ company_id: companyId, provider, nonce, expires_at: new Date(now.getTime() + NONCE_TTL_MS).toISOString() })
    .onConflict((oc) => oc.columns(['company_id', 'provider', 'nonce']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}
