/** The conversations module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
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
export { startCallSweeper } from './sweep.js';
export { webCallRoutes } from './web-call.routes.js';
