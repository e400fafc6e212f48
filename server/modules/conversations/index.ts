/**
 * Running conversations: the call runtime (chats, web calls, phone lines), limits, call sessions, recovery and the
 * call sweeper (/chat, POST /call/web).
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { announceCall } from './call-events.js';
export { callRuntime } from './call-runtime.js';
export { chatRoutes } from './chat.routes.js';
export { liveCalls, overSpend, refuseOverSpend, reserveLine, takeLine } from './limits.js';
export { recoverOwnCalls, serverIdOf } from './recovery.js';
export {
  type Caller,
  type CallRuntime,
  createCallRuntime,
  emptyUsage,
  keysFor,
  previewVoice,
  runLineCall,
  runWebCall,
  settleCalls,
  takeWebCall,
} from './runtime.js';
export {
  type CallSessionRow,
  claimCallToken,
  createCallSession,
  finishCallSession,
  getCallSession,
  hashToken,
  newToken,
} from './session.repo.js';
export { type AcceptedCall, type SocketRoute, webCallSocketRoute } from './socket-route.js';
export { startCallSweeper } from './sweep.js';
export { webCallRoutes } from './web-call.routes.js';
