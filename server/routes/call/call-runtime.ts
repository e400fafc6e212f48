import type { CallRuntime } from '../../call/service.js';
import type { AppDeps } from '../../lib/deps.js';
import { HttpError } from '../../lib/http.js';

/** The call engine, or 503 when this server runs without one. */
export function callRuntime(deps: AppDeps): CallRuntime {
  if (!deps.calls) throw new HttpError(503, 'Calls are not available on this server.');
  return deps.calls;
}
