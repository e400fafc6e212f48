import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The contact_messages queries of /contact. */

export interface ContactMessage {
  id: string;
  name: string;
  email: string;
  message: string;
  ip: string;
  createdAt: string;
}

export async function insertContactMessage(db: Kysely<DB>, m: ContactMessage): Promise<void> {
  await db
    .insertInto('contact_messages')
    .values({ id: m.id, name: m.name, email: m.email, message: m.message, ip: m.ip, created_at: m.createdAt })
    .execute();
}
