/**
 * reply: one agent turn of the cascaded path (and of a chat). Knowledge search for an answer, then the
 * LLM's stream: on an audio line it is cut into sentences, each spoken by the Speaker as soon as it is
 * complete; on a text line its deltas go to the chat as they come. Tool calls: end_call (the machine hangs
 * up once the goodbye is heard), transfer_call (cold: the carrier moves the caller after the turn is committed;
 * warm: it runs with the round like a function, and its result says whether the caller was joined),
 * and the agent's other functions: run (several at once, runner.ts; each starts as soon as the model has
 * called it, while the rest of its answer arrives, except a tool that plays into the call, which waits for
 * the words before it), their results given back to the model, which goes on; at most MAX_TOOL_ROUNDS rounds a turn. A function that has not answered within 500 ms
 * makes the voice say its `speak_during` sentence (once a turn; never written in a chat).
 * A conversation-flow agent's turn (flow.ts): the system prompt and the tools are the current node's, a
 * transition tool moves the flow and the model goes on in the new node; the nodes the engine runs itself
 * (static texts, function, transfer and end nodes) run before the model and after each transition.
 * The speech-to-speech path answers in realtime.ts instead.
 */

import { TOOL_TIMEOUT_MS } from '@contract/agent/functions.js';
import type { ReplyInput } from '../../../src/machines/callSession.machine.js';
import type { LlmEvent, ToolCall } from '../providers/types.js';
import { runTool, SPEAK_DURING_AFTER_MS, type ToolEnvBase, type ToolRun } from '../tools/runner.js';
import type { PreparedTool } from '../tools/types.js';
import type { CallContext } from './context.js';
import { failureOf } from './failures.js';
import { buildMessages } from './prompt.js';
import { Speaker } from './speaker.js';
import { fillVariables, SentenceSplitter } from './text.js';
import { latencyOf } from './turn-clock.js';

/** At most this many rounds of functions in one agent turn (each: the model calls, they run, it goes on). */
export const MAX_TOOL_ROUNDS = 5;
/** At most this many flow nodes whose work the engine does itself (static texts, functions) in one turn. */
export const FLOW_STEPS_A_TURN = 20;

/** A tool call of one LLM request: the prepared tool when the engine runs it. */
interface RoundCall {
  call: ToolCall;
  tool: PreparedTool | undefined;
  /** end_call or transfer (the engine itself acts on it) */
  engine: boolean;
  /** a warm transfer: the engine runs it with the round (the caller waits with the agent) */
  warm?: { number: string; timeoutMs: number; speakDuring: string };
  /** its place among the turn's tool calls (the machine's record) */
  index: number;
  /** its run, started as soon as the model called it (the rest of the model's answer is still arriving) */
  started?: Promise<ToolRun>;
  /** one of the conversation flow's tools (a transition, set_variables): the flow run answers it */
  flow?: boolean;
}

/**
 * Runs a round's tool calls in parallel. When one has not answered within SPEAK_DURING_AFTER_MS, `speak`
 * gets the `speak_during` sentence of the first still running that has one (fast tools say nothing); a
 * warm transfer's is said at once.
 */
async function runRound(
  calls: RoundCall[],
  c: CallContext,
  env: ToolEnvBase,
  signal: AbortSignal,
  speak: (sentence: string) => void,
): Promise<Map<RoundCall, ToolRun>> {
  const pending = new Set(calls);
  // a warm transfer always waits for a person to pick up: its sentence is said at once
  const warm = calls.find((rc) => rc.warm?.speakDuring);
  if (warm?.warm) speak(warm.warm.speakDuring);
  const timer = setTimeout(() => {
    const waiting = calls.find((rc) => pending.has(rc) && speakDuringOf(rc));
    const sentence = waiting && speakDuringOf(waiting);
    if (sentence) speak(sentence);
  }, SPEAK_DURING_AFTER_MS);
  try {
    const runs = await Promise.all(
      calls.map(async (rc) => {
        const run = rc.warm
          ? await warmTransfer(rc.warm, c, signal)
          : await (rc.started ?? runTool(rc.tool as PreparedTool, rc.call.arguments, env, signal));
        pending.delete(rc);
        return [rc, run] as const;
      }),
    );
    return new Map(runs);
  } finally {
    clearTimeout(timer);
  }
}

const speakDuringOf = ({ tool, warm }: RoundCall) =>
  warm ? warm.speakDuring : tool && 'speak_during' in tool.fn ? (tool.fn.speak_during ?? '').trim() : '';

/** A warm transfer as one of the round's runs: its result tells the model whether the caller was joined. */
async function warmTransfer(warm: NonNullable<RoundCall['warm']>, c: CallContext, signal: AbortSignal): Promise<ToolRun> {
  const started = performance.now();
  const { connected, result } = await c.warmTransfer(warm.number, warm.timeoutMs, signal);
  return { status: connected ? 'ok' : 'error', ok: connected, result, ms: Math.round(performance.now() - started) };
}

