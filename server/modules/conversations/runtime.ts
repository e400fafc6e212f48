/**
 * The three ways to try an agent (Test LLM, Test, Test Audio) on the server: which agent runs (the saved
 * one, or the editor's unsaved payload), which keys it needs, and the conversations themselves.
 *
 * - Chats are stateless between messages: each message loads the chat's transcript, runs one turn of a
 *   callSession actor with a text line, and saves the transcript again; so any server behind a load
 *   balancer can answer the next message. A chat's row is locked while a reply is written.
 * - A web call lives on the server whose socket took its one-time token: its actor runs there until the
 *   call ends, then the call is stored (call_sessions + calls).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FUNCTION_LABELS, FUNCTION_PROVIDER } from '@contract/agent/functions.js';
import type { AgentDoc } from '@contract/agent/save.js';
import {
  CALL_RUNTIME_MESSAGES,
  type ChatStreamEvent,
  NEW_AGENT_ID,
  type StartConversationBody,
  type TranscriptTurn,
  type TurnLatency,
  WEB_CALL_TOKEN_TTL_MS,
} from '@contract/call-runtime.js';
import { providerLabel } from '@contract/provider.js';
import { modelPurpose, providerPurpose } from '@contract/provider-keys.js';
import type WebSocket from 'ws';
import type { CallEndReason } from '../../../src/machines/callSession.machine.js';
import { contentPolicy, transcriptKeeper } from '../../platform/call-content.js';
import { isId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { type WavSummary, wavHeader } from '../../voice/audio/wav.js';
import { CallRuntime, type ChatTurn, createCallRuntime } from '../../voice/engine/call-runtime.js';
import { Conversation, type ProviderKeys } from '../../voice/engine/conversation.js';
import { providerMessage } from '../../voice/engine/failures.js';
import type { FlowRunState } from '../../voice/engine/flow.js';
import { pipelineOf, requiredProviders } from '../../voice/engine/pipeline.js';
import {
  agentDocOrUndefined,
  type CallPlan,
  compileCallPlan,
  InvalidAgentError,
  planCall,
  voiceOptions,
} from '../../voice/engine/plan.js';
import { collectSpeech, SpeechTimeoutError } from '../../voice/engine/speaker.js';
import { fillVariables } from '../../voice/engine/text.js';
import type { CallerAudioStats } from '../../voice/lines/audio-gate.js';
import type { Playout } from '../../voice/lines/playout.js';
import { ChatLine } from '../../voice/lines/text.js';
import type { AudioLine } from '../../voice/lines/types.js';
import { WebTransport } from '../../voice/lines/web.js';
import { BROWSER_AUDIO, ProviderError, type ProviderId } from '../../voice/providers/types.js';
import type { ToolCallInfo } from '../../voice/tools/types.js';
import { docOf, findAgent, sealFunctionHeaders } from '../agents/index.js';
import { recordingsDir } from '../calls/index.js';
import { knowledgeSearch } from '../knowledge/index.js';
import { ProviderKeyMissingError, providerAccess } from '../providers/index.js';
import { announceCall } from './call-events.js';
import { callRuntime } from './call-runtime.js';
import { refuseOverSpend, takeLine } from './limits.js';
import { CallRecording } from './recording.js';
import {
  type CallSessionRow,
  claimCallToken,
  createCallSession,
  finishCallSession,
  getCallSession,
  lockChat,
  newToken,
  parseJson,
  releaseChat,
  saveChatTurn,
  saveProgress,
} from './session.repo.js';
import { toolServices } from './tool-services.js';

export { CallRuntime, type ChatTurn, createCallRuntime };

export interface Caller {
  companyId: string;
  accountId: string;
}

// ---------------------------------------------------------------------------------------------
// Agent and keys

/** The agent a test runs: the editor's payload when sent (unsaved edits), else the saved agent. */
export async function agentForTest(
  deps: AppDeps,
  caller: Caller,
  body: Pick<StartConversationBody, 'agent_id' | 'agent'>,
): Promise<{ agentId: string | null; doc: AgentDoc }> {
  const isNew = body.agent_id === NEW_AGENT_ID;
  let saved: Awaited<ReturnType<typeof findAgent>>;
  if (!isNew) {
    saved = isId(body.agent_id) ? await findAgent(deps.db.db, caller.companyId, body.agent_id) : undefined;
    if (!saved) throw new HttpError(404, CALL_RUNTIME_MESSAGES.agentNotFound);
  }
  const savedDoc = saved && docOf({ ...saved, settings: saved.settings, editor: saved.editor } as Parameters<typeof docOf>[0]);
  // the editor's unsaved functions: new header values sealed, masked ones taken from the saved agent
  if (body.agent)
    return {
      agentId: isNew ? null : body.agent_id,
      doc: sealFunctionHeaders(deps, caller.companyId, docOf(body.agent), savedDoc),
    };
  if (!saved || !savedDoc) throw new HttpError(400, CALL_RUNTIME_MESSAGES.agentRequired);
  return { agentId: saved._id, doc: savedDoc };
}

