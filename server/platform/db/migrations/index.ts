import type { Migration } from 'kysely';
import * as m001 from './001_companies_accounts.js';
import * as m002 from './002_auth.js';
import * as m003 from './003_agents.js';
import * as m004 from './004_numbers_calls.js';
import * as m005 from './005_knowledge_bases.js';
import * as m006 from './006_providers.js';
import * as m007 from './007_billing_batch.js';
import * as m008 from './008_idempotency.js';
import * as m009 from './009_call_number_ends.js';
import * as m010 from './010_pending_uploads.js';
import * as m011 from './011_expiry_indexes.js';
import * as m012 from './012_call_runtime.js';
import * as m013 from './013_telephony.js';
import * as m014 from './014_webhooks.js';
import * as m015 from './015_batch_rules.js';
import * as m016 from './016_call_analytics.js';
import * as m017 from './017_carrier_replay.js';
import * as m018 from './018_destination_policy.js';
import * as m019 from './019_job_claim_indexes.js';
import * as m020 from './020_job_vocabulary.js';
import * as m021 from './021_batch_failure_reason.js';
import * as m022 from './022_function_names.js';
import * as m023 from './023_imported_numbers.js';
import * as m024 from './024_retention_audit.js';
import * as m025 from './025_flow_path.js';

/**
 * Every migration, in order. Keys sort lexicographically; add new files with the next number.
 * Column types are the portable subset: text, integer, real, bigint (booleans are 0/1 integers,
 * timestamps ISO-8601 text in UTC, JSON documents text).
 */
export const migrations: Record<string, Migration> = {
  '001_companies_accounts': m001,
  '002_auth': m002,
  '003_agents': m003,
  '004_numbers_calls': m004,
  '005_knowledge_bases': m005,
  '006_providers': m006,
  '007_billing_batch': m007,
  '008_idempotency': m008,
  '009_call_number_ends': m009,
  '010_pending_uploads': m010,
  '011_expiry_indexes': m011,
  '012_call_runtime': m012,
  '013_telephony': m013,
  '014_webhooks': m014,
  '015_batch_rules': m015,
  '016_call_analytics': m016,
  '017_carrier_replay': m017,
  '018_destination_policy': m018,
  '019_job_claim_indexes': m019,
  '020_job_vocabulary': m020,
  '021_batch_failure_reason': m021,
  '022_function_names': m022,
  '023_imported_numbers': m023,
  '024_retention_audit': m024,
  '025_flow_path': m025,
};
