/** Provider API addresses from a normalised base (server/platform/net/base-url.ts). */

/** `{base}{path}` for HTTP. */
export const httpUrl = (base: string, path: string) => `${base}${path}`;

/** The WebSocket address of `path` under an http(s) base: https -> wss, http -> ws. */
export const wsUrl = (base: string, path: string) => `${base.replace(/^http/, 'ws')}${path}`;