/** Words said by the agent when it ends the call without saying anything. */
export const GOODBYE = 'Thank you for calling. Goodbye!';
const LLM_MAX_TOKENS = 512;

/**
 * The reply actor: one agent turn (the cascaded answer below, or the speech-to-speech session's response),
 * timed by the turn clock; an answer's latency is recorded once it has been heard.
 */
export async function reply(c: CallContext, input: ReplyInput, signal: AbortSignal): Promise<void> {
  const parent = input.parent;
  const clock = c.clock;
  const times = clock.beginReply();
  const turn = {};
  c.turn = turn;
  const speaker = c.audio && !c.realtime ? new Speaker(c.voice(c.audio), parent, signal) : undefined;
  c.speaker = speaker;
  let outputStarted = false;
  /** the caller starts hearing (or reading) the reply */
  const started = () => {
    if (outputStarted) return;
    outputStarted = true;
    clock.agentTurnStartAt = performance.now();
    times.firstAudioAt = clock.agentTurnStartAt;
    parent.send({ type: 'reply.output_started' });
  };
  try {
    if (c.realtime) await c.realtime.reply(input, signal, started);
    else await answer(c, input, signal, speaker, started);
  } finally {
    speaker?.close();
    if (input.kind === 'answer' && times.firstAudioAt !== undefined) {
      const latency = latencyOf(times, c.transcript.length);
      if (latency) c.latency.push(latency);
    }
    // a newer turn may already have started on the same times (a barge-in): leave them to it
    clock.endReply(times, c.turn === turn);
  }
}

