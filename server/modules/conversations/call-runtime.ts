import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import type { CallRuntime } from './runtime.js';

/** The call engine, or 503 when this server runs without one. */
export function callRuntime(deps: AppDeps): CallRuntime {
  if (!deps.calls) throw new HttpError(503, 'Calls are not available on this server.');
  return deps.calls;
}
