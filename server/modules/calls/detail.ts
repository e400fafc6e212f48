/**
 * GET /call/{id}: a call's detail (src/api/contract/call-runtime.ts CallDetail), from its call_sessions row
 * (conversations run by the engine) and its calls row (the summary in Call History; calls imported or
 * generated without a session have no transcript). The recording is reached through a signed URL valid
 * RECORDING_URL_TTL_S, bound to the call and its company, so an <audio> element can play it without the
 * bearer token and nobody else can.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import {
  CALL_RUNTIME_MESSAGES,
  type CallAnalysis,
  type CallDetail,
  type CallUsage,
  type CostBreakdown,
  type FlowPathStep,
  type TranscriptTurn,
  type TurnLatency,
} from '@contract/call-runtime.js';
import type { CallStatus, CallType } from '@contract/call-values.js';
import { storedUsageCost } from '@contract/pricing.js';
import type { Kysely } from 'kysely';
import { contentPolicy, contentWithheld, keptTranscript, keptVariables } from '../../platform/call-content.js';
import { isId } from '../../platform/crypto/ids.js';
import { parseJson } from '../../platform/db/json.js';
import type { DB } from '../../platform/db/schema.js';
import { HttpError } from '../../platform/http/http.js';
import { callAnalysisOf, callRowOf, callSessionOf } from './call-detail.repo.js';

export const RECORDING_URL_TTL_S = 3600;

/** Where a company's recordings are kept (written by the call engine: server/modules/conversations/runtime.ts). */
export const recordingsDir = (dataDir: string, companyId: string) => path.join(dataDir, 'recordings', companyId);

const sign = (key: Uint8Array, callId: string, companyId: string, exp: number) =>
  createHmac('sha256', key).update(`recording.${callId}.${companyId}.${exp}`).digest('base64url');

export function recordingToken(key: Uint8Array, callId: string, companyId: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + RECORDING_URL_TTL_S;
  return `${exp}.${sign(key, callId, companyId, exp)}`;
}

export function checkRecordingToken(key: Uint8Array, callId: string, companyId: string, token: string, nowMs: number): boolean {
  const [expText, sig] = token.split('.');
  const exp = Number(expText);
  if (!sig || !Number.isInteger(exp) || exp * 1000 < nowMs) return false;
  const want = Buffer.from(sign(key, callId, companyId, exp));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** A call_analyses row as the detail shows it: pending (also while it runs), done with its result, or failed. */
function analysisOf(row: { status: string; result: string | null; error: string | null }): CallAnalysis {
  const empty: CallAnalysis = { status: 'pending', summary: null, sentiment: null, successful: null, custom: {}, error: null };
  if (row.status === 'done' && row.result)
    return { ...empty, ...parseJson<Partial<CallAnalysis>>(row.result, {}), status: 'done' };
  if (row.status === 'failed') return { ...empty, status: 'failed', error: row.error };
  return empty;
}

const NO_COST: CostBreakdown = { stt: 0, llm: 0, tts: 0, telephony: 0, total: 0 };

export async function callDetail(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  recordingUrl: (id: string) => string,
): Promise<CallDetail> {
  if (!isId(id)) throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
  // the calls row first: it is written in the same transaction that ends the session, so once it is seen
  // the session read after it is the ended one (two reads side by side could straddle that commit)
  const call = await callRowOf(db, companyId, id);
  const session = await callSessionOf(db, companyId, id);
  if (!session && !call) throw new HttpError(404, CALL_RUNTIME_MESSAGES.callNotFound);
  const analysis = await callAnalysisOf(db, companyId, id);
  const usage = session ? parseJson<CallUsage | null>(session.usage, null) : null;
  const hasUsage = usage !== null && typeof usage.llm_model === 'string';
  const cost = hasUsage ? storedUsageCost(usage) : { ...NO_COST, total: call ? Number(call.cost) : 0 };
  // an ongoing call's row holds what the call needs (its variables); what is shown is what the level keeps
  const policy = contentPolicy(session?.agent ?? '{}', session?.dynamic_variables ?? '{}');
  const start = session?.started_at ?? call?.time ?? null;
  const end = session?.ended_at ?? null;
  return {
    _id: id,
    type: (session?.type ?? call?.type ?? 'web') as CallType,
    status: (session?.status === 'registered' ? 'registered' : (call?.status ?? session?.status ?? 'ongoing')) as CallStatus,
    agent_id: session?.agent_id ?? call?.agent_id ?? null,
    agent_name: session?.agent_name ?? '',
    from: session?.from_number ?? call?.from_number ?? '',
    to: session?.to_number ?? call?.to_number ?? '',
    start_time: start,
    end_time: end,
    duration: call ? Number(call.duration) : start && end ? Math.round((Date.parse(end) - Date.parse(start)) / 1000) : 0,
    disconnection_reason: session?.disconnection_reason || call?.disconnection_reason || '',
    error_message: session?.error_message ?? null,
    call_successful: call ? Number(call.call_successful) === 1 : false,
    transcript: session ? keptTranscript(parseJson<TranscriptTurn[]>(session.transcript, []), policy) : [],
    latency: session ? parseJson<TurnLatency[]>(session.latency, []) : [],
    usage: hasUsage ? usage : null,
    cost: hasUsage ? cost : { ...NO_COST, total: call ? Number(call.cost) : 0 },
    recording_url: session?.recording ? recordingUrl(id) : null,
    dynamic_variables: session ? keptVariables(parseJson<Record<string, string>>(session.dynamic_variables, {}), policy) : {},
    analysis: analysis ? analysisOf(analysis) : null,
    content_deleted_at: session?.content_deleted_at ?? call?.content_deleted_at ?? null,
    content_withheld: session ? contentWithheld(policy) : null,
    flow_path: session ? parseJson<FlowPathStep[]>(session.flow_path, []) : [],
  };
}
