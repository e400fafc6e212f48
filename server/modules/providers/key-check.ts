/**
 * The key check of Connect and Update: before a card is saved, its credentials are tried with the
 * provider's cheapest authenticated request (the provider's own `KeyCheck`: a voice provider's descriptor,
 * server/voice/providers/<id>/index.ts; a carrier, server/carriers/<id>/index.ts; a tool provider,
 * server/voice/tools/key-checks.ts; Smallest, server/voice/providers/smallest/key-check.ts).
 *
 * - The provider refuses them (401/403, or its documented refusal): 400 with the provider's reason, and
 *   `errors` naming the field it belongs to; nothing is saved.
 * - The provider cannot say (unreachable, a timeout, a 5xx, a rate limit): the card is saved and the answer
 *   carries `warning`.
 * The API base is the one the calls use: the server's (OPENAI_BASE_URL, DEEPGRAM_API_URL, TWILIO_API_URL...),
 * or the company's own Base URL (OpenAI's), reached only at public addresses unless the server allows
 * private provider URLs. Plain values stay in memory; nothing here logs them.
 */
import type { ProviderInfo, ProviderName } from '@contract/provider.js';
import { carriers } from '../../carriers/registry.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { normalizeBaseUrl } from '../../platform/net/base-url.js';
import { type KeyCheck, type KeyCheckOutcome, runKeyCheck } from '../../platform/net/key-check.js';
import { callRuntimeOf } from '../../voice/engine/call-runtime.js';
import { createProviderRegistry } from '../../voice/providers/registry.js';
import { SMALLEST_API_URL, smallestKeyCheck } from '../../voice/providers/smallest/key-check.js';
import { TOOL_KEY_CHECKS } from '../../voice/tools/key-checks.js';
import { toolUrlsOf } from '../../voice/tools/tool-urls.js';
import { isCheckedToolProvider } from '../../voice/tools/verify.js';

const builtIn = createProviderRegistry();

/** The check of `name` and the server's API base for it; undefined for a provider that brings none. */
export function keyCheckOf(deps: AppDeps, name: ProviderName): { check: KeyCheck; base: string } | undefined {
  const configured = deps.config.providerUrls[name];
  const descriptor = callRuntimeOf(deps)?.providers.descriptor(name) ?? builtIn.descriptor(name);
  if (descriptor?.keyCheck) return { check: descriptor.keyCheck, base: configured ?? descriptor.url.default };
  const carrier = carriers.get(name);
  if (carrier) {
    const urls = deps.config.telephonyUrls as Record<string, string | undefined> | undefined;
    return { check: carrier.keyCheck, base: urls?.[name] ?? carrier.apiUrl };
  }
  if (isCheckedToolProvider(name)) return { check: TOOL_KEY_CHECKS[name], base: configured ?? (toolUrlsOf()[name] as string) };
  if (name === 'smallest') return { check: smallestKeyCheck, base: configured ?? SMALLEST_API_URL.default };
  return undefined;
}

/** What the check leaves to the answer: nothing, or the warning of a card saved unchecked. */
export interface KeyCheckVerdict {
  warning?: string;
}

export const KEY_CHECK_MESSAGES = {
  refused: (label: string, reason: string) => `${label} refused the key: ${reason}`,
  unreachable: (label: string) => `Could not reach ${label} to check the key; saved anyway.`,
  timeout: (label: string) => `${label} did not answer the key check in time; saved anyway.`,
  status: (label: string, status: number) => `${label} answered ${status} to the key check; saved anyway.`,
} as const;

/**
 * Tries the credentials `values` (plain, by field name; the card as it will be saved) of `info`. Throws
 * HttpError 400 when the provider refuses them; answers a warning when it could not say.
 */
export async function checkKeys(deps: AppDeps, info: ProviderInfo, values: Record<string, string>): Promise<KeyCheckVerdict> {
  const found = keyCheckOf(deps, info.name);
  if (!found) return {};
  // a company's own API base (OpenAI's Base URL) is where its calls go, so it is where the key is tried
  const urlField = info.fields.find((f) => f.url);
  const own = urlField ? values[urlField.name] : undefined;
  const ownBase = own ? normalizeBaseUrl(own) : null;
  const outcome: KeyCheckOutcome = await runKeyCheck(found.check, {
    baseUrl: ownBase ?? found.base,
    publicOnly: ownBase !== null && deps.config.allowPrivateProviderUrls !== true,
    values,
  });
  deps.logger.info('provider key checked', {
    provider: info.name,
    outcome: outcome.kind,
    ...(outcome.kind === 'refused' ? { status: outcome.status, field: outcome.field } : {}),
    ...(outcome.kind === 'unknown' ? { why: outcome.why, status: outcome.status } : {}),
  });
  if (outcome.kind === 'accepted') return {};
  if (outcome.kind === 'refused') {
    throw new HttpError(400, KEY_CHECK_MESSAGES.refused(info.label, outcome.reason), {
      errors: { [outcome.field]: outcome.reason },
    });
  }
  if (outcome.why === 'status') return { warning: KEY_CHECK_MESSAGES.status(info.label, outcome.status ?? 0) };
  if (outcome.why === 'timeout') return { warning: KEY_CHECK_MESSAGES.timeout(info.label) };
  return { warning: KEY_CHECK_MESSAGES.unreachable(info.label) };
}
