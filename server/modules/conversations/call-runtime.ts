import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { type CallRuntime, callRuntimeOf } from '../../voice/engine/call-runtime.js';

/** The call engine, or 503 when this server runs without one. */
export function callRuntime(deps: AppDeps): CallRuntime {
  const rt = callRuntimeOf(deps);
  if (!rt) throw new HttpError(503, 'Calls are not available on this server.');
  return rt;
}
