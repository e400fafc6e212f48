import type { Migration } from 'kysely';
import * as m001 from './001_companies_accounts.js';

/**
 * Every migration, in order. Keys sort lexicographically; add new files with the next number.
 * Column types are the portable subset: text, integer, real, bigint (booleans are 0/1 integers,
 * timestamps ISO-8601 text in UTC, JSON documents text).
 */
export const migrations: Record<string, Migration> = {
  '001_companies_accounts': m001,
};
