import type { Kysely } from 'kysely';

/**
 * The path a conversation-flow call takes through its flow.
 *
 * - `flow_path` on `call_sessions`: the path as JSON (src/api/contract/call-runtime.ts FlowPathStep[]: each
 *   node entered and left, the edge taken and why); '[]' for a single-prompt agent's call. Metadata: kept at
 *   every data storage level.
 * - `flow_state` on `call_sessions`: what a chat's flow run needs between its messages (the events its
 *   machine was sent, extracted values among them); cleared when the call ends.
 * - `call_flow_nodes`: one row per (call, node reached), so Call History filters a company's calls by a node
 *   (`GET /call/?node=<id>`) through its index.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('call_sessions')
    .addColumn('flow_path', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('call_sessions').addColumn('flow_state', 'text').execute();
  await db.schema
    .createTable('call_flow_nodes')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_flow_nodes_pk', ['company_id', 'call_id', 'node_id'])
    .execute();
  await db.schema
    .createIndex('call_flow_nodes_node_idx')
    .on('call_flow_nodes')
    .columns(['company_id', 'node_id', 'call_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_flow_nodes').execute();
  await db.schema.alterTable('call_sessions').dropColumn('flow_state').execute();
  await db.schema.alterTable('call_sessions').dropColumn('flow_path').execute();
}
