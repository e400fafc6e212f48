import type { Hono } from 'hono';
import type { AppDeps } from '../lib/deps.js';
import type { AppEnv } from '../types.js';

/** One `api.route()` per resource. Each resource lives in server/routes/<resource>/. */
export function registerRoutes(api: Hono<AppEnv>, deps: AppDeps): void {
  void api;
  void deps;
}
