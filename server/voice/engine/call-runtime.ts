import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps, CallEngine } from '../../platform/deps.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { TOOL_KINDS } from '../tools/registry.js';
import type { ToolKinds } from '../tools/runner.js';
import type { Conversation } from './conversation.js';

/**
 * The call engine of this server: its providers, the live conversations and the call sockets. Built once
 * per app (server/main.ts; the tests' buildTestApp) and held as `deps.calls`, which the ground floor
 * types as a `CallEngine` (server/platform/deps.ts); `callRuntimeOf(deps)` below gives it back
 * as this class.
 */
export class CallRuntime implements CallEngine {
  /** live conversations of this server, by call id */
  readonly live = new Map<string, Conversation>();
  /** web calls running here until they are stored (shutdown waits for them) */
  readonly running = new Set<Promise<void>>();
  /** chat turns running here, by chat id (a turn the tester stopped is put away before the next one starts) */
  readonly chats = new Map<string, ChatTurn>();
  /** call sockets (browsers, carrier streams) open on this server, by company (server/call-sockets.ts caps them) */
  readonly openSockets = new Map<string, number>();
  /** the function types calls can run (server/voice/tools/registry.ts; tests put their own) */
  toolKinds: ToolKinds = TOOL_KINDS;

  constructor(
    readonly providers: ProviderRegistry,
    /** this server's id (which server holds a live call) */
    readonly serverId: string,
  ) {}
}

export interface ChatTurn {
  /** the tester stopped the reply: the turn is being put away */
  stopped: boolean;
  /** resolves once the turn is stored and the chat unlocked */
  finished: Promise<void>;
}

/** `serverId`: the id this server keeps across restarts (server/modules/conversations/recovery.ts serverIdOf), else a new one. */
export function createCallRuntime(providers: ProviderRegistry, serverId = `srv-${newId()}`): CallRuntime {
  return new CallRuntime(providers, serverId);
}

/**
 * The call engine of this server, or undefined when it runs without one. `deps.calls` is typed by the
 * ground floor as a `CallEngine` (server/platform/deps.ts imports nothing above it); the engine it holds
 * is always a CallRuntime, built by createCallRuntime.
 */
export function callRuntimeOf(deps: Pick<AppDeps, 'calls'>): CallRuntime | undefined {
  if (deps.calls === undefined) return undefined;
  if (!(deps.calls instanceof CallRuntime)) throw new Error('deps.calls is not a CallRuntime (createCallRuntime builds one)');
  return deps.calls;
}
