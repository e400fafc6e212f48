import type { Kysely } from 'kysely';

/**
 * Function names became the names the LLM calls (`^[a-zA-Z0-9_-]{1,64}$`, unique per agent) when agents
 * gained custom functions, MCP servers and the other tool types. A stored agent whose function name was
 * free text ('hang up!') is rewritten here (other characters become '_', an empty name becomes the type,
 * a repeated name gets `_2`, `_3`), so that its document passes the contract's schema and its calls start.
 */
const PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function normalizeFunctionNames(functions: { name?: unknown; type?: unknown }[]): boolean {
  let changed = false;
  const seen = new Set<string>();
  for (const f of functions) {
    const original = typeof f.name === 'string' ? f.name : '';
    let name = original
      .trim()
      .replace(/[^a-zA-Z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 60);
    if (!name) name = f.type === 'transfer' ? 'transfer_call' : String(f.type ?? 'function');
    let unique = name;
    for (let n = 2; seen.has(unique); n++) unique = `${name}_${n}`;
    seen.add(unique);
    if (unique !== original || !PATTERN.test(unique)) changed = true;
    f.name = unique;
  }
  return changed;
}

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  const rows: { id: string; doc: string }[] = await db.selectFrom('agents').select(['id', 'doc']).execute();
  for (const row of rows) {
    let doc: { editor?: { functions?: { name?: unknown; type?: unknown }[] } };
    try {
      doc = JSON.parse(row.doc);
    } catch {
      continue;
    }
    const functions = doc.editor?.functions;
    if (!Array.isArray(functions) || !normalizeFunctionNames(functions)) continue;
    await db
      .updateTable('agents')
      .set({ doc: JSON.stringify(doc) })
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(): Promise<void> {
  // names stay as rewritten: they were valid free text before, and still are
}
