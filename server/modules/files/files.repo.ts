import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The files queries of /files: what an uploaded file is (its sniffed type and what it was uploaded as). */
export function fileByName(db: Kysely<DB>, name: string) {
  return db.selectFrom('files').select(['mime_type', 'kind']).where('name', '=', name).executeTakeFirst();
}
