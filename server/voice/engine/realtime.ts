/**
 * The speech-to-speech path of the same machine (the two Realtime models): one OpenAI Realtime session
 * per call hears the caller and answers with audio by itself. The machine keeps deciding the turns:
 * - listen = the session: its voice detection becomes caller.speech_started / caller.utterance_ended, its
 *   late transcript of the caller is written into the call's transcript when it arrives;
 * - reply = one response of the session: its audio goes to the line (paced like any voice), its transcript
 *   becomes the agent's turn, a tool call is answered (end_call: hang up once the caller has heard it);
 *   leaving the turn (barge-in) cancels the response and truncates it at what the caller heard.
 * Responses the session starts before a reply actor is there (the greeting, an answer to an utterance)
 * are held until the turn takes them. Knowledge search and reminders belong to the cascaded path only.
 */
import type { CallSessionRef, ReplyInput } from '../../../src/machines/callSession.machine.js';
import type { RealtimeEvent, RealtimeSession } from '../providers/types.js';
import type { Conversation } from './conversation.js';
import { failureOf } from './failures.js';
import { buildMessages } from './prompt.js';
import { agentTools } from './settings.js';
import { fillVariables } from './text.js';

/** The editor's voices are ElevenLabs voices: a Realtime agent speaks with this OpenAI voice. */
export const REALTIME_VOICE = 'alloy';
const OPENAI_VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);

/** A turn the provider does not start answering within this time ends with nothing said. */
const NO_RESPONSE_MS = 15_000;

type ResponseEvent = Extract<RealtimeEvent, { type: 'audio' | 'agent_transcript' | 'tool_call' | 'response_done' }>;

export class RealtimeBridge {
  private session: RealtimeSession | undefined;
  /** the reply actor taking the session's response events, if any */
  private sink: ((e: ResponseEvent) => void) | undefined;
  /** response events that came before a reply actor took them */
  private held: ResponseEvent[] = [];
  /** the item being played and where its audio starts on the playout's timeline */
  private item: { id: string; startMs: number; text: string } | undefined;
  /** a response was cancelled (barge-in): its late events are dropped until its response_done */
  private draining = false;

  constructor(private readonly c: Conversation) {}

  async listen(parent: CallSessionRef, signal: AbortSignal): Promise<void> {
    const o = this.c.options;
    const format = o.transport.format;
    if (!format) throw { reason: 'error_transport', message: 'A Realtime agent needs a voice line.' };
    const agent = o.agent;
    const instructions = buildMessages({
      prompt: fillVariables(agent.prompt, o.variables),
      mode: 'voice',
      history: [],
      knowledge: [],
      reminder: false,
      facts: `The current time is ${o.deps.clock.now().toISOString()}.`,
    })[0]?.content as string;
    const voiceId = agent.settings.tts.options.voice_id;
    let fail: (e: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    failed.catch(() => {});
    try {
      const provider = this.c.pipeline.llm.provider;
      const access = o.keys[provider];
      this.session = await o.providers.realtime(provider).connect(
        {
          apiKey: access?.apiKey ?? '',
          baseUrl: access?.baseUrl ?? o.deps.config.providerUrls[provider] ?? '',
          ...(access?.publicOnly ? { publicOnly: true } : {}),
          model: this.c.pipeline.llm.model,
          instructions,
          voice: OPENAI_VOICES.has(voiceId) ? voiceId : REALTIME_VOICE,
          format,
          tools: agentTools(agent).map((t) => t.spec),
          temperature: Math.max(0.6, agent.editor.llmSettings.temperature),
          silenceMs: this.c.realtimeSilenceMs,
          vadThreshold: 0.5,
          ...(o.input.greeting ? { greeting: o.input.greeting } : {}),
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
    this.c.feedCallerAudio((frame) => session.sendAudio(frame));
    try {
      await Promise.race([untilAborted(signal), failed]);
    } finally {
      void session.close().catch(() => {});
    }
  }

  /** One agent turn: the session's next response, played to the caller. */
  reply(input: ReplyInput, signal: AbortSignal, onOutput: () => void): Promise<void> {
    const o = this.c.options;
    const parent = input.parent;
    const endCallNames = new Set(
      agentTools(o.agent)
        .filter((t) => t.type === 'end_call')
        .map((t) => t.spec.name),
    );
    let text = '';
    return new Promise<void>((resolve, reject) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        this.sink = undefined;
        if (text) parent.send({ type: 'reply.sentence', text: text.trim() });
        o.transport.mark(() => resolve());
      };
      signal.addEventListener(
        'abort',
        () => {
          this.sink = undefined;
          const item = this.item;
          if (item && this.session && !finished) {
            this.draining = true;
            this.held = [];
            this.session.interrupt(item.id, Math.max(0, o.transport.heardMs() - item.startMs));
          }
          this.item = undefined;
          resolve();
        },
        { once: true },
      );
      this.sink = (e) => {
        if (signal.aborted) return;
        if (e.type === 'audio') {
          if (this.item?.id !== e.itemId) this.item = { id: e.itemId, startMs: o.transport.queuedEndMs(), text: '' };
          o.transport.play(e.chunk);
          onOutput();
        } else if (e.type === 'agent_transcript') {
          text += e.text;
          if (this.item) this.item.text += e.text;
        } else if (e.type === 'tool_call') {
          const isEnd = endCallNames.has(e.call.name);
          parent.send({ type: 'reply.tool_call', name: isEnd ? 'end_call' : e.call.name, arguments: e.call.arguments });
          if (!isEnd) this.session?.sendToolResult(e.call.id, 'ok');
        } else if (e.type === 'response_done') {
          this.c.usage.llm_input_tokens += e.inputTokens;
          this.c.usage.llm_output_tokens += e.outputTokens;
          done();
        }
      };
      for (const e of this.held.splice(0)) this.sink?.(e);
      // an utterance the provider did not answer (noise): the turn ends with nothing said
      const idle = setTimeout(() => {
        if (!this.item && !finished && !signal.aborted) done();
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
    const total = Math.max(1, this.c.options.transport.queuedEndMs() - item.startMs);
    const words = item.text.trim().split(/\s+/).filter(Boolean);
    return words.slice(0, Math.round(words.length * Math.min(1, played / total))).join(' ');
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
