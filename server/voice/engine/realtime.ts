/**
 * The speech-to-speech path of the same machine (the two Realtime models): one OpenAI Realtime session
 * per call hears the caller and answers with audio by itself. The machine keeps deciding the turns:
 * - listen = the session: its voice detection becomes caller.speech_started / caller.utterance_ended, its
 *   late transcript of the caller is written into the call's transcript when it arrives;
 * - reply = one response of the session: its audio goes to the line (paced like any voice), its transcript
 *   becomes the agent's turn, a tool call is answered (end_call: hang up once the caller has heard it; a
 *   function of the agent is run like on the cascaded path; once the response is done and all its
 *   functions have answered, their results go back together with sendToolResults (one response asked for
 *   all of them), the session then answering with them in the same turn);
 *   leaving the turn (barge-in) cancels the response and truncates it at what the caller heard.
 * Responses the session starts before a reply actor is there (the greeting, an answer to an utterance)
 * are held until the turn takes them. Knowledge search and reminders belong to the cascaded path only.
 */
import type { CallSessionRef, ReplyInput } from '../../../src/machines/callSession.machine.js';
import type { AudioLine } from '../lines/types.js';
import type { RealtimeEvent, RealtimeSession } from '../providers/types.js';
import { runTool } from '../tools/runner.js';
import { type CallContext, type RealtimeTurns, untilAborted } from './context.js';
import { failureOf } from './failures.js';
import type { CallPlan } from './plan.js';
import { buildMessages } from './prompt.js';

/** A turn the provider does not start answering within this time ends with nothing said. */
const NO_RESPONSE_MS = 15_000;

type ResponseEvent = Extract<RealtimeEvent, { type: 'audio' | 'agent_transcript' | 'tool_call' | 'response_done' }>;

export class RealtimeBridge implements RealtimeTurns {
  private session: RealtimeSession | undefined;
  /** the reply actor taking the session's response events, if any */
  private sink: ((e: ResponseEvent) => void) | undefined;
  /** response events that came before a reply actor took them */
  private held: ResponseEvent[] = [];
  /** the item being played and where its audio starts on the playout's timeline */
  private item: { id: string; startMs: number; text: string } | undefined;
  /** a response was cancelled (barge-in): its late events are dropped until its response_done */
  private draining = false;

  constructor(
    private readonly c: CallContext,
    private readonly line: AudioLine,
    private readonly settings: NonNullable<CallPlan['realtime']>,
  ) {}

