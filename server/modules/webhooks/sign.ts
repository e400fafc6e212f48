/**
 * Webhook signatures: `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * with the company's signing secret (server/platform/crypto/signature.ts, shared with custom functions,
 * which are signed the same way). A receiver recomputes the HMAC over the exact bytes it received and
 * refuses a timestamp too far from its clock (replays); README "Webhooks" has the example.
 */
import { randomBytes } from 'node:crypto';

export { signatureHeader, signatureOf, verifySignature } from '../../platform/crypto/signature.js';

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
