// Creates the database of a postgres:// URL when it does not exist (used by .ci/run).
// Usage: node scripts/lib/ensure-database.mjs postgres://postgres@127.0.0.1:5432/test
import pg from 'pg';

const target = new URL(process.argv[2] ?? process.env.TEST_DATABASE_URL ?? '');
const name = decodeURIComponent(target.pathname.slice(1));
if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`Unexpected database name "${name}" in ${target.href}`);
const admin = new URL(target.href);
admin.pathname = '/postgres';
const client = new pg.Client({ connectionString: admin.href });
await client.connect();
try {
  const found = await client.query('select 1 from pg_database where datname = $1', [name]);
  if (found.rowCount === 0) {
    await client.query(`create database "${name}"`);
    process.stdout.write(`created database ${name}\n`);
  } else {
    process.stdout.write(`database ${name} exists\n`);
  }
} finally {
  await client.end();
}
