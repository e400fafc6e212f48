/**
 * SQL lives in `<resource>.repo.ts` (README, "Architecture"): a route file (server/modules/**\/*.routes.ts)
 * validates, authorises and answers, and asks its repo for rows; it builds no query itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROUTES = path.resolve(import.meta.dirname, '../../server/modules');
/** A Kysely query builder or raw sql template started in the file. */
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql\s*(<[^>]*>)?`/;

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name.endsWith('.routes.ts') ? [full] : [];
  });
}

/** `file:line` of every query built in a route file. */
function inlineQueries(files: readonly { name: string; text: string }[]): string[] {
  return files.flatMap(({ name, text }) => text.split('\n').flatMap((line, i) => (QUERY.test(line) ? [`${name}:${i + 1}`] : [])));
}

describe('SQL lives in the repos', () => {
  const files = routeFiles(ROUTES).map((f) => ({ name: path.relative(ROUTES, f), text: fs.readFileSync(f, 'utf8') }));

  it('reads every route file', () => {
    expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['providers/provider.routes.ts', 'agents/agent.routes.ts']));
  });

  it('no route file builds a query', () => {
    expect(inlineQueries(files)).toEqual([]);
  });

  it('the check sees a query builder and a raw sql template', () => {
    const found = inlineQueries([
      { name: 'a.routes.ts', text: "const r = await db\n  .selectFrom('companies')\n  .execute();" },
      { name: 'b.routes.ts', text: 'await sql`select 1`.execute(db);\nawait sql<{ n: number }>`select 2`.execute(db);' },
      { name: 'c.routes.ts', text: 'const rows = await listAgents(db, companyId);' },
    ]);
    expect(found).toEqual(['a.routes.ts:2', 'b.routes.ts:1', 'b.routes.ts:2']);
  });
});
