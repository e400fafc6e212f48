/**
 * Webhooks (/webhook): the outbox, its worker, and the subscriptions to call and batch events.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { subscribeWebhooks } from './events.js';
/** the company's signing secret: custom functions are signed with it like webhooks (conversations/tool-services.ts) */
export { signingSecret } from './outbox.js';
export { checkWebhookUrl, webhookRoutes } from './webhook.routes.js';
export { createWebhookWorker } from './worker.js';