/** What each provider is for, in the message naming a missing one. */
function purposeOf(deps: AppDeps, provider: ProviderId, agent: AgentDoc): string {
  const kinds = callRuntime(deps).providers.descriptor(provider)?.kinds ?? [];
  if (kinds.includes('llm') || kinds.includes('realtime')) return modelPurpose(agent.settings.llm.options.model);
  return providerPurpose(provider, kinds);
}

/**
 * The company's access to `providers` (keys decrypted in memory only); a missing one answers 400 with a
 * message naming the provider to connect, and the link to the Providers page. The provider cards the
 * agent's functions need (FUNCTION_PROVIDER: Cal.com, Calendly, Perplexity, WhatsApp) are loaded too; one
 * not connected is left out (the function tells the model, the call goes on).
 */
export async function keysFor(deps: AppDeps, companyId: string, agent: AgentDoc, providers: ProviderId[]): Promise<ProviderKeys> {
  const keys: ProviderKeys = {};
  for (const p of providers) {
    try {
      keys[p] = await providerAccess(deps, companyId, p, purposeOf(deps, p, agent));
    } catch (e) {
      if (e instanceof ProviderKeyMissingError) throw new HttpError(400, e.message, { problem: e.toProblem() });
      throw e;
    }
  }
  for (const p of functionProviders(agent)) {
    if (keys[p]) continue;
    try {
      keys[p] = await providerAccess(deps, companyId, p, FUNCTION_LABELS[functionTypeOf(agent, p)]);
    } catch (e) {
      if (!(e instanceof ProviderKeyMissingError)) throw e;
    }
  }
  return keys;
}

/** The provider cards the agent's functions need, each once. */
function functionProviders(agent: AgentDoc): string[] {
  return [...new Set(agent.editor.functions.flatMap((f) => FUNCTION_PROVIDER[f.type] ?? []))];
}

const functionTypeOf = (agent: AgentDoc, provider: string) =>
  agent.editor.functions.find((f) => FUNCTION_PROVIDER[f.type] === provider)?.type ?? 'custom';

/** What the agent's functions are told about the call (the custom function's `call` object). */
function toolCallInfo(row: CallSessionRow, variables: Record<string, string>): ToolCallInfo {
  return {
    call_id: row.id,
    agent_id: row.agent_id ?? '',
    // phone calls are stored by their direction (inbound, outbound), web calls as 'web'
    type: row.type === 'chat' ? 'chat' : row.type === 'inbound' || row.type === 'outbound' ? 'phone_call' : 'web_call',
    from_number: row.from_number || null,
    to_number: row.to_number || null,
    dynamic_variables: variables,
  };
}

const now = (deps: AppDeps) => deps.clock.now();

/** Built-in variables every prompt may use, under the caller's own. */
function variablesOf(deps: AppDeps, given: Record<string, string>, extra: Record<string, string> = {}) {
  return { current_time: now(deps).toISOString(), ...extra, ...given };
}

// ---------------------------------------------------------------------------------------------
// Chat (Test LLM)