/** The cascaded turn: the greeting, or the LLM's answer (or reminder), spoken or written as it streams. */
async function answer(
  c: CallContext,
  input: ReplyInput,
  signal: AbortSignal,
  speaker: Speaker | undefined,
  started: () => void,
): Promise<void> {
  const o = c.options;
  const { plan } = o;
  const parent = input.parent;
  const times = c.clock.times;
  const chat = c.chat;
  /** a complete sentence of the reply: the machine's record, and the voice */
  const say = (sentence: string) => {
    parent.send({ type: 'reply.sentence', text: sentence });
    speaker?.say(sentence, started);
  };
  /** after a line the engine said as written, the chat's next words start with a space */
  let spaceBefore = false;
  /** text the chat shows (a text line only) */
  const write = (text: string) => {
    if (!chat) return;
    started();
    chat.text(spaceBefore && !/^\s/.test(text) ? ` ${text}` : text);
    spaceBefore = false;
  };

  if (input.kind === 'greeting') {
    write(input.text);
    say(input.text);
    await speaker?.finish();
    return;
  }
  speaker?.prepare();
  // the agent's knowledge bases, and those of the flow node the turn starts in
  const node = c.flow?.node();
  const knowledgeBaseIds = [
    ...new Set([...plan.knowledgeBaseIds, ...(node?.type === 'conversation' ? (node.knowledge_base_ids ?? []) : [])]),
  ];
  const lastUser = [...input.history].reverse().find((t) => t.role === 'user')?.text ?? '';
  const [knowledge, prepared] = await Promise.all([
    input.kind === 'answer' && knowledgeBaseIds.length > 0
      ? o.knowledge(o.companyId, knowledgeBaseIds, lastUser).then((hits) => hits.map((h) => h.content))
      : Promise.resolve([] as string[]),
    c.tools(),
  ]);
  if (signal.aborted) return;
  const flow = c.flow;
  const parts = {
    prompt: flow ? flow.prompt() : plan.prompt,
    mode: plan.mode,
    history: input.history,
    knowledge,
    reminder: input.kind === 'reminder',
    facts: `The current time is ${o.deps.clock.now().toISOString()}.`,
  };
  let messages = buildMessages(parts);
  const route = plan.pipeline.llm;
  const provider = o.providers.llm(route.provider);
  const access = o.keys[route.provider];
  /** the tools of a request: the engine's, the agent's functions, and the flow's in its current node */
  const specsNow = () => [...plan.tools.map((t) => t.spec), ...prepared.map((t) => t.spec), ...(flow?.tools() ?? [])];
  const splitter = new SentenceSplitter();
  let endCall = false;
  let transferTo: string | undefined;
  let said = false;
  /** the turn's tool calls so far (their place is the index the machine records results at) */
  let callIndex = 0;
  /** speak_during is said at most once a turn */
  let spokeDuring = false;
  /** a sentence the engine says as written (a flow's static text, an end node's goodbye) */
  const sayLine = (text: string) => {
    if (!text) return;
    for (const s of splitter.flush()) say(s);
    said = true;
    write(text);
    spaceBefore = true;
    say(text);
  };
  /**
   * A conversation flow's work the engine does itself in the node the call is in (flow.ts work()): a
   * static text, a function node's function, an end or transfer node. False when the turn is over (the
   * call ends, or the node waits for the caller); true when the model answers next.
   */
  const flowWork = async (): Promise<boolean> => {
    if (!flow) return true;
    for (let step = 0; step < FLOW_STEPS_A_TURN; step++) {
      const node = flow.work();
      if (!node) return !flow.done;
      const instruction = 'instruction' in node ? node.instruction : undefined;
      const text = instruction?.type === 'static_text' ? fillVariables(instruction.text, flow.values()).trim() : '';
      if (node.type === 'end') {
        flow.markWorked();
        sayLine(text || GOODBYE);
        parent.send({ type: 'reply.tool_call', name: 'end_call', arguments: {} });
        callIndex++;
        endCall = true;
        return false;
      }
      if (node.type === 'transfer') {
        sayLine(text);
        if (c.audio?.transfer) {
          flow.markWorked();
          parent.send({ type: 'reply.tool_call', name: 'transfer_call', arguments: { number: node.number } });
          callIndex++;
          transferTo = node.number;
          return false;
        }
        // a chat (or a line that cannot transfer): the transfer fails, and the node's failure edge is taken
        const rc = engineCall('transfer_call', { number: node.number });
        finishEngineCall(rc, false, 'A transfer is not possible on this call.', 0);
        flow.workDone(false);
        continue;
      }
      if (node.type === 'function') {
        sayLine(text);
        const tool = prepared.find((t) => t.spec.name === node.function || t.fn.name === node.function);
        const args = tool ? flow.argumentsFor(tool.spec.parameters) : {};
        const rc = engineCall(node.function, args, tool?.fn.type);
        const run = tool
          ? await runTool(tool, args, c.toolEnv, signal)
          : { ok: false, status: 'error' as const, result: `There is no function named ${node.function}.`, ms: 0 };
        if (signal.aborted) return false;
        finishEngineCall(rc, run.ok, run.result, run.ms, run.status);
        const before = flow.path.length;
        flow.workDone(run.ok);
        // no edge for this outcome: the model tells the caller, from the function's result
        if (flow.path.length === before) {
          messages.push({ role: 'system', content: `The function ${node.function} answered: ${run.result}` });
          return true;
        }
        continue;
      }
      // a static text (conversation), or a node the engine has nothing to do in (press_digit): said, then done
      sayLine(text);
      const before = flow.path.length;
      flow.workDone();
      // still here: the node waits for the caller's next words
      if (flow.path.length === before) return false;
    }
    return false;
  };
  /** A tool call the engine makes itself for the flow, recorded like the model's (the machine, the chat). */
  const engineCall = (name: string, args: Record<string, unknown>, toolType?: string) => {
    parent.send({ type: 'reply.tool_call', name, arguments: args, ...(toolType ? { toolType } : {}) });
    chat?.toolCall(name, args);
    parent.send({ type: 'reply.tools_started' });
    return { name, index: callIndex++ };
  };
  const finishEngineCall = (
    rc: { name: string; index: number },
    ok: boolean,
    result: string,
    ms: number,
    status: ToolRun['status'] = ok ? 'ok' : 'error',
  ) => {
    parent.send({ type: 'reply.tool_result', index: rc.index, status, result, ms });
    chat?.toolResult?.(rc.name, ok, result, ms);
    parent.send({ type: 'reply.tools_done' });
  };
  times.llmRequestAt = performance.now();
  times.llmFirstTokenAt = undefined;
  if (!(await flowWork()) || signal.aborted) return finishTurn();
  /** the system prompt of the node the flow is in now (a new array: a request already sent keeps its own) */
  const promptOfNode = () => {
    if (flow) messages = [...buildMessages({ ...parts, prompt: flow.prompt(), history: [] }), ...messages.slice(1)];
  };
  promptOfNode();
  for (let round = 0; ; round++) {
    const specs = specsNow();
    /** this request's tool calls, with the prepared tool of those the engine runs */
    const calls: RoundCall[] = [];
    let roundText = '';
    let events: AsyncIterable<LlmEvent>;
    try {
      events = provider.stream({
        apiKey: access?.apiKey ?? '',
        baseUrl: access?.baseUrl ?? o.deps.config.providerUrls[route.provider] ?? '',
        ...(access?.publicOnly ? { publicOnly: true } : {}),
        model: route.model,
        messages,
        tools: specs,
        temperature: flow?.temperature() ?? plan.llm.temperature,
        maxTokens: LLM_MAX_TOKENS,
        signal,
      });
      for await (const e of events) {
        if (signal.aborted) return;
        if (e.type === 'delta') {
          times.llmFirstTokenAt ??= performance.now();
          roundText += e.text;
          write(e.text);
          for (const s of splitter.push(e.text)) {
            said = true;
            say(s);
          }
        } else if (e.type === 'tool_call') {
          times.llmFirstTokenAt ??= performance.now();
          const tool = plan.tools.find((t) => t.spec.name === e.call.name);
          const flowCall = !tool && round < MAX_TOOL_ROUNDS && flow?.owns(e.call.name) === true;
          // past the last round, a function is recorded but not run: the turn ends
          const runnable =
            tool || flowCall || round >= MAX_TOOL_ROUNDS ? undefined : prepared.find((t) => t.spec.name === e.call.name);
          parent.send({
            type: 'reply.tool_call',
            name: tool?.type === 'end_call' ? 'end_call' : e.call.name,
            arguments: e.call.arguments,
            ...(runnable ? { toolType: runnable.fn.type } : {}),
          });
          chat?.toolCall(e.call.name, e.call.arguments);
          const warm =
            tool?.type === 'transfer' && tool.mode === 'warm' && tool.number && c.audio?.warmTransfer && round < MAX_TOOL_ROUNDS
              ? { number: tool.number, timeoutMs: tool.timeoutMs ?? TOOL_TIMEOUT_MS.default, speakDuring: tool.speakDuring ?? '' }
              : undefined;
          // the model has called it: it starts now, not after the rest of the answer (usage, the stream's end)
          const started = runnable && !runnable.actsOnLine ? runTool(runnable, e.call.arguments, c.toolEnv, signal) : undefined;
          calls.push({
            call: e.call,
            tool: runnable,
            engine: tool !== undefined || flowCall,
            index: callIndex++,
            ...(flowCall ? { flow: true } : {}),
            ...(warm ? { warm } : {}),
            ...(started ? { started } : {}),
          });
          if (tool?.type === 'end_call') endCall = true;
          // a line (carrier) without warm transfers moves the caller cold
          if (tool?.type === 'transfer' && !warm && tool.number && c.audio?.transfer) transferTo = tool.number;
        } else if (e.type === 'usage') {
          c.usage.llm_input_tokens += e.inputTokens;
          c.usage.llm_output_tokens += e.outputTokens;
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      throw failureOf(e, 'error_llm_provider');
    }
    const toRun = calls.filter((rc) => rc.tool !== undefined || rc.warm !== undefined);
    const flowCalls = calls.filter((rc) => rc.flow);
    if ((toRun.length === 0 && flowCalls.length === 0) || signal.aborted) break;
    // the words before the functions are said first, in order
    for (const s of splitter.flush()) {
      said = true;
      say(s);
    }
    parent.send({ type: 'reply.tools_started' });
    const runs = await runRound(toRun, c, c.toolEnv, signal, (sentence) => {
      // a voice only (a chat does not write it), once a turn
      if (!speaker || spokeDuring || signal.aborted) return;
      spokeDuring = true;
      said = true;
      say(sentence);
    });
    // a barge-in or the call's end: the results are dropped, never given to the model
    if (signal.aborted) return;
    // the flow's tools, in the order they were called: each moves the flow (or is refused)
    for (const rc of flowCalls)
      runs.set(rc, { status: 'ok', ok: true, result: flow?.call(rc.call.name, rc.call.arguments) ?? '', ms: 0 });
    for (const [rc, run] of runs) {
      parent.send({ type: 'reply.tool_result', index: rc.index, status: run.status, result: run.result, ms: run.ms });
      chat?.toolResult?.(rc.call.name, run.ok, run.result, run.ms);
    }
    parent.send({ type: 'reply.tools_done' });
    // a caller joined to the person they asked for: the stream stops, the model has nothing more to say
    if ([...runs].some(([rc, run]) => rc.warm && run.ok)) break;
    messages.push({ role: 'assistant', content: roundText, toolCalls: calls.map((rc) => rc.call) });
    for (const rc of calls)
      messages.push({
        role: 'tool',
        toolCallId: rc.call.id,
        name: rc.call.name,
        content: runs.get(rc)?.result ?? (rc.engine ? 'ok' : `There is no function named ${rc.call.name}.`),
      });
    if (flowCalls.length > 0) {
      if (!(await flowWork()) || signal.aborted) break;
      promptOfNode();
    }
  }
  return finishTurn();

  async function finishTurn(): Promise<void> {
    for (const s of splitter.flush()) {
      said = true;
      say(s);
    }
    if (endCall && !said) {
      write(GOODBYE);
      say(GOODBYE);
    }
    if (chat) started();
    await speaker?.finish();
    // after the turn is committed (with its tool call) the carrier moves the caller
    if (transferTo && !signal.aborted) {
      const number = transferTo;
      setTimeout(() => c.transfer(number), 0);
    }
  }
}
