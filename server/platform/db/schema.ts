/**
 * Typed tables. Timestamps are ISO-8601 strings (UTC) and booleans are 0/1 integers so the same
 * queries run on SQLite and PostgreSQL. JSON documents are stored as text.
 */
import type { ColumnType, Generated } from 'kysely';

export interface CompaniesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface AccountsTable {
  id: string;
  company_id: string;
  name: string;
  email: string;
  password_hash: string;
  photo: string | null;
  created_at: string;
  updated_at: string;
}

/** One login: the refresh-token family. Revoked sessions refuse their access and refresh tokens. */
export interface SessionsTable {
  id: string;
  account_id: string;
  company_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** A member of a refresh-token family (single use; only the SHA-256 hash is kept). */
export interface RefreshTokensTable {
  id: string;
  session_id: string;
  token_hash: string;
  parent_id: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface PasswordResetTokensTable {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Fixed-window rate-limit counter. */
export interface RateLimitsTable {
  key: string;
  window_start: string;
  count: number;
  expires_at: string;
}

export interface ContactMessagesTable {
  id: string;
  name: string;
  email: string;
  message: string;
  ip: string | null;
  created_at: string;
}

/** Metadata of an uploaded file stored as DATA_DIR/uploads/<name>. */
export interface FilesTable {
  id: string;
  name: string;
  company_id: string;
  account_id: string | null;
  kind: string;
  mime_type: string;
  size: number;
  created_at: string;
}

/** A company's provider connection; `secrets` is JSON of field name -> envelope-encrypted value. */
export interface ProviderConnectionsTable {
  id: string;
  company_id: string;
  provider: string;
  secrets: string;
  created_at: string;
  updated_at: string;
}

/** Billing limits and contact of a company (absent row = defaults). */
export interface CompanyBillingTable {
  company_id: string;
  concurrency_limit: number;
  monthly_spend_limit_cents: number;
  contact_name: string;
  contact_email: string;
  contact_address: string;
  contact_tax_id: string;
  updated_at: string;
  /** ISO 3166 alpha-2 codes outbound calls may go to, comma-separated; '' = the countries of the company's numbers (migration 018) */
  allowed_countries: ColumnType<string, string | undefined, string>;
}

export interface BatchCallsTable {
  id: string;
  company_id: string;
  name: string;
  from_number: string;
  send_mode: string;
  scheduled_at: string | null;
  status: string;
  idempotency_key: string;
  request_hash: string;
  upload_id: string | null;
  recipients_count: number;
  invalid_count: number;
  duplicate_count: number;
  sent_count: number;
  created_at: string;
  updated_at: string;
  /** dial attempts per recipient, and the wait before a retry (busy, no answer); migration 013 */
  max_attempts: Generated<number>;
  retry_delay_s: Generated<number>;
  /** migration 015: the calling window (JSON {days, start, end}; null = any time), the IANA time zone */
  calling_window: string | null;
  time_zone: Generated<string>;
  /** why the batch paused itself (null: not paused, or paused by hand) and when it was last resumed */
  paused_reason: string | null;
  resumed_at: string | null;
  /** migration 021: 1 when the batch completed with every recipient failed */
  all_failed: Generated<number>;
}

export interface BatchRecipientsTable {
  batch_id: string;
  company_id: string;
  upload_id: string;
  row_number: number;
  phone_number: string;
  variables: string;
  /** the dispatcher's queue (migration 013): queued | calling | completed | busy | no_answer | failed | voicemail */
  state: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  call_id: string | null;
  /** migration 015: the zone of the number (null: the batch's), when the last attempt finished */
  time_zone: string | null;
  finished_at: string | null;
  /** migration 021: why the last dial was refused or failed before the carrier rang (null: none) */
  failure_reason: string | null;
}

/** The per-company pace of new batch calls (migration 015): the earliest time of the next, ms since the epoch. */
export interface BatchDialPacingTable {
  company_id: string;
  next_dial_ms: number | string;
}

/** An agent: `doc` is the stored agent document (JSON); the other columns are projections the list uses. */
export interface AgentsTable {
  id: string;
  company_id: string;
  account_id: string | null;
  agent_name: string;
  agent_name_lower: string;
  voice_id: string;
  voice_model: string;
  llm_model: string;
  language: string;
  version: number;
  doc: string;
  created_at: string;
  updated_at: string;
}

/**
 * A number of the platform: free (the pool) when company_id is null, else assigned to that company.
 * `origin` 'pool' = the platform's number (deleting returns it to the pool), 'company' = added by the
 * company itself (deleting removes it).
 */
export interface PhoneNumbersTable {
  id: string;
  company_id: string | null;
  account_id: string | null;
  origin: 'pool' | 'company';
  phone_number: string;
  provider: string;
  phone_number_type: string;
  phone_number_pretty: string;
  area_code: number | null;
  nickname: string | null;
  termination_uri: string;
  assistant_id: string | null;
  inbound_agent_id: string | null;
  outbound_agent_id: string | null;
  assigned_at: string | null;
  created_at: string;
  updated_at: string;
  /** imported from the company's carrier account: the carrier's handle of the number (migration 023) */
  carrier_ref: string | null;
  /** imported: what the number was set to before (the carrier's JSON), restored on release */
  carrier_previous: string | null;
}

/** A company's request for a free number; granted_at set when an operator grants it. */
export interface NumberRequestsTable {
  id: string;
  company_id: string;
  account_id: string | null;
  phone_number_id: string;
  created_at: string;
  granted_at: string | null;
}

/**
 * One call (append-only; written through insertCalls). `time` ISO-8601 UTC, `duration` seconds, `cost`
 * USD, `call_successful` 0/1, `phone_number` the company's line (to of inbound, from of outbound calls).
 */
export interface CallsTable {
  id: string;
  company_id: string;
  agent_id: string | null;
  time: string;
  from_number: string;
  /** the digits of from_number, last first (searching a number by its end: migration 009) */
  from_digits_rev: string;
  to_number: string;
  phone_number: string;
  duration: number;
  type: string;
  cost: number;
  disconnection_reason: string;
  status: string;
  call_successful: number;
  /** the median latency of the call's agent turns in ms, null without one (migration 016) */
  latency_ms: number | null;
  /** when the call's content was deleted (migration 025); null = still there */
  content_deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * Per company and UTC day, for each combination of status, type, phone_number and agent_id ('*' = any,
 * agent '' = none): the calls, the successful ones, and their summed duration and cost (migration 016).
 */
export interface CallDaysTable {
  company_id: string;
  status: string;
  type: string;
  phone_number: string;
  agent_id: string;
  /** yyyy-MM-dd (UTC) */
  day: string;
  calls: number;
  successful: number;
  duration: number;
  cost: number;
}

/** The calls per company, UTC day, status, type and phone_number ('*' = any) in each latency bucket (lower bound, ms). */
export interface CallLatencyDaysTable {
  company_id: string;
  status: string;
  type: string;
  phone_number: string;
  day: string;
  bucket: number;
  calls: number;
}

/** Calls per company and UTC day for each combination of status, type and phone_number ('*' = any). */
export interface CallCountsTable {
  company_id: string;
  status: string;
  type: string;
  phone_number: string;
  /** yyyy-MM-dd (UTC) */
  day: string;
  calls: number;
}

/** The first answer of a create request, kept per company and Idempotency-Key (server/platform/http/idempotency.ts). */
export interface IdempotencyKeysTable {
  company_id: string;
  key: string;
  request_hash: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/** A knowledge base; `sources` is JSON of StoredKbSource[] (server/modules/knowledge/kb.repo.ts). */
export interface KnowledgeBasesTable {
  id: string;
  company_id: string;
  account_id: string | null;
  name: string;
  name_lower: string;
  /** pending | processing | complete | failed */
  status: string;
  enable_auto_refresh: number;
  sources: string;
  error_message: string | null;
  chunk_count: number;
  user_modified_at: string;
  created_at: string;
  updated_at: string;
}

/** A piece of text extracted from a knowledge base source, in order. */
export interface KnowledgeBaseChunksTable {
  knowledge_base_id: string;
  position: number;
  company_id: string;
  source_index: number;
  content: string;
}

/** The durable processing job of a knowledge base (one per base); claimed with a lease. */
export interface KnowledgeBaseJobsTable {
  id: string;
  knowledge_base_id: string;
  company_id: string;
  /** pending | running | done | failed (server/platform/jobs/leased-job.ts) */
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  worker: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** An upload being written (server/platform/uploads/pending-uploads.ts); a run-out lease marks what a dead request left. */
export interface PendingUploadsTable {
  /** the upload's id: a recipients upload_id, a knowledge base's id, a photo's file name */
  id: string;
  kind: 'recipients' | 'knowledge-base' | 'photo';
  company_id: string | null;
  owner: string;
  lease_until: string;
  created_at: string;
}

/**
 * A conversation run by the call engine (web call, chat; phone calls next), from creation to its end
 * (migration 012). `agent` is a snapshot of the agent document used; `transcript`, `latency` and `usage`
 * are JSON (src/api/contract/call-runtime.ts); `recording` a file name under DATA_DIR/recordings/<company>.
 */
export interface CallSessionsTable {
  id: string;
  company_id: string;
  account_id: string | null;
  agent_id: string | null;
  agent_name: string;
  agent: string;
  type: string;
  from_number: string;
  to_number: string;
  phone_number: string;
  /** registered | ongoing | ended | error */
  status: string;
  dynamic_variables: string;
  started_at: string | null;
  ended_at: string | null;
  disconnection_reason: string;
  error_message: string | null;
  transcript: string;
  latency: string;
  usage: string;
  cost: number;
  recording: string | null;
  token_hash: string | null;
  token_expires_at: string | null;
  server_id: string | null;
  heartbeat_at: string | null;
  created_at: string;
  updated_at: string;
  /** phone calls (migration 013): 'twilio' | 'plivo', '' (the default) for web calls and chats */
  provider: ColumnType<string, string | undefined, string>;
  /** the carrier's id of the call (Twilio CallSid, Plivo CallUUID) */
  provider_call_id: string | null;
  /** the carrier's last reported status */
  provider_status: string | null;
  /** answering-machine detection's answer (human, machine_end_beep, ...) */
  answered_by: string | null;
  /** when the call's content was deleted (migration 025); null = still there */
  content_deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** a conversation-flow call's path (migration 025): FlowPathStep[] as JSON, '[]' otherwise */
  flow_path: ColumnType<string, string | undefined, string>;
  /** a chat's flow run between its messages (migration 025); null once the call ended */
  flow_state: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The nodes each conversation-flow call reached (migration 025), for filtering calls by a node. */
export interface CallFlowNodesTable {
  company_id: string;
  call_id: string;
  node_id: string;
}

export interface DB {
  agents: AgentsTable;
  companies: CompaniesTable;
  accounts: AccountsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  password_reset_tokens: PasswordResetTokensTable;
  rate_limits: RateLimitsTable;
  contact_messages: ContactMessagesTable;
  files: FilesTable;
  provider_connections: ProviderConnectionsTable;
  company_billing: CompanyBillingTable;
  batch_calls: BatchCallsTable;
  batch_recipients: BatchRecipientsTable;
  batch_dial_pacing: BatchDialPacingTable;
  phone_numbers: PhoneNumbersTable;
  number_requests: NumberRequestsTable;
  calls: CallsTable;
  call_counts: CallCountsTable;
  call_days: CallDaysTable;
  call_latency_days: CallLatencyDaysTable;
  idempotency_keys: IdempotencyKeysTable;
  knowledge_bases: KnowledgeBasesTable;
  knowledge_base_chunks: KnowledgeBaseChunksTable;
  knowledge_base_jobs: KnowledgeBaseJobsTable;
  pending_uploads: PendingUploadsTable;
  call_sessions: CallSessionsTable;
  call_flow_nodes: CallFlowNodesTable;
  carrier_nonces: CarrierNoncesTable;
  company_webhooks: CompanyWebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  call_analyses: CallAnalysesTable;
  company_settings: CompanySettingsTable;
  audit_log: AuditLogTable;
}

/** A company's settings (migration 025); no row = the defaults. `retention_days` null = keep. */
export interface CompanySettingsTable {
  company_id: string;
  retention_days: number | null;
  default_data_storage: string;
  updated_at: string;
  /** the retention job's lease of the company: 'idle' | 'running' */
  retention_status: ColumnType<string, string | undefined, string>;
  attempts: ColumnType<number, number | undefined, number>;
  retention_worker: ColumnType<string | null, string | null | undefined, string | null>;
  retention_lease_until: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The audit log (migration 025): append-only. */
export interface AuditLogTable {
  id: string;
  company_id: string;
  time: string;
  actor_id: string | null;
  actor_email: string;
  action: string;
  target: string;
  ip: string;
}

/** Nonces of carrier signatures seen (migration 017): a second request with one is a replay. */
export interface CarrierNoncesTable {
  company_id: string;
  provider: string;
  nonce: string;
  expires_at: string;
}

/** A company's webhook settings (migration 014): the company-wide URL ('' = none), the sealed signing secret. */
export interface CompanyWebhooksTable {
  company_id: string;
  url: string;
  secret: string | null;
  /** the secret's last 4 characters, shown to recognise it */
  secret_hint: string | null;
  created_at: string;
  updated_at: string;
}

/** The webhook outbox (migration 014): one row per event and webhook, sent by whichever server claims it. */
export interface WebhookDeliveriesTable {
  id: string;
  company_id: string;
  /** 'company' | 'agent' */
  target: string;
  agent_id: string | null;
  url: string;
  event: string;
  call_id: string | null;
  payload: string;
  /** 'pending' | 'sending' | 'delivered' | 'failed' */
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  worker: string | null;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  request_body: string | null;
  response_body: string | null;
  attempted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One post-call analysis per call (migration 014). */
export interface CallAnalysesTable {
  call_id: string;
  company_id: string;
  /** 'pending' | 'running' | 'done' | 'failed' */
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  worker: string | null;
  /** JSON CallAnalysis when done */
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}
