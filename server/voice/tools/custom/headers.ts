/**
 * The headers of a custom function or MCP server: their values are secrets. The agents module stores each
 * value sealed with the master key (envelope encryption, server/platform/crypto/secrets.ts) bound to the
 * company, and answers them to the browser as SECRET_MASK; a tool opens them here, in memory, when it runs.
 * An empty value stays empty (nothing to hide, and the editor shows it needs entering).
 */
import type { FunctionHeader } from '@contract/agent/functions.js';
import { decryptSecret, encryptSecret, type SecretContext } from '../../../platform/crypto/secrets.js';
import { ToolError } from '../types.js';

/** Bound to the company: a sealed value copied into another company's agent does not open. */
export const headerSecretContext = (companyId: string): SecretContext => ({
  companyId,
  provider: 'agent-function',
  field: 'header',
});

export function sealHeaderValue(masterKey: Uint8Array, companyId: string, value: string): string {
  return value === '' ? '' : encryptSecret(masterKey, value, headerSecretContext(companyId));
}

/** Header names Parley sets itself (or the HTTP client does): a function's own header of that name is dropped. */
const RESERVED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'x-parley-signature']);

/**
 * The function's headers as they are sent: values opened, names lower-cased, empty values and the names
 * Parley sets itself left out. A value that does not open (another company's, a damaged one) is a ToolError
 * the model is told about, never the value.
 */
export function openHeaders(
  masterKey: Uint8Array,
  companyId: string,
  headers: readonly FunctionHeader[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) {
    const name = h.name.toLowerCase();
    if (h.value === '' || RESERVED.has(name)) continue;
    try {
      out[name] = decryptSecret(masterKey, h.value, headerSecretContext(companyId));
    } catch {
      throw new ToolError(`The ${h.name} header of this function could not be read; enter its value again in the editor.`);
    }
  }
  return out;
}
