export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  /** ms from spawn until /api/v1/health answered */
  readyMs: number;
  /** the server process */
  pid: number;
  output(): string;
  stop(): Promise<void>;
}
export function freePort(): Promise<number>;
export function startServer(options?: {
  timeoutMs?: number;
  env?: Record<string, string>;
  /** an existing DATA_DIR to serve (removed on stop), instead of a fresh one */
  dataDir?: string;
}): Promise<RunningServer>;
