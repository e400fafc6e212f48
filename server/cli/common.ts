import path from 'node:path';
import { accountOfEmail } from '../modules/company/index.js';
import { type AppDatabase, openDatabase } from '../platform/db/index.js';
import { EnvError, parseEnv } from '../platform/env.js';

/**
 * What the command-line tools share: the database the server would open (DATABASE_URL, else
 * DATA_DIR/parley.sqlite), migrated, and a clean exit with one line on bad input.
 */
export class UsageError extends Error {}

export async function openFromEnv(): Promise<AppDatabase> {
  const env = parseEnv(process.env);
  return openDatabase({ url: env.DATABASE_URL, sqliteFile: path.join(path.resolve(env.DATA_DIR), 'parley.sqlite'), poolSize: 2 });
}

/** Runs a command: usage and configuration errors print one line and exit 2, others exit 1. */
export async function runCli(main: () => Promise<void>, usage: string): Promise<void> {
  try {
    await main();
  } catch (e) {
    if (e instanceof UsageError || e instanceof EnvError) {
      process.stderr.write(`${e.message}\n\n${usage}\n`);
      process.exit(2);
    }
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  }
}

/** The company of the account with this email; UsageError when there is none. */
export async function companyOfEmail(db: AppDatabase, email: string): Promise<string> {
  const row = await accountOfEmail(db.db, email.trim().toLowerCase());
  if (!row) throw new UsageError(`No account with the email ${email}`);
  return row.company_id;
}

/** A whole-number option, or `fallback` when absent. */
export function countOption(value: string | undefined, name: string, fallback: number, max = 100_000_000): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) throw new UsageError(`--${name} must be a whole number from 0 to ${max}`);
  return Number(value);
}
