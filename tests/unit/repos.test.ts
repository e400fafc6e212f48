/**
 * SQL lives in repos (README, "Architecture"), for every server file: a Kysely query builder or a raw
 * `sql` template is started only in a `*.repo.ts` file or under server/platform/db/ (the db module, its
 * migrations, the company lock). Routes, services, workers, the engine and the CLI ask a repo for rows;
 * a function of a repo takes `db` or a transaction, so a caller's transaction still holds it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = path.resolve(import.meta.dirname, '../../server');
/** A Kysely query builder or raw sql template started in the file. */
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql\s*(<[^>]*>)?`/;

/** Where a query may be built: a repo file anywhere, or the db module itself (server-relative, `/`). */
function mayQuery(name: string): boolean {
  return name.endsWith('.repo.ts') || name.startsWith('platform/db/');
}

/** Every .ts file under `dir`, server-relative with forward slashes. */
function serverFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return serverFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SERVER, full).split(path.sep).join('/')] : [];
  });
}

/** `file:line` of every query built outside a repo. */
function strayQueries(files: readonly { name: string; text: string }[]): string[] {
  return files
    .filter(({ name }) => !mayQuery(name))
    .flatMap(({ name, text }) => text.split('\n').flatMap((line, i) => (QUERY.test(line) ? [`${name}:${i + 1}`] : [])));
}

describe('SQL lives in the repos', () => {
  const files = serverFiles(SERVER).map((name) => ({ name, text: fs.readFileSync(path.join(SERVER, name), 'utf8') }));

  it('reads every server file, on every floor', () => {
    const names = files.map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'main.ts',
        'app.ts',
        'cli/seed.ts',
        'platform/http/ratelimit.ts',
        'platform/db/index.ts',
        'voice/engine/conversation.ts',
        'carriers/twilio/rest.ts',
        'modules/agents/agent.routes.ts',
        'modules/billing/billing.service.ts',
      ]),
    );
    // Every floor and top-level file of server/ is represented, whatever is added later.
    for (const entry of fs.readdirSync(SERVER, { withFileTypes: true })) {
      const prefix = entry.isDirectory() ? `${entry.name}/` : entry.name;
      if (entry.isDirectory() || entry.name.endsWith('.ts'))
        expect(
          names.some((n) => n.startsWith(prefix)),
          prefix,
        ).toBe(true);
    }
    // The db module and the repos are read too; they are allowed, not skipped.
    expect(names.filter(mayQuery).length).toBeGreaterThan(10);
  });

  it('no server file outside a repo or the db module builds a query', () => {
    expect(strayQueries(files)).toEqual([]);
  });

  it('the check sees a query builder and a raw sql template outside a repo, and lets repos and the db module be', () => {
    const found = strayQueries([
      { name: 'modules/a/a.routes.ts', text: "const r = await db\n  .selectFrom('companies')\n  .execute();" },
      { name: 'platform/http/b.ts', text: 'await sql`select 1`.execute(db);\nawait sql<{ n: number }>`select 2`.execute(db);' },
      { name: 'voice/engine/c.ts', text: "await trx.updateTable('calls').set({ x: 1 }).execute();" },
      { name: 'modules/d/d.service.ts', text: 'const rows = await listAgents(db, companyId);' },
      { name: 'modules/e/e.repo.ts', text: "await db.deleteFrom('e').execute();" },
      { name: 'platform/db/migrations/001_x.ts', text: 'await sql`create table x ()`.execute(db);' },
      { name: 'platform/http/f.repo.ts', text: "await db.insertInto('f').values({}).execute();" },
    ]);
    expect(found).toEqual(['modules/a/a.routes.ts:2', 'platform/http/b.ts:1', 'platform/http/b.ts:2', 'voice/engine/c.ts:1']);
  });
});
