/**
 * Operator commands (`npm run admin -- <command>`), on the database the server uses (DATABASE_URL,
 * else DATA_DIR/parley.sqlite):
 *
 *   grant-number-requests [--all | --company <email>]   grant pending number requests (all by default)
 *   list-number-requests [--company <email>]            show pending number requests
 *   recount-calls [--company <email>]                   rebuild the call counts from the calls
 */
import { parseArgs } from 'node:util';
import { recountCalls } from '../modules/calls/index.js';
import { grantNumberRequests, pendingNumberRequests } from '../modules/numbers/index.js';
import { companyOfEmail, openFromEnv, runCli, UsageError } from './common.js';

const USAGE = `Usage: npm run admin -- <command> [options]

  grant-number-requests [--all | --company <email>]
      Grants pending phone-number requests, oldest first: each number moves to the company that asked.
      --all (the default) grants every company's requests; --company only those of that account's company.
  list-number-requests [--company <email>]
      Lists the requests waiting for a grant.
  recount-calls [--company <email>]
      Rebuilds the call counts behind the call history totals from the calls themselves.`;

const out = (line = '') => process.stdout.write(`${line}\n`);

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') {
    out(USAGE);
    return;
  }
  let values: { all?: boolean; company?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { all: { type: 'boolean' }, company: { type: 'string' } }, strict: true }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.all && values.company) throw new UsageError('Give either --all or --company, not both');
  if (!['grant-number-requests', 'list-number-requests', 'recount-calls'].includes(command))
    throw new UsageError(`Unknown command: ${command}`);

  const database = await openFromEnv();
  try {
    const companyId = values.company ? await companyOfEmail(database, values.company) : undefined;
    if (command === 'grant-number-requests') {
      const granted = await grantNumberRequests(database.db, { now: new Date(), ...(companyId ? { companyId } : {}) });
      for (const g of granted) out(`Granted ${g.phone} to ${g.requestedBy || `company ${g.companyId}`}`);
      out(granted.length === 0 ? 'No pending number requests.' : `${granted.length} number request(s) granted.`);
    } else if (command === 'list-number-requests') {
      const pending = await pendingNumberRequests(database.db, companyId);
      for (const p of pending) out(`${p.requestedAt}  ${p.phone}  ${p.requestedBy || `company ${p.companyId}`}`);
      out(pending.length === 0 ? 'No pending number requests.' : `${pending.length} pending request(s).`);
    } else {
      await recountCalls(database.db, companyId);
      out('Call counts rebuilt.');
    }
  } finally {
    await database.close();
  }
}

await runCli(main, USAGE);
