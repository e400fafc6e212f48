/**
 * Removing a call's content: DELETE /call/{id} and the retention job (./retention.ts) share this one
 * function. The content is the transcript (with its function calls and, for chats, the messages), the
 * dynamic variables, the analysis text (summary and extracted fields) and the recording file; webhook
 * deliveries of the call are rewritten without it. The call's row and its metadata stay, with
 * `content_deleted_at` saying when.
 *
 * The recording file goes first, then the rows in one transaction: a process that dies between the two
 * leaves the rows with their content and no file, and the next attempt (a retry of the DELETE, the next
 * pass of the job) finishes. Removing again is harmless: the file is already gone and the conditional
 * updates change nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../../platform/deps.js';
import { callsPastRetention, clearCallContent, contentState } from './content.repo.js';
import { recordingsDir } from './detail.js';

export type ContentRemoval = 'deleted' | 'already' | 'not_found' | 'live';

export async function deleteCallContent(
  deps: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  companyId: string,
  callId: string,
): Promise<ContentRemoval> {
  const db = deps.db.db;
  const { session, call } = await contentState(db, companyId, callId);
  if (!session && !call) return 'not_found';
  // a call still on the line keeps writing its transcript: its content is removed once it has ended
  if (session && (session.status === 'registered' || session.status === 'ongoing')) return 'live';
  if (session) {
    const dir = recordingsDir(deps.config.dataDir, companyId);
    const names = new Set([`${callId}.wav`, ...(session.recording ? [path.basename(session.recording)] : [])]);
    for (const name of names) await fs.promises.rm(path.join(dir, name), { force: true });
  }
  const won = await clearCallContent(db, companyId, callId, deps.clock.now().toISOString());
  return won ? 'deleted' : 'already';
}

/**
 * Removes the content of up to `limit` of the company's ended calls created before `before`, oldest first;
 * answers how many this caller removed and how many it looked at (fewer than `limit`: none left).
 */
export async function removeContentBefore(
  deps: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  companyId: string,
  before: string,
  limit: number,
): Promise<{ removed: number; seen: number }> {
  const rows = await callsPastRetention(deps.db.db, companyId, before, limit);
  let removed = 0;
  for (const { id } of rows) if ((await deleteCallContent(deps, companyId, id)) === 'deleted') removed++;
  return { removed, seen: rows.length };
}
