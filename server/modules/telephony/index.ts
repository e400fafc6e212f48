/**
 * Phone calls over the carriers (/telephony webhooks, POST /call/create, the carrier media streams), and the carriers
 * asked about calls in flight at start.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */

export { numberImportRoutes } from './import.routes.js';
export { restoreCarrierNumber } from './imports.js';
export { MessageRefused, sendText, TEXT_MAX_CHARS, TEXT_MESSAGES } from './messages.js';
export { phoneCallRoutes } from './phone-call.routes.js';
export { askCarriersAboutCalls } from './recovery.js';
export { createPhoneCall, endUnanswered, liveCalls, requireConnectedCarrier } from './service.js';
export { carrierSocketRoute } from './stream.routes.js';
export { telephonyRoutes } from './telephony.routes.js';