export async function startChat(deps: AppDeps, rt: CallRuntime, caller: Caller, body: StartConversationBody) {
  const { agentId, doc } = await agentForTest(deps, caller, body);
  const pipeline = pipelineOf(doc, rt.providers);
  if (pipeline.mode === 'realtime') throw new HttpError(400, CALL_RUNTIME_MESSAGES.realtimeNoText);
  await keysFor(deps, caller.companyId, doc, requiredProviders(pipeline, 'text'));
  await refuseOverSpend(deps, caller.companyId);
  const variables = variablesOf(deps, body.dynamic_variables, { call_type: 'chat' });
  const greeting = fillVariables(doc.message, variables).trim();
  const row = await createCallSession(deps.db.db, {
    companyId: caller.companyId,
    accountId: caller.accountId,
    agentId,
    agent: doc,
    type: 'chat',
    from: '',
    to: '',
    phoneNumber: '',
    variables,
    transcript: greeting ? [{ role: 'agent', text: greeting, start_ms: 0, end_ms: 0 }] : [],
    now: now(deps),
  });
  void rt;
  return { chat_id: row.id };
}

/** A chat's row, or 404 (another company's chat, a web call, or nothing). */
export async function chatRow(deps: AppDeps, caller: Caller, chatId: string): Promise<CallSessionRow> {
  const row = isId(chatId) ? await getCallSession(deps.db.db, caller.companyId, chatId) : undefined;
  if (row?.type !== 'chat') throw new HttpError(404, CALL_RUNTIME_MESSAGES.chatNotFound);
  return row as CallSessionRow;
}

/**
 * Stores an ongoing chat as ended by `reason` at `endedAt`, from its row as it is (transcript, latency,
 * usage and cost of the turns so far). False when it had already ended.
 */
export function finishChat(deps: AppDeps, row: CallSessionRow, reason: CallEndReason, endedAt: Date): Promise<boolean> {
  const agent = agentDocOrUndefined(row.agent);
  return finishCallSession(deps.db.db, row, {
    status: 'ended',
    reason,
    errorMessage: null,
    transcript: parseJson<TranscriptTurn[]>(row.transcript, []),
    latency: parseJson<TurnLatency[]>(row.latency, []),
    usage: { ...emptyUsage(agent), ...parseJson<object>(row.usage, {}) },
    cost: Number(row.cost),
    recording: null,
    endedAt,
  });
}

/** How long ending a chat waits for a reply the tester just stopped on this server to be stored. */
const END_WAITS_FOR_TURN_MS = 5000;

/**
 * `POST /chat/{id}/end`: the tester closed the chat (or started a new one, or left the page): it is stored
 * as ended by the user now, so Call History shows it ended at once. The caller's chat only (404 otherwise);
 * a chat already ended is answered as it is.
 */
export async function endChat(deps: AppDeps, rt: CallRuntime, caller: Caller, chatId: string): Promise<CallSessionRow> {
  const first = await chatRow(deps, caller, chatId);
  if (first.status !== 'ongoing') return first;
  // a reply being written here (its stream was just closed) stores its words first; bounded
  const turn = rt.chats.get(first.id);
  if (turn) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([turn.finished, new Promise<void>((r) => (timer = setTimeout(r, END_WAITS_FOR_TURN_MS)))]);
    clearTimeout(timer);
  }
  const row = await chatRow(deps, caller, chatId);
  if (row.status !== 'ongoing') return row;
  await finishChat(deps, row, 'user_hangup', now(deps));
  return chatRow(deps, caller, chatId);
}

const CHAT_LOCK_MS = 120_000;

/**
 * Prepares one chat turn: the chat must be the caller's and still going, and is locked for this turn
 * (409 while another reply is being written; a reply the tester stopped on this server is waited for, since
 * it only has to be stored); the keys are checked. Errors here are plain HTTP answers.
 * The returned `run` streams the turn's events to `emit` and always releases the lock; aborting its
 * `signal` (the tester stopped the reply) stops the turn and its LLM request at once, and keeps the
 * caller's message and the part of the reply already sent (interrupted).
 */
