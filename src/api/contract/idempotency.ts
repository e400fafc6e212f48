/**
 * Idempotency of create requests (POST /agent, /number/create, /provider/values, /knowledge-base,
 * /batch-call, /request) and of the versioned PUT /agent/{id} (a retried save whose first answer was lost
 * gets that answer, not a 409 for the version it bumped itself): a client may send `Idempotency-Key: <1-255 visible ASCII characters>`; repeating the
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

/**
 * The Idempotency-Key of one user action (a Save, a Connect, an Upload), kept in the machine's context.
 * A retry of the same request reuses the key, so a request that reached the server before the network
 * failed is answered, not repeated; a changed request is a new action with a new key (the server would
 * answer 422 to a different body under the old key). `fingerprint` identifies the request without
 * keeping it (a provider's credentials must not outlive their dialog).
 */
export interface ActionKey {
  key: string;
  fingerprint: string;
}

/** The key for sending `request` now: the previous attempt's key when the request is the same, else a new one. */
export function actionKey(previous: ActionKey | undefined, request: unknown): ActionKey {
  const fingerprint = fingerprintOf(JSON.stringify(request, (_, value) => (isFileLike(value) ? fileIdentity(value) : value)));
  return previous?.fingerprint === fingerprint ? previous : { key: newIdempotencyKey(), fingerprint };
}

interface FileLike {
  name: string;
  size: number;
  lastModified: number;
  type: string;
}
const isFileLike = (value: unknown): value is FileLike =>
  typeof value === 'object' && value !== null && 'lastModified' in value && 'size' in value && 'name' in value;
const fileIdentity = (f: FileLike) => ({ file: f.name, size: f.size, lastModified: f.lastModified, type: f.type });

/** cyrb53: a fast 53-bit string hash (not cryptographic; it only tells one attempt's request from another). */
function fingerprintOf(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
