/**
 * 'Export' of Call History: the calls matching the list's filters (date range, number, type,
 * status, search) as CSV, newest first, streamed in batches read by keyset (time, id), so a million rows
 * never sit in memory: each batch is read when the client has taken the previous one (the stream's pull),
 * and the event loop turns between batches. Every cell goes through the one CSV writer
 * (src/api/contract/csv.ts: formula-safe, RFC 4180 quoting).
 *
 * The browser downloads through a link: `POST /call/export` (bearer) answers a URL signed for the company,
 * valid EXPORT_LINK_TTL_S, that a plain <a download> can fetch.
 */

import type { CallListQuery } from '@contract/call.js';
import { callSearchMatch } from '@contract/call.js';
import type { CallUsage } from '@contract/call-runtime.js';
import type { CsvValue } from '@contract/csv.js';
import { storedUsageCost } from '@contract/pricing.js';
import type { Kysely } from 'kysely';
import { parseJson } from '../../platform/db/json.js';
import type { DB } from '../../platform/db/schema.js';
import { csvStream } from '../../platform/http/csv-export.js';
import { dayStart, nextDayStart, type TimeRange } from './call.repo.js';
import { exportBatch, exportDetails } from './call-detail.repo.js';

export { EXPORT_LINK_TTL_S } from '../../platform/http/csv-export.js';
export const EXPORT_BATCH = 1000;

export const EXPORT_COLUMNS = [
  'Call ID',
  'Time',
  'Agent',
  'From',
  'To',
  'Phone Number',
  'Call Duration',
  'Type',
  'Cost',
  'STT Cost',
  'LLM Cost',
  'TTS Cost',
  'Telephony Cost',
  'Disconnection Reason',
  'Call Status',
  'Successful',
  'Summary',
] as const;

/** The purpose the call export's signed links are made for. */
export const CALL_EXPORT = 'call-export';

/** The CSV of the company's calls matching `q`, as a stream of text chunks (one per batch). */
export function exportCalls(db: Kysely<DB>, companyId: string, q: CallListQuery): ReadableStream<Uint8Array> {
  const within: TimeRange = {
    from: q.dateFrom ? dayStart(q.dateFrom) : undefined,
    before: q.dateTo ? nextDayStart(q.dateTo) : undefined,
  };
  const search = q.search ? callSearchMatch(q.search) : undefined;
  let after: { time: string; id: string } | null = null;
  async function batch(): Promise<{ records: CsvValue[][]; done: boolean }> {
    const rows = await exportBatch(db, companyId, q, within, search, after, EXPORT_BATCH);
    const done = rows.length < EXPORT_BATCH;
    if (rows.length === 0) return { records: [], done };
    const last = rows[rows.length - 1] as (typeof rows)[number];
    after = { time: last.time, id: last.id };
    const ids = rows.map((r) => r.id);
    const agentIds = [...new Set(rows.map((r) => r.agent_id).filter((a): a is string => a !== null))];
    const [sessions, analyses, agents] = await exportDetails(db, companyId, ids, agentIds);
    const sessionOf = new Map(sessions.map((s) => [s.id, s]));
    const summaryOf = new Map(
      analyses.map((a) => [a.call_id, parseJson<{ summary?: string }>(a.result ?? '{}', {}).summary ?? '']),
    );
    const agentOf = new Map(agents.map((a) => [a.id, a.name]));
    const records: CsvValue[][] = [];
    for (const r of rows) {
      const session = sessionOf.get(r.id);
      const usage = session ? parseJson<CallUsage | null>(session.usage, null) : null;
      const cost = usage && typeof usage.llm_model === 'string' ? storedUsageCost(usage) : null;
      records.push([
        r.id,
        r.time,
        (r.agent_id ? agentOf.get(r.agent_id) : undefined) ?? session?.agent_name ?? '',
        r.from_number,
        r.to_number,
        r.phone_number,
        Number(r.duration),
        r.type,
        Number(r.cost),
        cost?.stt ?? '',
        cost?.llm ?? '',
        cost?.tts ?? '',
        cost?.telephony ?? '',
        r.disconnection_reason,
        r.status,
        Number(r.call_successful) === 1 ? 'Yes' : 'No',
        summaryOf.get(r.id) ?? '',
      ]);
    }
    return { records, done };
  }

  return csvStream(EXPORT_COLUMNS, batch);
}