export async function prepareChatMessage(
  deps: AppDeps,
  rt: CallRuntime,
  caller: Caller,
  chatId: string,
): Promise<{ run: (content: string, emit: (e: ChatStreamEvent) => void, signal?: AbortSignal) => Promise<void> }> {
  const before = await chatRow(deps, caller, chatId);
  if (before.status !== 'ongoing') throw new HttpError(409, CALL_RUNTIME_MESSAGES.chatEnded);
  let planned: { agent: AgentDoc; plan: CallPlan };
  try {
    planned = planCall(
      before.agent,
      'text',
      parseJson<Record<string, string>>(before.dynamic_variables, {}),
      callRuntime(deps).providers,
    );
  } catch (e) {
    if (!(e instanceof InvalidAgentError)) throw e;
    deps.logger.warn('chat message refused: the stored agent is not valid', { callId: before.id, reason: e.message });
    throw new HttpError(409, e.message);
  }
  const { agent, plan } = planned;
  const keys = await keysFor(deps, caller.companyId, agent, requiredProviders(plan.pipeline, 'text'));
  await refuseOverSpend(deps, caller.companyId);
  const at = now(deps);
  const locked = await lockChat(deps.db.db, caller.companyId, before.id, rt.serverId, at, new Date(at.getTime() - CHAT_LOCK_MS));
  if (!locked) {
    const stopped = rt.chats.get(before.id);
    if (!stopped?.stopped) throw new HttpError(409, CALL_RUNTIME_MESSAGES.chatBusy);
    await stopped.finished;
    return prepareChatMessage(deps, rt, caller, chatId);
  }
  let finish = () => {};
  const turn: ChatTurn = { stopped: false, finished: new Promise<void>((resolve) => (finish = resolve)) };
  rt.chats.set(before.id, turn);
  const release = async () => {
    try {
      await releaseChat(deps.db.db, caller.companyId, before.id, rt.serverId);
    } finally {
      if (rt.chats.get(before.id) === turn) rt.chats.delete(before.id);
      finish();
    }
  };
  try {
    // the transcript as it is now that the chat is ours (a turn may have ended since it was first read)
    const row = await chatRow(deps, caller, chatId);
    return {
      run: async (content, emit, signal = new AbortController().signal) => {
        const onStop = () => {
          turn.stopped = true;
        };
        signal.addEventListener('abort', onStop, { once: true });
        try {
          await runChatTurn(deps, rt, row, plan, keys, content, emit, signal);
        } finally {
          signal.removeEventListener('abort', onStop);
          await release();
        }
      },
    };
  } catch (e) {
    await release();
    throw e;
  }
}

async function runChatTurn(
  deps: AppDeps,
  rt: CallRuntime,
  row: CallSessionRow,
  plan: CallPlan,
  keys: ProviderKeys,
  content: string,
  emit: (e: ChatStreamEvent) => void,
  signal: AbortSignal,
) {
  const transcript = parseJson<TranscriptTurn[]>(row.transcript, []);
  const latency = parseJson<TurnLatency[]>(row.latency, []);
  const flowState = row.flow_state ? parseJson<FlowRunState | undefined>(row.flow_state, undefined) : undefined;
  /** the reply as far as it was sent, its start in ms of the turn's time line */
  const sent: { text: string; startMs?: number } = { text: '' };
  const msNow = () => Math.max(0, Math.round(performance.now() - conversation.t0));
  const conversation = new Conversation({
    deps,
    providers: rt.providers,
    companyId: row.company_id,
    plan,
    keys,
    knowledge: knowledgeSearch(deps),
    toolKinds: rt.toolKinds,
    toolServices: toolServices(deps),
    call: toolCallInfo(row, parseJson<Record<string, string>>(row.dynamic_variables, {})),
    line: new ChatLine({
      delta: (text) => {
        sent.startMs ??= msNow();
        sent.text += text;
        emit({ type: 'delta', text });
      },
      toolCall: (name, args) => emit({ type: 'tool_call', name, arguments: args }),
      toolResult: (name, ok, result, ms) => emit({ type: 'tool_result', name, ok, result, ms }),
      node: (node_id, name) => emit({ type: 'node', node_id, name }),
    }),
    transcript,
    ...(flowState ? { flowState } : {}),
  });
  conversation.start();
  const stopped = await Promise.race([
    conversation.message(content).then(() => false),
    new Promise<true>((resolve) => {
      if (signal.aborted) resolve(true);
      else signal.addEventListener('abort', () => resolve(true), { once: true });
    }),
  ]);
  const ended = !stopped && conversation.actor.getSnapshot().status === 'done';
  const outcome = ended ? await conversation.ended : undefined;
  // stopping the actor stops the reply actor: its signal aborts the LLM request
  conversation.actor.stop();
  void conversation.dispose();
  if (stopped && sent.text.trim())
    conversation.transcript.push({
      role: 'agent',
      text: sent.text,
      start_ms: sent.startMs ?? 0,
      end_ms: msNow(),
      interrupted: true,
    });
  if (outcome && outcome.reason !== 'agent_hangup')
    emit({ type: 'error', message: outcome.errorMessage ?? 'The chat failed.', reason: outcome.reason });
  const allLatency = [...latency, ...conversation.latency];
  const usage = mergeUsage(row, conversation);
  const cost = roundCost(row.cost + conversation.cost().total);
  if (outcome) {
    await finishCallSession(deps.db.db, row, {
      status: outcome.reason.startsWith('error_') ? 'error' : 'ended',
      reason: outcome.reason,
      errorMessage: outcome.errorMessage,
      transcript: conversation.transcript,
      latency: allLatency,
      usage,
      cost,
      recording: null,
      endedAt: now(deps),
      ...(conversation.flow ? { flowPath: conversation.flow.path } : {}),
    });
  } else {
    await saveChatTurn(deps.db.db, row.company_id, row.id, {
      transcript: conversation.transcript,
      latency: allLatency,
      usage,
      cost,
      now: now(deps),
      ...(conversation.flow ? { flow: { path: conversation.flow.path, state: conversation.flow.state() } } : {}),
    });
  }
  emit({ type: 'done', ended: outcome !== undefined });
}

