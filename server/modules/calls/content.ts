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
import { clearCallContent, contentState } from './content.repo.js';
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
