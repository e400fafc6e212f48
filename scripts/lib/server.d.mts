export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  /** ms from spawn until /api/v1/health answered */
  readyMs: number;
  output(): string;
  stop(): Promise<void>;
}
export function freePort(): Promise<number>;
export function startServer(options?: { timeoutMs?: number; env?: Record<string, string> }): Promise<RunningServer>;
