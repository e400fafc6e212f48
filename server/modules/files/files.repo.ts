import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The files queries of /files: what an uploaded file is (its sniffed type and what it was uploaded as). */
export function fileByName(db: Kysely<DB>, name: string) {
  return db.selectFrom('files').select(['mime_type', 'kind']).where('name', '=', name).executeTakeFirst();
}

/** Whether a `files` row holds the uploaded file `name` (the upload sweep leaves such a file). */
export async function fileExists(db: Kysely<DB>, name: string): Promise<boolean> {
  return (await db.selectFrom('files').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
}
