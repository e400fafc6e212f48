/**
 * The classification of every endpoint the server registers, for the tenant-isolation and fuzzing suites.
 * A test enumerates the Hono app's routes and fails when one is missing here (or listed here but gone).
 *
 * - `byId`: takes the id of a company's row in its path: another company's id must answer 404 or 403.
 * - `list`: answers the caller's company data without an id: it must never contain a foreign row.
 * - `create`: makes a row for the caller's company from a body: a `companyId`, `accountId` or `role` in the
 *   body is ignored (the row belongs to the caller).
 * - `public` / `self`: no company data by id; the reason says why.
 */

export type RouteClass =
  | { kind: 'byId'; body?: 'agent' | 'number' | 'provider' | 'csv' | 'schedule' | 'rules' | 'password' | 'message' }
  | { kind: 'list'; query?: Record<string, string> }
  | {
      kind: 'create';
      body: 'agent' | 'number' | 'request' | 'provider' | 'batch' | 'kb' | 'company' | 'limits' | 'contact' | 'conversation';
    }
  | { kind: 'public'; reason: string }
  | { kind: 'self'; reason: string };

export const ROUTES: Record<string, RouteClass> = {
  'GET /api/v1/health': { kind: 'public', reason: 'database liveness, no company data' },
  'POST /api/v1/client/not-found': { kind: 'public', reason: 'logs a client-side 404 path; reads and writes no row' },
  'POST /api/v1/account/register': { kind: 'public', reason: 'creates a new company of its own' },
  'POST /api/v1/account/login': { kind: 'public', reason: 'credentials, no id' },
  'PUT /api/v1/account/login': { kind: 'self', reason: "changes the caller's own password (account from the token)" },
  'GET /api/v1/account/me': { kind: 'list' },
  'GET /api/v1/account/logout': { kind: 'self', reason: "revokes the caller's own session (from the token)" },
  'POST /api/v1/account/forgotpassword': { kind: 'public', reason: 'same answer for every email; no data returned' },
  'POST /api/v1/account/resetpassword': { kind: 'public', reason: 'a secret single-use token, no id' },
  'POST /api/v1/auth/refresh': { kind: 'public', reason: 'a refresh token, no id (tokens suite)' },
  'POST /api/v1/contact': { kind: 'public', reason: 'stores a contact message, no company data' },
  'GET /api/v1/files/:name': {
    kind: 'public',
    reason: '<img> cannot send a bearer token; names are 144 random bits, served inert (uploads suite)',
  },
  'GET /api/v1/batch-call/template.csv': { kind: 'public', reason: 'a fixed template, no data' },
  'ALL /api/*': { kind: 'public', reason: 'the JSON 404 for unknown API paths' },

  'GET /api/v1/agent': { kind: 'list', query: { limit: '100' } },
  'POST /api/v1/agent': { kind: 'create', body: 'agent' },
  'GET /api/v1/agent/:id': { kind: 'byId' },
  'PUT /api/v1/agent/:id': { kind: 'byId', body: 'agent' },
  'DELETE /api/v1/agent/:id': { kind: 'byId' },
  'POST /api/v1/agent/mcp-tools': {
    kind: 'self',
    reason:
      "lists an MCP server's tools; masked header values come only from the caller's own agent (another company's agent_id answers 404); stores nothing",
  },

  'GET /api/v1/company': { kind: 'list' },
  'POST /api/v1/company': { kind: 'create', body: 'company' },
  'DELETE /api/v1/company/:id': { kind: 'byId', body: 'password' },
  'GET /api/v1/company/settings': { kind: 'list' },
  'GET /api/v1/audit-log': { kind: 'list' },
  'PUT /api/v1/company/settings': { kind: 'self', reason: "changes the caller's own company settings (company from the token)" },

  'GET /api/v1/provider/voices': { kind: 'list' },
  'GET /api/v1/voices': { kind: 'list' },
  'GET /api/v1/provider': { kind: 'list' },
  'GET /api/v1/provider/fields': { kind: 'list', query: { name: 'twilio' } },
  'POST /api/v1/provider/values': { kind: 'create', body: 'provider' },
  'DELETE /api/v1/provider/disconnect': {
    kind: 'self',
    reason: "a provider name, scoped to the caller's company (the snapshot shows the other company keeps its)",
  },
  'PUT /api/v1/provider/:id': { kind: 'byId', body: 'provider' },
  'GET /api/v1/user/providers': { kind: 'list' },
  'POST /api/v1/provider/check': {
    kind: 'self',
    reason: "checks the caller's company's own card of a tool provider against that provider (a name, not an id); stores nothing",
  },

  'GET /api/v1/batch-call': { kind: 'list' },
  'POST /api/v1/batch-call': { kind: 'create', body: 'batch' },
  'GET /api/v1/batch-call/:id': { kind: 'byId' },
  'PATCH /api/v1/batch-call/:id': { kind: 'byId', body: 'rules' },
  'GET /api/v1/batch-call/:id/recipients': { kind: 'byId' },
  'POST /api/v1/batch-call/:id/recipients': { kind: 'byId', body: 'csv' },
  'POST /api/v1/batch-call/:id/send': { kind: 'byId' },
  'POST /api/v1/batch-call/:id/schedule': { kind: 'byId', body: 'schedule' },
  'POST /api/v1/batch-call/:id/cancel': { kind: 'byId' },
  'POST /api/v1/batch-call/:id/pause': { kind: 'byId' },
  'POST /api/v1/batch-call/:id/resume': { kind: 'byId' },
  'POST /api/v1/batch-call/:id/recipients/export': { kind: 'byId' },
  // with a bearer token, or the signed link of recipients/export (HMAC of batch, company and expiry): another
  // company's batch answers 404 either way (tests/server/batch-progress.test.ts)
  'GET /api/v1/batch-call/:id/recipients.csv': { kind: 'byId' },

  'GET /api/v1/billing/statements': { kind: 'list' },
  'GET /api/v1/billing/statements/:id': {
    kind: 'self',
    reason: "the id is a month (yyyy-MM) of the caller's own statements; checked as a list below",
  },
  'GET /api/v1/billing/usage': { kind: 'list', query: { month: '2026-10' } },
  'GET /api/v1/billing/limits': { kind: 'list' },
  // the body's allowedCountries (ISO 3166 alpha-2) are the caller's company's destination policy
  'PUT /api/v1/billing/limits': { kind: 'create', body: 'limits' },
  'GET /api/v1/billing/contact': { kind: 'list' },
  'PUT /api/v1/billing/contact': { kind: 'create', body: 'contact' },

  'GET /api/v1/phone/free': { kind: 'list', query: { limit: '100' } },
  'GET /api/v1/phone/assigned': { kind: 'list', query: { limit: '100' } },
  'GET /api/v1/phone/telephony-status': {
    kind: 'self',
    reason: "whether the caller's own company's carrier callbacks can reach this server (company from the token)",
  },
  'POST /api/v1/request': { kind: 'create', body: 'request' },

  'GET /api/v1/number': { kind: 'list', query: { limit: '100' } },
  'POST /api/v1/number/create': { kind: 'create', body: 'number' },
  'GET /api/v1/number/import/:provider': {
    kind: 'self',
    reason:
      "lists the numbers of the caller's company's own carrier account (its Providers card; none connected: 400); the path names a carrier, not a row",
  },
  'POST /api/v1/number/import': {
    kind: 'self',
    reason:
      "imports numbers of the caller's company's own carrier account (each checked against that account's listing: 400 otherwise; one already on the platform: 409); the rows are the caller's company's",
  },
  'GET /api/v1/number/:id': { kind: 'byId' },
  'PUT /api/v1/number/:id': { kind: 'byId', body: 'number' },
  'DELETE /api/v1/number/:id': { kind: 'byId' },

  'GET /api/v1/call': { kind: 'list', query: { limit: '100' } },
  'GET /api/v1/call/analytics': { kind: 'list' },
  'POST /api/v1/call/web': { kind: 'create', body: 'conversation' },
  'POST /api/v1/call/create': {
    kind: 'self',
    reason:
      "dials from one of the caller's own numbers with the caller's own agent: another company's number or agent_id answers 404 (tests/server/telephony/twilio.test.ts); only to the caller's company's allowed countries, never a blocked range: 403 (tests/server/telephony/destinations.test.ts)",
  },
  'POST /api/v1/telephony/twilio/voice': {
    kind: 'public',
    reason:
      "Twilio's webhook: refused with 403 unless signed with the Auth Token of the company owning the number called; a replay answers the same TwiML, one call per CallSid (tests/server/telephony/replay.test.ts)",
  },
  'POST /api/v1/telephony/twilio/status/:id': {
    kind: 'public',
    reason: "Twilio's status callback: refused with 403 unless signed with the Auth Token of the call's company",
  },
  'POST /api/v1/telephony/plivo/answer': {
    kind: 'public',
    reason:
      "Plivo's answer webhook: refused with 403 unless signed (V3) with the Auth Token of the company owning the number, with a nonce never seen before (tests/server/telephony/replay.test.ts)",
  },
  'POST /api/v1/telephony/plivo/answer/:id': {
    kind: 'public',
    reason: "Plivo's answer callback of an outbound call: refused with 403 unless signed with the call's company's Auth Token",
  },
  'POST /api/v1/telephony/plivo/status/:id': {
    kind: 'public',
    reason: "Plivo's hangup and machine-detection callbacks: refused with 403 unless signed with the call's company's Auth Token",
  },
  'POST /api/v1/telephony/twilio/status': {
    kind: 'public',
    reason:
      "an imported number's status callback: the call is the number's company's call with the CallSid given, then checked like its own callback (403 unless signed with that company's Auth Token; tests/server/telephony/import-numbers.test.ts)",
  },
  'POST /api/v1/telephony/plivo/status': {
    kind: 'public',
    reason:
      "an imported Plivo number's application hangup callback: found by the company owning the number called and the CallUUID, 403 unless signed (V3) with that company's Auth Token",
  },
  'POST /api/v1/telephony/plivo/xml/:id': {
    kind: 'public',
    reason: "XML a live Plivo call is transferred to: refused with 403 unless signed with the call's company's Auth Token",
  },
  'GET /api/v1/call/:id': { kind: 'byId' },
  'DELETE /api/v1/call/:id': { kind: 'byId' },
  'GET /api/v1/call/:id/recording': {
    kind: 'public',
    reason:
      '<audio> cannot send a bearer token: a signed URL (HMAC of call, company and expiry; an hour) authorises it; any other id or token answers 404 (tests/server/call)',
  },
  'POST /api/v1/call/export': {
    kind: 'self',
    reason: "a download link signed for the caller's company (from the token); no id, no row written",
  },
  'GET /api/v1/call/export/download': {
    kind: 'public',
    reason:
      'a plain download link cannot send a bearer token: the signed token (HMAC of company and expiry, 5 minutes) names the company; a forged or expired one answers 404 (tests/server/call-export.test.ts)',
  },
  'GET /api/v1/webhook': { kind: 'list' },
  'PUT /api/v1/webhook': { kind: 'self', reason: "the caller's own company's webhook URL (company from the token)" },
  'POST /api/v1/webhook/secret': { kind: 'self', reason: "rotates the caller's own company's signing secret" },
  'GET /api/v1/webhook/deliveries': { kind: 'list' },
  'GET /api/v1/webhook/deliveries/:id': { kind: 'byId' },
  'POST /api/v1/webhook/deliveries/:id/resend': { kind: 'byId' },
  'POST /api/v1/chat': { kind: 'create', body: 'conversation' },
  'GET /api/v1/chat/:id': { kind: 'byId' },
  'POST /api/v1/chat/:id/message': { kind: 'byId', body: 'message' },
  'POST /api/v1/chat/:id/end': { kind: 'byId' },
  'POST /api/v1/voices/preview': {
    kind: 'self',
    reason: "speaks with the caller's own agent (another company's agent_id answers 404) or the payload sent; stores nothing",
  },
  'POST /api/v1/provider/voices/preview': { kind: 'self', reason: 'the same route as POST /voices/preview (alias mount)' },

  'GET /api/v1/knowledge-base': { kind: 'list' },
  'GET /api/v1/knowledge-base/:id': { kind: 'byId' },
  'POST /api/v1/knowledge-base': { kind: 'create', body: 'kb' },
  'DELETE /api/v1/knowledge-base/:id': { kind: 'byId' },
};

/** The keys a client might add to grab another company's rows; the server must ignore every one. */
export const INJECTED_KEYS = ['companyId', 'company_id', 'company', 'accountId', 'account_id', 'account', 'role', 'cid', 'sub'];

export const splitRoute = (key: string) => {
  const [method, path] = key.split(' ') as [string, string];
  return { method, path };
};
