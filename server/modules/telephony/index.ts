/** The telephony module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { phoneCallRoutes } from './phone-call.routes.js';
export { acceptPlivoStream, runPlivoCall } from './plivo-service.js';
export { askCarriersAboutCalls } from './recovery.js';
export { acceptTwilioStream, createPhoneCall, endUnanswered, liveCalls, runTwilioCall } from './service.js';
export { telephonyRoutes } from './telephony.routes.js';