const roundCost = (usd: number) => Math.round(usd * 10_000) / 10_000;

function mergeUsage(row: CallSessionRow, c: Conversation) {
  const before = parseJson<Partial<typeof c.usage>>(row.usage, {});
  return {
    ...c.usage,
    llm_input_tokens: (before.llm_input_tokens ?? 0) + c.usage.llm_input_tokens,
    llm_output_tokens: (before.llm_output_tokens ?? 0) + c.usage.llm_output_tokens,
  };
}

// ---------------------------------------------------------------------------------------------
// Web call (Test)

/**
 * `POST /call/web`: a web call holds a line like a phone call, so it is admitted the same way (spend 402,
 * concurrency 429 under the company lock: server/modules/conversations/limits.ts).
 */
export async function startWebCall(deps: AppDeps, caller: Caller, body: StartConversationBody) {
  const { agentId, doc } = await agentForTest(deps, caller, body);
  await keysFor(deps, caller.companyId, doc, requiredProviders(pipelineOf(doc, callRuntime(deps).providers), 'voice'));
  await refuseOverSpend(deps, caller.companyId);
  const token = newToken();
  const row = await takeLine(deps, caller.companyId, (trx) =>
    createCallSession(trx, {
      companyId: caller.companyId,
      accountId: caller.accountId,
      agentId,
      agent: doc,
      type: 'web',
      from: '',
      to: '',
      phoneNumber: '',
      variables: variablesOf(deps, body.dynamic_variables, { call_type: 'web' }),
      token: { value: token, expiresAt: new Date(now(deps).getTime() + WEB_CALL_TOKEN_TTL_MS) },
      now: now(deps),
    }),
  );
  return { call_id: row.id, access_token: token };
}

/** Waits (at most `ms`) for the web calls of this server to be stored: at shutdown, after their sockets closed. */
export async function settleCalls(rt: CallRuntime, ms = 5000): Promise<void> {
  await Promise.race([Promise.allSettled([...rt.running]), new Promise((r) => setTimeout(r, ms).unref())]);
}

/**
 * A browser's socket for `callId` with its one-time token: the call runs on this server until it ends.
 * Answers false (the caller closes the socket with a policy error) when the token is not valid.
 */
export async function takeWebCall(deps: AppDeps, rt: CallRuntime, callId: string, token: string) {
  if (!isId(callId)) return undefined;
  return claimCallToken(deps.db.db, callId, token, now(deps), rt.serverId);
}

export function runWebCall(deps: AppDeps, rt: CallRuntime, row: CallSessionRow, socket: WebSocket): void {
  runLineCall(deps, rt, row, new WebTransport(socket), { label: 'web call' });
}

