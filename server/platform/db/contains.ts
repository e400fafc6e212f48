import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * "Name contains term": a plain substring test on the lowercased name (`instr` on SQLite, `strpos` on
 * PostgreSQL), so `%`, `_` and `\` in a search are literal with no escaping, and no LIKE pattern
 * matcher runs per row.
 */
export function lowerContains(db: Kysely<DB>, column: 'agent_name_lower' | 'name_lower', term: string) {
  const needle = term.toLowerCase();
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<boolean>`strpos(${sql.ref(column)}, ${needle}) > 0`
    : sql<boolean>`instr(${sql.ref(column)}, ${needle}) > 0`;
}
