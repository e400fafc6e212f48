import { createHash, createHmac, randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

/** Access tokens: JWT HS256, 15 minutes. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
export const JWT_ISSUER = 'parley';
export const JWT_AUDIENCE = 'parley-api';

export interface AccessClaims {
  accountId: string;
  companyId: string;
  sessionId: string;
}

export async function signAccessToken(key: Uint8Array, claims: AccessClaims, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sid: claims.sessionId, cid: claims.companyId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.accountId)
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
    .sign(key);
}

export class InvalidTokenError extends Error {}

/**
 * Verifies signature (HS256 only), issuer, audience, expiry and the required claims. Throws
 * InvalidTokenError for anything else, without saying which check failed.
 */
export async function verifyAccessToken(key: Uint8Array, token: string, now: Date): Promise<AccessClaims> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      requiredClaims: ['exp', 'sub', 'sid', 'cid'],
      currentDate: now,
    });
    const { sub, sid, cid } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || typeof cid !== 'string') throw new InvalidTokenError();
    return { accountId: sub, sessionId: sid, companyId: cid };
  } catch (e) {
    if (e instanceof InvalidTokenError || e instanceof errors.JOSEError || e instanceof TypeError) throw new InvalidTokenError();
    throw e;
  }
}

/** 32 random bytes, base64url: refresh tokens and password reset tokens. */
export const newOpaqueToken = () => randomBytes(32).toString('base64url');

/** What the database keeps of an opaque token. */
export const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The successor of a refresh token in its family: HMAC(key, token). Deterministic, so every request
 * that presents the same token inside the reuse grace receives the SAME successor, and no reversible
 * copy of a token is ever stored.
 */
export const successorToken = (key: Uint8Array, token: string) =>
  createHmac('sha256', key).update(`parley-refresh-successor:${token}`, 'utf8').digest('base64url');

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer[ ]+([^\s]+)\s*$/i);
  return m?.[1];
}
