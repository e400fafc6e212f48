import type { Hono } from 'hono';
import type { AppDeps } from '../platform/deps.js';
import type { AppEnv } from '../platform/http/types.js';
import { agentRoutes } from './agents/agent.routes.js';
import { accountRoutes } from './auth/account.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { batchCallRoutes } from './batches/batch-call.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { callRoutes } from './calls/call.routes.js';
import { companyRoutes } from './company/company.routes.js';
import { contactRoutes } from './contact/contact.routes.js';
import { chatRoutes } from './conversations/chat.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { knowledgeBaseRoutes } from './knowledge/kb.routes.js';
import { numberRoutes } from './numbers/number.routes.js';
import { phoneRoutes } from './numbers/phone.routes.js';
import { requestRoutes } from './numbers/request.routes.js';
import { userRoutes } from './providers/catalogue.routes.js';
import { providerRoutes } from './providers/provider.routes.js';
import { telephonyRoutes } from './telephony/telephony.routes.js';
import { voiceRoutes } from './voices/voice.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';

/** One `api.route()` per resource. Each resource lives in server/routes/<resource>/. */
export function registerRoutes(api: Hono<AppEnv>, deps: AppDeps): void {
  api.route('/account', accountRoutes(deps));
  api.route('/agent', agentRoutes(deps));
  api.route('/auth', authRoutes(deps));
  api.route('/contact', contactRoutes(deps));
  api.route('/files', filesRoutes(deps));
  api.route('/company', companyRoutes(deps));
  // the spec's unused GET /provider/voices answers like GET /voices (mounted before /provider)
  api.route('/provider/voices', voiceRoutes(deps));
  api.route('/provider', providerRoutes(deps));
  api.route('/user', userRoutes(deps));
  api.route('/batch-call', batchCallRoutes(deps));
  api.route('/billing', billingRoutes(deps));
  api.route('/phone', phoneRoutes(deps));
  api.route('/request', requestRoutes(deps));
  api.route('/number', numberRoutes(deps));
  api.route('/call', callRoutes(deps));
  api.route('/chat', chatRoutes(deps));
  api.route('/knowledge-base', knowledgeBaseRoutes(deps));
  api.route('/voices', voiceRoutes(deps));
  api.route('/telephony', telephonyRoutes(deps));
  api.route('/webhook', webhookRoutes(deps));
}
