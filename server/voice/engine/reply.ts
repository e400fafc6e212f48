/**
 * reply: one agent turn of the cascaded path (and of a chat). Knowledge search for an answer, then the
 * LLM's stream: on an audio line it is cut into sentences, each spoken by the Speaker as soon as it is
 * complete; on a text line its deltas go to the chat as they come. Tool calls: end_call (the machine hangs
 * up once the goodbye is heard), transfer_call (the carrier moves the caller after the turn is committed).
 * The speech-to-speech path answers in realtime.ts instead.
 */
import type { ReplyInput } from '../../../src/machines/callSession.machine.js';
import type { LlmEvent } from '../providers/types.js';
import type { CallContext } from './context.js';
import { failureOf } from './failures.js';
import { buildMessages } from './prompt.js';
import { Speaker } from './speaker.js';
import { SentenceSplitter } from './text.js';
import { latencyOf } from './turn-clock.js';

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
  /** text the chat shows (a text line only) */
  const write = (text: string) => {
    if (!chat) return;
    started();
    chat.text(text);
  };

  if (input.kind === 'greeting') {
    write(input.text);
    say(input.text);
    await speaker?.finish();
    return;
  }
  speaker?.prepare();
  const lastUser = [...input.history].reverse().find((t) => t.role === 'user')?.text ?? '';
  const knowledge =
    input.kind === 'answer' && plan.knowledgeBaseIds.length > 0
      ? (await o.knowledge(o.companyId, plan.knowledgeBaseIds, lastUser)).map((h) => h.content)
      : [];
  const messages = buildMessages({
    prompt: plan.prompt,
    mode: plan.mode,
    history: input.history,
    knowledge,
    reminder: input.kind === 'reminder',
    facts: `The current time is ${o.deps.clock.now().toISOString()}.`,
  });
  const route = plan.pipeline.llm;
  const provider = o.providers.llm(route.provider);
  const access = o.keys[route.provider];
  const splitter = new SentenceSplitter();
  let endCall = false;
  let transferTo: string | undefined;
  let said = false;
  times.llmRequestAt = performance.now();
  times.llmFirstTokenAt = undefined;
  let events: AsyncIterable<LlmEvent>;
  try {
    events = provider.stream({
      apiKey: access?.apiKey ?? '',
      baseUrl: access?.baseUrl ?? o.deps.config.providerUrls[route.provider] ?? '',
      ...(access?.publicOnly ? { publicOnly: true } : {}),
      model: route.model,
      messages,
      tools: plan.tools.map((t) => t.spec),
      temperature: plan.llm.temperature,
      maxTokens: LLM_MAX_TOKENS,
      signal,
    });
    for await (const e of events) {
      if (signal.aborted) return;
      if (e.type === 'delta') {
        times.llmFirstTokenAt ??= performance.now();
        write(e.text);
        for (const s of splitter.push(e.text)) {
          said = true;
          say(s);
        }
      } else if (e.type === 'tool_call') {
        times.llmFirstTokenAt ??= performance.now();
        const tool = plan.tools.find((t) => t.spec.name === e.call.name);
        parent.send({
          type: 'reply.tool_call',
          name: tool?.type === 'end_call' ? 'end_call' : e.call.name,
          arguments: e.call.arguments,
        });
        chat?.toolCall(e.call.name, e.call.arguments);
        if (tool?.type === 'end_call') endCall = true;
        if (tool?.type === 'transfer' && tool.number && c.audio?.transfer) transferTo = tool.number;
      } else if (e.type === 'usage') {
        c.usage.llm_input_tokens += e.inputTokens;
        c.usage.llm_output_tokens += e.outputTokens;
      }
    }
  } catch (e) {
    if (signal.aborted) return;
    throw failureOf(e, 'error_llm_provider');
  }
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
