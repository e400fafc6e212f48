import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getProviderSecret } from '../../server/modules/providers/provider.store.js';
import { decryptSecret, encryptSecret, SecretDecryptError } from '../../server/platform/crypto/secrets.js';
import { maskValue } from '../../src/api/contract/provider.js';
import { describeEachDb, useTestApp } from './helpers.js';

const master = randomBytes(32);
const ctx = { companyId: 'aaaaaaaaaaaaaaaaaaaaaaaa', provider: 'openai', field: 'API Key' };
const SECRET = 'sk-live-secret-value-0123456789abcd';

describe('envelope encryption', () => {
  it('round-trips and never contains the plain value', () => {
    const sealed = encryptSecret(master, SECRET, ctx);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain(SECRET);
    expect(Buffer.from(sealed.slice(3), 'base64url').toString('latin1')).not.toContain(SECRET);
    expect(decryptSecret(master, sealed, ctx)).toBe(SECRET);
  });

  it('uses a fresh data key and nonce for every value', () => {
    const a = encryptSecret(master, SECRET, ctx);
    const b = encryptSecret(master, SECRET, ctx);
    expect(a).not.toBe(b);
    // the wrapped data keys differ, not only the nonces
    const wrappedKey = (s: string) => Buffer.from(s.slice(3), 'base64url').subarray(28, 60).toString('hex');
    expect(wrappedKey(a)).not.toBe(wrappedKey(b));
  });

  it('a ciphertext moved to another company, provider or field fails to decrypt', () => {
    const sealed = encryptSecret(master, SECRET, ctx);
    expect(() => decryptSecret(master, sealed, { ...ctx, companyId: 'bbbbbbbbbbbbbbbbbbbbbbbb' })).toThrow(SecretDecryptError);
    expect(() => decryptSecret(master, sealed, { ...ctx, provider: 'deepgram' })).toThrow(SecretDecryptError);
    expect(() => decryptSecret(master, sealed, { ...ctx, field: 'Auth Token' })).toThrow(SecretDecryptError);
  });

  it('fails with another master key, and on any altered byte, without revealing the value', () => {
    const sealed = encryptSecret(master, SECRET, ctx);
    expect(() => decryptSecret(randomBytes(32), sealed, ctx)).toThrow(SecretDecryptError);
    const blob = Buffer.from(sealed.slice(3), 'base64url');
    for (const at of [0, 20, 40, 70, 90, blob.length - 1]) {
      const bad = Buffer.from(blob);
      bad[at] = (bad[at] ?? 0) ^ 1;
      let message = '';
      try {
        decryptSecret(master, `v1.${bad.toString('base64url')}`, ctx);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toBe('A stored secret could not be decrypted');
    }
    expect(() => decryptSecret(master, 'v2.abc', ctx)).toThrow(SecretDecryptError);
    expect(() => decryptSecret(master, 'v1.', ctx)).toThrow(SecretDecryptError);
    expect(() => decryptSecret(master, `${sealed}.x`, ctx)).toThrow(SecretDecryptError);
  });

  it('refuses a master key of the wrong size', () => {
    expect(() => encryptSecret(randomBytes(16), SECRET, ctx)).toThrow('32 bytes');
  });
});

describe('maskValue', () => {
  it('shows first 3 + … + last 4 for long values, •••• + last 4 for short ones, nothing for tiny ones', () => {
    expect(maskValue('sk-proj-abcdefghijklmnop1234abcd')).toBe('sk-…abcd');
    expect(maskValue('0123456789abcdef')).toBe('012…cdef');
    expect(maskValue('abcdefgh12345')).toBe('••••2345');
    expect(maskValue('12345678')).toBe('••••5678');
    expect(maskValue('1234567')).toBe('••••••••');
    expect(maskValue('')).toBe('••••••••');
  });
});

describeEachDb('getProviderSecret', (kind) => {
  const t = useTestApp(kind);

  it('returns the stored value for its own company only, null when absent', async () => {
    const { deps } = t();
    const now = new Date().toISOString();
    for (const id of ['c1c1c1c1c1c1c1c1c1c1c1c1', 'c2c2c2c2c2c2c2c2c2c2c2c2']) {
      await deps.db.db.insertInto('companies').values({ id, name: id, created_at: now }).execute();
    }
    const c1 = 'c1c1c1c1c1c1c1c1c1c1c1c1';
    const c2 = 'c2c2c2c2c2c2c2c2c2c2c2c2';
    const sealed = encryptSecret(deps.secrets.masterKey, SECRET, { companyId: c1, provider: 'elevenlabs', field: 'API Key' });
    const row = (id: string, companyId: string) => ({
      id,
      company_id: companyId,
      provider: 'elevenlabs',
      secrets: JSON.stringify({ 'API Key': sealed }),
      created_at: now,
      updated_at: now,
    });
    await deps.db.db.insertInto('provider_connections').values(row('d1d1d1d1d1d1d1d1d1d1d1d1', c1)).execute();
    expect(await getProviderSecret(deps, c1, 'elevenlabs', 'API Key')).toBe(SECRET);
    expect(await getProviderSecret(deps, c1, 'elevenlabs', 'constructor')).toBeNull();
    expect(await getProviderSecret(deps, c1, 'deepgram', 'API Key')).toBeNull();
    expect(await getProviderSecret(deps, c2, 'elevenlabs', 'API Key')).toBeNull();

    // the same ciphertext copied into company 2's row does not open there
    await deps.db.db.insertInto('provider_connections').values(row('d2d2d2d2d2d2d2d2d2d2d2d2', c2)).execute();
    await expect(getProviderSecret(deps, c2, 'elevenlabs', 'API Key')).rejects.toBeInstanceOf(SecretDecryptError);
  });
});
