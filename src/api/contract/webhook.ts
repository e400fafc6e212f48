/**
 * Contract of webhooks. Imported by the client AND the server.
 *
 * - `GET /webhook` -> {success, data: WebhookSettings}: the company-wide URL and whether a signing secret
 *   exists (its last 4 characters only; the secret itself is shown once).
 * - `PUT /webhook` {url} -> the settings; '' removes the company-wide webhook. A URL resolving to a
 *   loopback, private, link-local or metadata address is refused (400) unless ALLOW_PRIVATE_WEBHOOK_URLS.
 * - `POST /webhook/secret` -> {success, msg, data: {secret}}: makes a new signing secret (the old one stops
 *   working at once); this answer is the only time it is shown.
 * - `GET /webhook/deliveries?page=&limit=&webhook=` -> the delivery log, newest first; `webhook` is
 *   'company' or an agent id.
 * - `GET /webhook/deliveries/{id}` -> one delivery with its request and response bodies (cut at 8 KB).
 * - `POST /webhook/deliveries/{id}/resend` -> a new delivery of the same body to the same URL. Limited: one
 *   Resend of a delivery per `WEBHOOK_RESEND_INTERVAL_SECONDS` (60) and `WEBHOOK_RESENDS_PER_MINUTE` (20) per
 *   company; over either, 429 with `Retry-After` and a sentence saying which (WEBHOOK_MESSAGES).
 *
 * Every delivery: `POST` JSON `{event, call}` (or `{event, batch}`), headers `Content-Type:
 * application/json`, `X-Parley-Event`, `X-Parley-Delivery` (the delivery id, the same on every attempt) and
 * `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 */
import * as v from 'valibot';

export const WEBHOOK_EVENTS = ['call_started', 'call_ended', 'call_analyzed', 'batch_completed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const SIGNATURE_HEADER = 'X-Parley-Signature';
/** Request and response bodies kept in the delivery log are cut at this many bytes. */
export const DELIVERY_BODY_MAX = 8 * 1024;
export const WEBHOOK_URL_MAX = 2048;

export const WEBHOOK_MESSAGES = {
  saved: 'Webhook saved.',
  removed: 'Webhook removed.',
  secretCreated: 'A new signing secret was created. Copy it now: it will not be shown again.',
  invalidUrl: 'Enter a valid URL starting with http:// or https://',
  urlRefused: (why: string) => `Webhook URL: ${why}`,
  deliveryNotFound: 'Delivery not found',
  resent: 'The delivery was queued again.',
  resendTooSoon: (retryAfterS: number) =>
    `This delivery was resent a moment ago. You can resend it again in ${waitText(retryAfterS)}.`,
  resendLimit: (max: number, retryAfterS: number) =>
    `Your company resent ${max} deliveries in the last minute, the most allowed. Please try again in ${waitText(retryAfterS)}.`,
} as const;

/** A wait in words: '42 seconds' under a minute, else whole minutes rounded up ('1 minute', '5 minutes'). */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

export const WebhookUrlBodySchema = v.object({
  url: v.pipe(
    v.string(WEBHOOK_MESSAGES.invalidUrl),
    v.trim(),
    v.maxLength(WEBHOOK_URL_MAX, WEBHOOK_MESSAGES.invalidUrl),
    v.check((s) => {
      if (s === '') return true;
      try {
        const u = new URL(s);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, WEBHOOK_MESSAGES.invalidUrl),
  ),
});
export type WebhookUrlBody = v.InferOutput<typeof WebhookUrlBodySchema>;

/** A webhook the company has: 'company' (the company-wide URL) or an agent's id (its 'Agent Level Webhook'). */
export const WebhookRefSchema = v.object({ id: v.string(), label: v.string(), url: v.string() });
export type WebhookRef = v.InferOutput<typeof WebhookRefSchema>;

export const WebhookSettingsSchema = v.object({
  url: v.string(),
  /** every webhook of the company, for the delivery log's filter: the company's first, then the agents' */
  webhooks: v.array(WebhookRefSchema),
  has_secret: v.boolean(),
  /** last 4 characters of the secret, or null */
  secret_hint: v.nullable(v.string()),
});
export type WebhookSettings = v.InferOutput<typeof WebhookSettingsSchema>;

export const DeliveryListQuerySchema = v.object({
  page: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1)), '1'),
  limit: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(100)), '20'),
  webhook: v.optional(v.pipe(v.string(), v.maxLength(64))),
});

export const DeliverySchema = v.object({
  _id: v.string(),
  /** 'company' or 'agent' */
  webhook: v.string(),
  agent_id: v.nullable(v.string()),
  url: v.string(),
  event: v.string(),
  call_id: v.nullable(v.string()),
  status: v.picklist(DELIVERY_STATUSES),
  attempts: v.number(),
  status_code: v.nullable(v.number()),
  duration_ms: v.nullable(v.number()),
  error: v.nullable(v.string()),
  /** the last attempt's time, else the creation time */
  time: v.string(),
  next_attempt_at: v.nullable(v.string()),
});
export type Delivery = v.InferOutput<typeof DeliverySchema>;

export const DeliveryDetailSchema = v.object({
  ...DeliverySchema.entries,
  request_body: v.nullable(v.string()),
  response_body: v.nullable(v.string()),
});
export type DeliveryDetail = v.InferOutput<typeof DeliveryDetailSchema>;

export const WEBHOOK_PATHS = {
  settings: '/webhook',
  secret: '/webhook/secret',
  deliveries: '/webhook/deliveries',
  delivery: (id: string) => `/webhook/deliveries/${encodeURIComponent(id)}`,
  resend: (id: string) => `/webhook/deliveries/${encodeURIComponent(id)}/resend`,
} as const;

// ---------------------------------------------------------------------------------------------
// Responses

export const WebhookSettingsResponseSchema = v.object({ success: v.literal(true), data: WebhookSettingsSchema });
export const WebhookSaveResponseSchema = v.object({ success: v.literal(true), msg: v.string(), data: WebhookSettingsSchema });
export const WebhookSecretResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  data: v.object({ secret: v.string(), secret_hint: v.string() }),
});
export const DeliveryListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ deliveries: v.array(DeliverySchema), total: v.number() }),
});
export type DeliveryListResponse = v.InferOutput<typeof DeliveryListResponseSchema>;
export const DeliveryDetailResponseSchema = v.object({ success: v.literal(true), data: DeliveryDetailSchema });
export const DeliveryResendResponseSchema = v.object({ success: v.literal(true), msg: v.string(), data: DeliverySchema });
