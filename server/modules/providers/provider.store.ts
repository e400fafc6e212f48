import {
  fieldFlags,
  type KeyValue,
  maskValue,
  PROVIDER_MESSAGES,
  type ProviderInfo,
  type ProviderListItem,
} from '@contract/provider.js';
import { decryptSecret, encryptSecret, SecretDecryptError } from '../../platform/crypto/secrets.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { normalizeBaseUrl } from '../../platform/net/base-url.js';
import { assertPublicUrl, UnsafeUrlError } from '../../platform/net/net-guard.js';
import { type ConnectionRow, storedSecrets } from './provider.repo.js';

export function listItem(info: ProviderInfo, row: ConnectionRow | undefined): ProviderListItem {
  return {
    _id: row?.id ?? info.name,
    name: info.name,
    label: info.label,
    company: row?.company_id ?? null,
    connected: row !== undefined,
    keys: info.fields.map((f) => ({ name: f.name, secret: f.secret, ...fieldFlags(f) })),
  };
}

function storedMap(row: ConnectionRow): Record<string, string> {
  const parsed: unknown = JSON.parse(row.secrets);
  return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
}

/** The plain value of one stored field, or undefined when it is missing or cannot be opened. */
export function openField(deps: AppDeps, row: ConnectionRow, field: string): string | undefined {
  const stored = storedMap(row);
  if (!Object.hasOwn(stored, field) || typeof stored[field] !== 'string') return undefined;
  try {
    return decryptSecret(deps.secrets.masterKey, stored[field], { companyId: row.company_id, provider: row.provider, field });
  } catch (e) {
    if (!(e instanceof SecretDecryptError)) throw e;
    deps.logger.warn('stored provider secret cannot be decrypted', { provider: row.provider, companyId: row.company_id });
    return undefined;
  }
}

/** The fields with '' (not connected or unreadable) or the mask of the stored value. */
export function maskedKeys(deps: AppDeps, info: ProviderInfo, row: ConnectionRow | undefined) {
  return info.fields.map((f) => {
    const plain = row ? openField(deps, row, f.name) : undefined;
    return { name: f.name, value: plain === undefined ? '' : maskValue(plain), secret: f.secret, ...fieldFlags(f) };
  });
}

const looksMasked = (value: string) => value.includes('…') || value.includes('•');

/**
 * Checks the submitted keys against the provider's fields and returns the encrypted map to store.
 * `existing` (on update): omitted fields, and fields sent with exactly the mask of their stored value,
 * keep the stored ciphertext; an optional field left empty is not stored (on update: removed). A stored value that cannot be opened (a ciphertext moved from another
 * company, provider or field, or sealed under another master key) is never kept: the field must be
 * given again. Error messages name fields, never values.
 */
export function sealKeys(
  deps: AppDeps,
  companyId: string,
  info: ProviderInfo,
  keys: KeyValue[],
  existing?: ConnectionRow,
): Record<string, string> {
  const known = new Set(info.fields.map((f) => f.name));
  const seen = new Set<string>();
  const errors: Record<string, string> = {};
  for (const k of keys) {
    if (!known.has(k.name)) throw new HttpError(400, PROVIDER_MESSAGES.unknownField(k.name.slice(0, 64), info.label));
    if (seen.has(k.name)) throw new HttpError(400, PROVIDER_MESSAGES.duplicateField(k.name));
    seen.add(k.name);
  }
  const given = new Map(keys.map((k) => [k.name, k.value]));
  const previous = existing ? storedMap(existing) : {};
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const f of info.fields) {
    const value = given.get(f.name);
    // the stored plain value, only when it still opens (checked on every update)
    const stored = existing ? openField(deps, existing, f.name) : undefined;
    const keepStored = stored !== undefined && (value === undefined || value === maskValue(stored));
    if (keepStored) {
      out[f.name] = previous[f.name] as string;
      continue;
    }
    if (f.optional && (value === undefined || value === '')) continue; // left empty, or removed
    if (value === undefined || value === '') {
      missing.push(f.name);
      errors[f.name] = PROVIDER_MESSAGES.valueRequired;
      continue;
    }
    if (looksMasked(value)) {
      errors[f.name] = PROVIDER_MESSAGES.maskedValue;
      continue;
    }
    out[f.name] = encryptSecret(deps.secrets.masterKey, value, { companyId, provider: info.name, field: f.name });
  }
  if (missing.length > 0) throw new HttpError(400, PROVIDER_MESSAGES.missingFields(missing), { errors });
  const firstError = Object.entries(errors)[0];
  if (firstError) throw new HttpError(400, `${firstError[0]}: ${firstError[1]}`, { errors });
  return out;
}