export interface LineCallOptions {
  /** for the log lines: 'web call', 'phone call' */
  label: string;
  /** waits for the line to be ready (a phone stream's start message) before the conversation starts */
  ready?: Promise<unknown>;
  /** phone calls: the end's reason and status as the carrier knows it (a voicemail reached, a transfer) */
  endOf?: (c: Conversation, end: { reason: string }) => Promise<{ reason?: string } | undefined>;
  /** minutes on a phone line are counted in the usage */
  phone?: boolean;
}

/**
 * Runs a conversation on a line (a browser's socket, a phone carrier's media stream) until it ends, with
 * Parley's own recording of both directions, then stores the call.
 */
export function runLineCall(
  deps: AppDeps,
  rt: CallRuntime,
  row: CallSessionRow,
  transport: AudioLine & { agentPlayout: Playout },
  options: LineCallOptions,
): void {
  const variables = parseJson<Record<string, string>>(row.dynamic_variables, {});
  const dir = recordingsDir(deps.config.dataDir, row.company_id);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const recordingName = `${row.id}.wav`;
  // the stored agent is validated and compiled once, here; an invalid one fails the call's start
  let planned: { agent: AgentDoc; plan: CallPlan } | undefined;
  let keysPromise: Promise<ProviderKeys>;
  try {
    planned = planCall(row.agent, 'voice', variables, rt.providers);
    keysPromise = keysFor(deps, row.company_id, planned.agent, requiredProviders(planned.plan.pipeline, 'voice'));
  } catch (e) {
    if (!(e instanceof InvalidAgentError)) throw e;
    deps.logger.warn(`${options.label} refused: the stored agent is not valid`, { callId: row.id, reason: e.message });
    keysPromise = Promise.reject(e);
    keysPromise.catch(() => {});
  }
  const startedAt = performance.now();
  const minutesOnLine = () => Math.round(((performance.now() - startedAt) / 60_000) * 100) / 100;
  const run = async () => {
    let keys: ProviderKeys;
    try {
      keys = await keysPromise;
      await options.ready;
    } catch (e) {
      transport.hangUp('error_unknown', e instanceof Error ? e.message : undefined);
      await finishCallSession(deps.db.db, row, {
        status: 'error',
        reason: 'error_unknown',
        errorMessage: e instanceof Error ? e.message : null,
        transcript: [],
        latency: [],
        usage: emptyUsage(planned?.agent),
        cost: 0,
        recording: null,
        endedAt: now(deps),
      });
      return;
    }
    if (!planned) return;
    const { plan } = planned;
    // what the agent's storage level keeps: no recording is even written when it keeps none
    const policy = contentPolicy(row.agent, row.dynamic_variables);
    const keep = transcriptKeeper(policy);
    const recorder = policy.record
      ? await CallRecording.open(path.join(dir, recordingName), transport.format ?? BROWSER_AUDIO)
      : undefined;
    if (recorder) transport.agentPlayout.onFrameSent = (frame, at) => recorder.agent(frame, at);
    const c = new Conversation({
      deps,
      providers: rt.providers,
      companyId: row.company_id,
      plan,
      keys,
      knowledge: knowledgeSearch(deps),
      toolKinds: rt.toolKinds,
      toolServices: toolServices(deps),
      call: toolCallInfo(row, variables),
      ...(row.provider ? { carrier: row.provider } : {}),
      line: transport,
      ...(recorder ? { recorder } : {}),
      onTurn: (conv) => {
        if (options.phone) conv.usage.telephony_minutes = minutesOnLine();
        void saveProgress(deps.db.db, row.company_id, row.id, {
          transcript: keep(conv.transcript),
          latency: conv.latency,
          usage: conv.usage,
          cost: conv.cost().total,
          now: now(deps),
          ...(conv.flow ? { flowPath: conv.flow.path } : {}),
        }).catch((err) => deps.logger.warn('call progress not saved', { callId: row.id, reason: String(err) }));
      },
    });
    rt.live.set(row.id, c);
    announceCall(deps, 'call.started', { companyId: row.company_id, callId: row.id });
    c.start();
    const end = await c.ended;
    rt.live.delete(row.id);
    const recording = await recorder?.close().catch((e) => {
      deps.logger.warn('call recording failed', { callId: row.id, reason: e instanceof Error ? e.message : String(e) });
      return undefined;
    });
    if (options.phone) c.usage.telephony_minutes = minutesOnLine();
    const carrier = await options.endOf?.(c, end).catch(() => undefined);
    const reason = (carrier?.reason ?? end.reason) as CallEndReason;
    const stored = await finishCallSession(deps.db.db, row, {
      status: reason.startsWith('error_') ? 'error' : 'ended',
      reason,
      errorMessage: end.errorMessage,
      transcript: c.transcript,
      latency: c.latency,
      usage: c.usage,
      cost: c.cost().total,
      recording: recording && recording.durationMs > 0 ? recordingName : null,
      endedAt: now(deps),
      ...(c.flow ? { flowPath: c.flow.path } : {}),
    });
    if (stored) announceCall(deps, 'call.ended', { companyId: row.company_id, callId: row.id, analyse: true });
    deps.logger.info(`${options.label} ended`, {
      callId: row.id,
      reason,
      turns: c.transcript.length,
      ...lineAudioFields(transport.callerAudio, recording),
    });
  };
  const running = run().catch((e) =>
    deps.logger.error(`${options.label} failed`, { callId: row.id, reason: e instanceof Error ? e.message : String(e) }),
  );
  rt.running.add(running);
  void running.finally(() => rt.running.delete(running));
}

