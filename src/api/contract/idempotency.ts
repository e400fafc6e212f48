/**
 * Idempotency of create requests (POST /agent, /number/create, /provider/values, /knowledge-base,
 * /batch-call, /request): a client may send `Idempotency-Key: <1-255 visible ASCII characters>`; repeating the
 * request with the same key answers the first answer (header `Idempotent-Replayed: true`) and never
 * creates a second row. The same key with a different request answers 422.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

export const IDEMPOTENCY_MESSAGES = {
  required: 'The Idempotency-Key header is required',
  invalid: `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`,
  reused: 'This Idempotency-Key was already used with a different request',
  inProgress: 'A request with this Idempotency-Key is still in progress. Please retry in a moment.',
} as const;

/** A fresh key for one user action (reuse it when retrying that same action). */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();