/**
 * The card as it will be saved, in plain values by field name (for the key check, in memory only): the
 * submitted values, and on update the stored ones of the fields left out or sent as their mask. `changed`
 * is false for an update that changes nothing (nothing to try).
 */
export function plainCard(
  deps: AppDeps,
  info: ProviderInfo,
  keys: KeyValue[],
  existing?: ConnectionRow,
): { values: Record<string, string>; changed: boolean } {
  const given = new Map(keys.map((k) => [k.name, k.value]));
  const values: Record<string, string> = {};
  let changed = existing === undefined;
  for (const f of info.fields) {
    const value = given.get(f.name);
    const stored = existing ? openField(deps, existing, f.name) : undefined;
    if (stored !== undefined && (value === undefined || value === maskValue(stored))) {
      values[f.name] = stored;
      continue;
    }
    if (value === undefined) continue;
    if (existing) changed = true;
    if (value !== '') values[f.name] = value;
  }
  return { values, changed };
}

/**
 * Validates the `url` fields among the submitted keys (before `sealKeys`): a new value must be an http(s)
 * URL without credentials, query or fragment (stored normalised, see normalizeBaseUrl) whose host is, and
 * resolves only to, public addresses unless `allowPrivate`. Empty values and untouched masks pass through.
 * Answers 400 naming the field and why; the message never repeats a secret (URL fields are not secret).
 */
export async function checkUrlFields(
  deps: AppDeps,
  info: ProviderInfo,
  keys: KeyValue[],
  existing?: ConnectionRow,
): Promise<KeyValue[]> {
  const urlFields = new Set(info.fields.filter((f) => f.url).map((f) => f.name));
  const out: KeyValue[] = [];
  for (const k of keys) {
    const stored = existing && urlFields.has(k.name) ? openField(deps, existing, k.name) : undefined;
    if (!urlFields.has(k.name) || k.value === '' || (stored !== undefined && k.value === maskValue(stored))) {
      out.push(k);
      continue;
    }
    const normalized = normalizeBaseUrl(k.value);
    if (normalized === null) {
      const message = PROVIDER_MESSAGES.urlRefused(k.name, PROVIDER_MESSAGES.urlInvalid);
      throw new HttpError(400, message, { errors: { [k.name]: PROVIDER_MESSAGES.urlInvalid } });
    }
    try {
      await assertPublicUrl(normalized, { allowPrivate: deps.config.allowPrivateProviderUrls === true });
    } catch (e) {
      if (!(e instanceof UnsafeUrlError)) throw e;
      throw new HttpError(400, PROVIDER_MESSAGES.urlRefused(k.name, e.message), { errors: { [k.name]: e.message } });
    }
    out.push({ name: k.name, value: normalized });
  }
  return out;
}

/**
 * The plain value of one credential field of a company's connected provider, for server-side use only
 * (for example calling ElevenLabs with the company's key). Null when the provider is not connected.
 * Never return it to a client or log it.
 */
export async function getProviderSecret(
  deps: Pick<AppDeps, 'db' | 'secrets'>,
  companyId: string,
  provider: string,
  field: string,
): Promise<string | null> {
  const secrets = await storedSecrets(deps, companyId, provider);
  if (secrets === undefined) return null;
  const stored: Record<string, string> = JSON.parse(secrets);
  if (!Object.hasOwn(stored, field) || typeof stored[field] !== 'string') return null;
  return decryptSecret(deps.secrets.masterKey, stored[field], { companyId, provider, field });
}
