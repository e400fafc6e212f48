import type { Hono } from 'hono';
import type { AppDeps } from '../lib/deps.js';
import type { AppEnv } from '../types.js';
import { accountRoutes } from './account/account.routes.js';
import { agentRoutes } from './agent/agent.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { batchCallRoutes } from './batch-call/batch-call.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { callRoutes } from './call/call.routes.js';
import { chatRoutes } from './chat/chat.routes.js';
import { companyRoutes } from './company/company.routes.js';
import { contactRoutes } from './contact/contact.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { knowledgeBaseRoutes } from './knowledge-base/kb.routes.js';
import { numberRoutes } from './number/number.routes.js';
import { phoneRoutes } from './phone/phone.routes.js';
import { providerRoutes } from './provider/provider.routes.js';
import { requestRoutes } from './request/request.routes.js';
import { telephonyRoutes } from './telephony/telephony.routes.js';
import { userRoutes } from './user/user.routes.js';
import { voiceRoutes } from './voice/voice.routes.js';
import { webhookRoutes } from './webhook/webhook.routes.js';

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
