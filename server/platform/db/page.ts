import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * One page of rows, newest first (`created_at`, then `id` to break ties: ids are ordered by creation
 * time), with the total count of `base`; `base` holds the list's filters (always its company). The repos
 * of the paged lists build `base`; the page size and number come from the list's validated query
 * (server/platform/http/list-query.ts).
 */
export async function newestFirstPage<DB, TB extends keyof DB>(
  base: SelectQueryBuilder<DB, TB, object>,
  q: { page: number; limit: number },
) {
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy(sql`created_at`, 'desc')
      .orderBy(sql`id`, 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number((count as { n: number }).n) };
}
