import fs from 'node:fs';
import path from 'node:path';
import { CallListQuerySchema } from '@contract/call.js';
import { CallAnalyticsQuerySchema } from '@contract/call-analytics.js';
import { CALL_RUNTIME_MESSAGES } from '@contract/call-runtime.js';
import { Hono } from 'hono';
import { isId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { checkExportToken, csvHeaders, EXPORT_LINK_EXPIRED, exportToken } from '../../platform/http/csv-export.js';
import { HttpError, ok } from '../../platform/http/http.js';
import { listQuery } from '../../platform/http/list-query.js';
import type { AppEnv } from '../../platform/http/types.js';
import { record } from '../audit/index.js';
import { clientIp, requireAuth } from '../auth/index.js';
import { CALL_EXPORT, exportCalls } from './call.export.js';
import { listCalls, sessionRecording } from './call.repo.js';
import { callAnalytics } from './call-analytics.repo.js';
import { deleteCallContent } from './content.js';
import { callDetail, checkRecordingToken, recordingsDir, recordingToken } from './detail.js';

/**
 * /call: the company's call history (filters, search, sort, zero-based page; see src/api/contract/call.ts),
 * a call's detail and its recording (signed URL). Two more routes live under /call, mounted by
 * server/compose.ts before these: `POST /web` (a web call, server/modules/conversations/web-call.routes.ts)
 * and `POST /create` (a phone call, server/modules/telephony/phone-call.routes.ts).
 */
export function callRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();

  // the recording is fetched by an <audio> element: authorised by its signed URL, not a bearer token
  r.get('/:id/recording', async (c) => {
    const id = c.req.param('id');
    const token = c.req.query('token') ?? '';
    const row = isId(id) ? await sessionRecording(db, id) : undefined;
    const nowMs = deps.clock.now().getTime();
    if (!row?.recording || !checkRecordingToken(deps.secrets.jwtKey, id, row.company_id, token, nowMs))
      throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
    const file = path.join(recordingsDir(deps.config.dataDir, row.company_id), path.basename(row.recording));
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (!stat) throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
    const range = /^bytes=(\d*)-(\d*)$/.exec(c.req.header('Range') ?? '');
    let start = 0;
    let end = stat.size - 1;
    if (range && (range[1] || range[2])) {
      if (range[1]) {
        start = Number(range[1]);
        if (range[2]) end = Math.min(end, Number(range[2]));
      } else start = Math.max(0, stat.size - Number(range[2]));
      if (start > end || start >= stat.size) return c.body(null, 416, { 'Content-Range': `bytes */${stat.size}` });
    }
    const headers = {
      'Content-Type': 'audio/wav',
      'Accept-Ranges': 'bytes',
      'Content-Length': String(end - start + 1),
      'Cache-Control': 'private, no-store',
      'Content-Disposition': `inline; filename="call-${id}.wav"`,
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${stat.size}` } : {}),
    };
    const body = fs.createReadStream(file, { start, end });
    return new Response(body as unknown as ReadableStream, { status: range ? 206 : 200, headers });
  });

  // 'Export': the CSV is downloaded by a plain link, authorised by its signed token (POST /export makes it)
  r.get('/export/download', async (c) => {
    const companyId = checkExportToken(deps.secrets.jwtKey, CALL_EXPORT, c.req.query('token') ?? '', deps.clock.now().getTime());
    if (!companyId) throw new HttpError(404, EXPORT_LINK_EXPIRED);
    const q = listQuery(c, CallListQuerySchema);
    const day = deps.clock.now().toISOString().slice(0, 10);
    return new Response(exportCalls(db, companyId, q), { headers: csvHeaders(`calls-${day}.csv`) });
  });

  r.use('*', requireAuth(deps));

  /** A download link (valid 5 minutes) for the CSV of the calls matching the query's filters. */
  r.post('/export', async (c) => {
    listQuery(c, CallListQuerySchema); // the filters are checked now, not when the link is opened
    const params = new URL(c.req.url).searchParams;
    params.delete('token');
    params.delete('page');
    params.delete('limit');
    params.set('token', exportToken(deps.secrets.jwtKey, CALL_EXPORT, c.get('auth').companyId, deps.clock.now().getTime()));
    return ok(c, { data: { url: `/api/v1/call/export/download?${params.toString()}` } }, 201);
  });

  /** The overview of the calls matching the list's filters (and `agentId`): per day and in total. */
  r.get('/analytics', async (c) => {
    const q = listQuery(c, CallAnalyticsQuerySchema);
    return ok(c, { data: await callAnalytics(db, c.get('auth').companyId, q) });
  });

  r.get('/', async (c) => {
    const q = listQuery(c, CallListQuerySchema);
    const { calls, totalCalls } = await listCalls(db, c.get('auth').companyId, q);
    return ok(c, { data: { calls, pagination: { totalCalls, page: q.page, limit: q.limit } } });
  });

  const detailOf = (companyId: string, callId: string) => {
    const nowMs = deps.clock.now().getTime();
    return callDetail(db, companyId, callId, (id) => {
      const token = recordingToken(deps.secrets.jwtKey, id, companyId, nowMs);
      return `/api/v1/call/${id}/recording?token=${encodeURIComponent(token)}`;
    });
  };

  r.get('/:id', async (c) => {
    return ok(c, { data: await detailOf(c.get('auth').companyId, c.req.param('id')) });
  });

  /** Removes the call's content now (the row and its metadata stay); answers the call as it now is. Idempotent. */
  r.delete('/:id', async (c) => {
    const { companyId, accountId } = c.get('auth');
    const id = c.req.param('id');
    if (!isId(id)) throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
    const outcome = await deleteCallContent(deps, companyId, id);
    if (outcome === 'not_found') throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
    if (outcome === 'live') throw new HttpError(409, CALL_RUNTIME_MESSAGES.callStillLive);
    if (outcome === 'deleted') {
      await record(deps, {
        companyId,
        actor: { id: accountId },
        action: 'call.content_deleted',
        target: id,
        ip: clientIp(c, deps),
      });
    }
    return ok(c, { msg: CALL_RUNTIME_MESSAGES.callContentDeleted, data: await detailOf(companyId, id) });
  });

  return r;
}