/** The caller's audio the line dropped (faster than real time) and what the recording cut, for the end's log line. */
function lineAudioFields(audio: CallerAudioStats | undefined, recording: WavSummary | undefined) {
  return {
    ...(audio
      ? {
          caller_audio_received_bytes: audio.receivedBytes,
          caller_audio_dropped_bytes: audio.droppedBytes,
          caller_audio_dropped_frames: audio.droppedFrames,
        }
      : {}),
    ...(recording
      ? { recording_dropped_ms: Math.round(recording.droppedMs), recording_unwritten_bytes: recording.unwrittenBytes }
      : {}),
  };
}

/** The usage of a call that never ran (`agent`: its stored document, when it is valid). */
export function emptyUsage(agent: AgentDoc | undefined) {
  return {
    stt_seconds: 0,
    llm_input_tokens: 0,
    llm_output_tokens: 0,
    tts_characters: 0,
    telephony_minutes: 0,
    llm_model: agent?.settings.llm.options.model ?? '',
    stt_provider: '',
    tts_provider: '',
  };
}

// ---------------------------------------------------------------------------------------------
// Test Audio

/** The longest preview kept (seconds of audio); a longer one is cut. */
export const PREVIEW_MAX_SECONDS = 60;

/**
 * The agent's voice saying `text` (else its welcome message), as a 16 kHz mono WAV: the same voice
 * provider, voice, model and settings a call uses.
 */
export async function previewVoice(
  deps: AppDeps,
  rt: CallRuntime,
  caller: Caller,
  body: { agent_id?: string | undefined; agent?: StartConversationBody['agent']; text?: string | undefined },
): Promise<Buffer> {
  const { doc } = await agentForTest(deps, caller, { agent_id: body.agent_id ?? NEW_AGENT_ID, agent: body.agent });
  const text = (body.text?.trim() || fillVariables(doc.message, variablesOf(deps, {})).trim()).slice(0, 500);
  if (!text) throw new HttpError(400, CALL_RUNTIME_MESSAGES.previewTextRequired);
  const plan = compileCallPlan(doc, 'voice', variablesOf(deps, {}), rt.providers);
  const tts = plan.pipeline.tts;
  const keys = await keysFor(deps, caller.companyId, doc, [tts]);
  const format = { encoding: 'pcm16' as const, sampleRate: 16000 as const };
  const max = PREVIEW_MAX_SECONDS * format.sampleRate * 2;
  const chunks = await collectSpeech(
    rt.providers.tts(tts),
    voiceOptions(plan.voice, keys[tts], deps.config.providerUrls[tts], format),
    text,
    { timeoutMs: 30_000, maxBytes: max },
  ).catch((e) => {
    if (e instanceof SpeechTimeoutError) throw new HttpError(504, `${providerLabel(tts)} did not answer in time.`);
    throw e instanceof ProviderError ? new HttpError(502, providerMessage(e)) : e;
  });
  const pcm = Buffer.concat(chunks).subarray(0, max);
  return Buffer.concat([wavHeader(pcm.length, format.sampleRate, 1), pcm]);
}
