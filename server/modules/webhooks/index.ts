/** The webhooks module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { subscribeWebhooks } from './events.js';
export { checkWebhookUrl, webhookRoutes } from './webhook.routes.js';
export { createWebhookWorker } from './worker.js';
