import { API_BASE_URL } from './client';

/**
 * Fire-and-forget report of a path that matched no route (the 404 page), so operators see broken
 * links. Plain fetch on purpose: logging must never toast, retry or refresh tokens.
 */
export function reportNotFound(path: string): void {
  console.warn(`Page not found: ${path}`);
  try {
    void fetch(`${API_BASE_URL}/client/not-found`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: path.slice(0, 2048) }),
      keepalive: true,
    }).catch(() => {});
  } catch {
    // reporting is best effort
  }
}