  async listen(parent: CallSessionRef, signal: AbortSignal): Promise<void> {
    const o = this.c.options;
    const { plan } = o;
    const settings = this.settings;
    const instructions = buildMessages({
      prompt: plan.prompt,
      mode: 'voice',
      history: [],
      knowledge: [],
      reminder: false,
      facts: `The current time is ${o.deps.clock.now().toISOString()}.`,
    })[0]?.content as string;
    let fail: (e: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    failed.catch(() => {});
    // the agent's functions are offered from the session's start
    const prepared = await this.c.tools();
    if (signal.aborted) return;
    try {
      const provider = plan.pipeline.llm.provider;
      const access = o.keys[provider];
      this.session = await o.providers.realtime(provider).connect(
        {
          apiKey: access?.apiKey ?? '',
          baseUrl: access?.baseUrl ?? o.deps.config.providerUrls[provider] ?? '',
          ...(access?.publicOnly ? { publicOnly: true } : {}),
          model: plan.pipeline.llm.model,
          instructions,
          voice: settings.voice,
          format: this.line.format,
          tools: [...plan.tools.map((t) => t.spec), ...prepared.map((t) => t.spec)],
          temperature: settings.temperature,
          silenceMs: settings.silenceMs,
          vadThreshold: 0.5,
          ...(plan.session.greeting ? { greeting: plan.session.greeting } : {}),
        },
        (e) => {
          if (e.type === 'speech_started') parent.send({ type: 'caller.speech_started' });
          else if (e.type === 'speech_stopped') parent.send({ type: 'caller.utterance_ended' });
          else if (e.type === 'user_transcript') this.c.callerTranscriptArrived(e.text);
          else if (e.type === 'error') fail(failureOf(e.error, 'error_llm_provider'));
          else if (this.draining) {
            if (e.type === 'response_done') this.draining = false;
          } else if (this.sink) this.sink(e);
          else this.held.push(e);
        },
        signal,
      );
    } catch (e) {
      throw failureOf(e, 'error_llm_provider');
    }
    const session = this.session;
    this.c.callerAudio.connect((frame) => session.sendAudio(frame));
    try {
      await Promise.race([untilAborted(signal), failed]);
    } finally {
      this.c.callerAudio.disconnect();
      void session.close().catch(() => {});
    }
  }

  /** One agent turn: the session's next response, played to the caller. */
  async reply(input: ReplyInput, signal: AbortSignal, onOutput: () => void): Promise<void> {
    const line = this.line;
    const parent = input.parent;
    const endCallNames = new Set(this.c.options.plan.tools.filter((t) => t.type === 'end_call').map((t) => t.spec.name));
    const prepared = await this.c.tools();
    let text = '';
    /** functions running now, the turn's tool calls so far, and the responses still to come */
    let running = 0;
    let callIndex = 0;
    let outstanding = 1;
    /** results of the response's tool calls, sent together once it is done and every function has answered */
    const results: { callId: string; output: string }[] = [];
    return new Promise<void>((resolve, reject) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        this.sink = undefined;
        if (text) parent.send({ type: 'reply.sentence', text: text.trim() });
        line.mark(() => resolve());
      };
      signal.addEventListener(
        'abort',
        () => {
          this.sink = undefined;
          const item = this.item;
          if (item && this.session && !finished) {
            this.draining = true;
            this.held = [];
            this.session.interrupt(item.id, Math.max(0, line.heardMs() - item.startMs));
          }
          this.item = undefined;
          resolve();
        },
        { once: true },
      );
      /**
       * Once the response that asked is done and no function still runs: every result, then one request
       * for the next response, which answers with all of them.
       */
      const flush = () => {
        if (outstanding > 0 || running > 0 || results.length === 0) return false;
        outstanding++;
        this.session?.sendToolResults(results.splice(0));
        return true;
      };
      this.sink = (e) => {
        if (signal.aborted) return;
        if (e.type === 'audio') {
          if (this.item?.id !== e.itemId) this.item = { id: e.itemId, startMs: line.queuedEndMs(), text: '' };
          line.play(e.chunk);
          onOutput();
        } else if (e.type === 'agent_transcript') {
          text += e.text;
          if (this.item) this.item.text += e.text;
        } else if (e.type === 'tool_call') {
          const isEnd = endCallNames.has(e.call.name);
          const tool = isEnd ? undefined : prepared.find((t) => t.spec.name === e.call.name);
          const index = callIndex++;
          parent.send({
            type: 'reply.tool_call',
            name: isEnd ? 'end_call' : e.call.name,
            arguments: e.call.arguments,
            ...(tool ? { toolType: tool.fn.type } : {}),
          });
          if (!tool) {
            if (!isEnd) results.push({ callId: e.call.id, output: 'ok' });
            return;
          }
          // the function runs; its result goes back to the session, which answers with it
          if (running++ === 0) parent.send({ type: 'reply.tools_started' });
          void runTool(tool, e.call.arguments, this.c.toolEnv, signal).then((run) => {
            running--;
            // a barge-in or the call's end: the result is dropped
            if (signal.aborted || finished) return;
            parent.send({ type: 'reply.tool_result', index, status: run.status, result: run.result, ms: run.ms });
            if (running === 0) parent.send({ type: 'reply.tools_done' });
            results.push({ callId: e.call.id, output: run.result });
            flush();
          });
        } else if (e.type === 'response_done') {
          this.c.usage.llm_input_tokens += e.inputTokens;
          this.c.usage.llm_output_tokens += e.outputTokens;
          outstanding--;
          if (!flush() && outstanding <= 0 && running === 0) done();
        }
      };
      for (const e of this.held.splice(0)) this.sink?.(e);
      // an utterance the provider did not answer (noise): the turn ends with nothing said
      const idle = setTimeout(() => {
        if (!this.item && !finished && !signal.aborted && running === 0) done();
      }, NO_RESPONSE_MS);
      signal.addEventListener('abort', () => clearTimeout(idle), { once: true });
      void reject;
    });
  }

  /** What the caller heard of the response being played, at `heardMs` of the playout (words pro rata). */
  cut(heardMs: number): string {
    const item = this.item;
    if (!item) return '';
    const played = Math.max(0, heardMs - item.startMs);
    const total = Math.max(1, this.line.queuedEndMs() - item.startMs);
    const words = item.text.trim().split(/\s+/).filter(Boolean);
    return words.slice(0, Math.round(words.length * Math.min(1, played / total))).join(' ');
  }
}
