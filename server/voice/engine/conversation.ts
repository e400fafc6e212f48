/**
 * One conversation on the server: the callSession machine's actor with its effects supplied, the provider
 * streams as its child actors, and the record of what happened (transcript with times, per-turn latency,
 * usage). It runs a CallPlan (plan.ts: the agent's stored document, validated and compiled once) on a line
 * (lines/types.ts: an audio line for a voice call, a text line for a chat). Audio never goes through the
 * machine: the line feeds the speech-to-text stream directly, and the voice's audio goes straight to the
 * line's playout.
 *
 * The parts, each in its own file:
 * - listen.ts: the listen actor (while the line is open): the speech stream; caller audio in, caller.*
 *   events out;
 * - reply.ts: the reply actor (one agent turn): knowledge search, then the LLM stream, spoken sentence by
 *   sentence (speaker.ts) or written to the chat;
 * - realtime.ts: both actors for a speech-to-speech agent (one Realtime session per call);
 * - turn-clock.ts: the times of each turn, and an answer's latency;
 * - flow.ts: a conversation-flow agent's flow run (its node, tools and path), used by the reply actor;
 * - server/voice/tools/runner.ts: the agent's functions, prepared when the conversation starts (in
 *   parallel with the greeting), run by the reply actor, closed when it ends;
 * - context.ts: what the parts see of the conversation (they never import this file).
 */

import type { CallUsage, TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import { usageCost } from '@contract/pricing.js';
import { type Actor, createActor, fromPromise } from 'xstate';
import {
  type CallFailure,
  type CallSessionRef,
  callSessionMachine,
  type ListenInput,
  type ReplyInput,
  type Turn,
} from '../../../src/machines/callSession.machine.js';
import { rmsLevel } from '../audio/level.js';
import { toSamples } from '../audio/pcm16.js';
import { type AudioLine, isAudioLine, type Line, type TextLine } from '../lines/types.js';
import { toolPhoneLine } from '../tools/press-digit/index.js';
import { TOOL_KINDS } from '../tools/registry.js';
import { closeTools, prepareTools, type ToolEnvBase } from '../tools/runner.js';
import { type PreparedTool, ToolError, type ToolServices } from '../tools/types.js';
import { Backchannel } from './backchannel.js';
import { CallerAudio } from './caller-audio.js';
import type { CallContext, CallOptions } from './context.js';
import { FlowRun } from './flow.js';
import { callerKeypad, type Keypad } from './keypad.js';
import { listen } from './listen.js';
import type { Pipeline } from './pipeline.js';
import { voiceOptions } from './plan.js';
import { RealtimeBridge } from './realtime.js';
import { reply } from './reply.js';
import { Acknowledgements, type Speaker, type Voice } from './speaker.js';
import { TurnClock } from './turn-clock.js';

export type { ProviderKeys } from './context.js';
export { GOODBYE } from './reply.js';

/** Receives both sides of the call's audio for the recording. */
export interface CallRecorder {
  caller(frame: Uint8Array, at: number): void;
  agent(frame: Uint8Array, at: number): void;
}

export interface ConversationOptions extends CallOptions {
  line: Line;
  /** the transcript so far (a chat's next message) */
  transcript?: TranscriptTurn[];
  recorder?: CallRecorder;
  /** a turn was added to the transcript (for saving progress) */
  onTurn?: (c: Conversation) => void;
}

export interface ConversationEnd {
  reason: string;
  errorMessage: string | null;
}

/** Services of a conversation run without the company's side (tests of the engine alone). */
const NO_TOOL_SERVICES: ToolServices = {
  signingSecret: () => Promise.reject(new ToolError('Signing is not set up')),
  sendSms: () => Promise.reject(new ToolError('Sending text messages is not set up')),
};

/** A caller frame this loud (RMS, 0..1) counts as voice for the end-of-speech time of latency. */
const VOICE_LEVEL = 0.02;

export class Conversation implements CallContext {
  readonly actor: Actor<typeof callSessionMachine>;
  /** resolves when the call has ended, with its reason */
  readonly ended: Promise<ConversationEnd>;
  readonly transcript: TranscriptTurn[];
  readonly latency: TurnLatency[] = [];
  readonly usage: CallUsage;
  readonly clock = new TurnClock();
  /** the line of a voice call */
  readonly audio: AudioLine | undefined;
  /** the line of a chat */
  readonly chat: TextLine | undefined;
  /** the caller's audio on its way to the speech stream (or the speech-to-speech session) */
  readonly callerAudio = new CallerAudio();
  /** the speech-to-speech session, for a Realtime agent's voice call */
  readonly realtime: RealtimeBridge | undefined;
  /** a conversation-flow agent's flow run (flow.ts) */
  readonly flow: FlowRun | undefined;
  /** the voice of the agent turn in progress (reply.ts) */
  speaker: Speaker | undefined;
  /** the agent turn in progress (reply.ts): a barge-in starts a new one before the old one is put away */
  turn: object | undefined;
  /** transfer_call moved the caller to this number (the line then closes: the call ends as call_transfer) */
  transferredTo: string | undefined;
  private historyLength: number;
  /** the caller's words the speech-to-speech provider sent before their turn was stored */
  private pendingCallerText = '';
  /** rejects when the line ends the call for a reason of its own (a flood): the listen actor fails with it */
  private readonly lineFailed: Promise<never>;
  private failLine: (f: CallFailure) => void = () => {};
  /** short acknowledgements while the caller talks at length (the agent's backchanneling) */
  private readonly backchannel: Backchannel | undefined;
  /** the caller's final words of the turn in progress (for the backchannel's count) */
  private turnFinals = '';
  /** the keys a phone caller presses, collected into caller turns (cascaded calls: a speech-to-speech session takes no text) */
  private readonly keypad: Keypad | undefined;
  /** the agent's functions, prepared once (tools()) */
  private preparedTools: Promise<PreparedTool[]> | undefined;
  /** aborts a prepare still running when the conversation is put away */
  private readonly toolsLife = new AbortController();

  constructor(private readonly o: ConversationOptions) {
    const { plan, line } = o;
    if ((plan.mode === 'voice') !== isAudioLine(line))
      throw new Error(`a ${plan.mode} conversation cannot run on a ${line.kind} line`);
    this.audio = isAudioLine(line) ? line : undefined;
    this.chat = isAudioLine(line) ? undefined : line;
    this.lineFailed = new Promise<never>((_, reject) => {
      this.failLine = reject;
    });
    this.lineFailed.catch(() => {});
    this.realtime = this.audio && plan.realtime ? new RealtimeBridge(this, this.audio, plan.realtime) : undefined;
    this.transcript = [...(o.transcript ?? [])];
    this.flow = plan.flow
      ? new FlowRun(
          plan.flow,
          plan.variables,
          () => o.deps.clock.now(),
          o.flowState,
          (step) => {
            this.chat?.node?.(step.node_id, step.name);
            this.audio?.notify({ type: 'node', node_id: step.node_id, name: step.name });
          },
        )
      : undefined;
    this.historyLength = this.transcript.length;
    this.usage = {
      stt_seconds: 0,
      llm_input_tokens: 0,
      llm_output_tokens: 0,
      tts_characters: 0,
      telephony_minutes: 0,
      llm_model: plan.llm.editorModel,
      stt_provider: plan.mode === 'voice' ? plan.pipeline.stt : '',
      tts_provider: plan.mode === 'voice' ? plan.pipeline.tts : '',
    };
    if (this.audio && plan.backchannel) {
      const words = new Acknowledgements(this.voice(this.audio), () =>
        this.actor.getSnapshot().matches({ conversation: 'userSpeaking' }),
      );
      this.backchannel = new Backchannel(plan.backchannel.words, plan.backchannel.frequency, (word) => words.say(word));
    }
    const history: Turn[] = this.transcript.map((t) => ({
      role: t.role,
      text: t.text,
      ...(t.interrupted ? { interrupted: true } : {}),
      ...(t.tool_calls ? { toolCalls: t.tool_calls } : {}),
    }));
    const machine = callSessionMachine.provide({
      actors: {
        listen: fromPromise<void, ListenInput>(({ input, signal }) => this.listenOnLine(input.parent, signal)),
        reply: fromPromise<void, ReplyInput>(({ input, signal }) => reply(this, input, signal)),
      },
      actions: {
        hangUp: (_, params) => line.hangUp(params.reason, params.message ?? undefined),
        clearPlayback: ({ self }) => {
          const audio = this.audio;
          const heard = audio ? ((this.realtime ?? this.speaker)?.cut(audio.heardMs()) ?? '') : '';
          audio?.clear();
          self.send({ type: 'agent.heard', text: heard });
        },
        announce: (_, params) => this.audio?.notify({ type: 'state', value: params.state }),
      },
    });
    this.actor = createActor(machine, { input: { ...plan.session, history } });
    this.actor.subscribe((snap) => this.observe(snap.context.history));
    this.keypad = this.audio && !this.realtime ? callerKeypad(this.actor, plan.keypad) : undefined;
    this.ended = new Promise((resolve) => {
      this.actor.subscribe({
        complete: () => {
          void this.dispose();
          const out = this.actor.getSnapshot().output;
          resolve({
            reason: this.transferredTo && out?.reason === 'user_hangup' ? 'call_transfer' : (out?.reason ?? 'error_unknown'),
            errorMessage: out?.errorMessage ?? null,
          });
        },
        error: (e) => {
          void this.dispose();
          resolve({ reason: 'error_unknown', errorMessage: e instanceof Error ? e.message : null });
        },
      });
    });
  }

  /** What the conversation runs with (the parts read it). */
  get options(): Readonly<ConversationOptions> {
    return this.o;
  }

  get pipeline(): Pipeline {
    return this.o.plan.pipeline;
  }

  /** performance.now() at the start: every time of the transcript is ms from here */
  get t0(): number {
    return this.clock.t0;
  }

  /** Opens the line: the caller's side starts flowing into the machine. */
  start(): void {
    const closed = () => this.actor.send({ type: 'transport.closed' });
    const audio = this.audio;
    if (audio)
      audio.start({
        audio: (frame, at) => {
          this.o.recorder?.caller(frame, at);
          if (rmsLevel(toSamples(frame, audio.format)) >= VOICE_LEVEL) this.clock.times.callerVoiceEndAt = at;
          this.callerAudio.push(frame, at);
        },
        closed,
        failed: (failure) => this.failLine(failure),
        digit: (key) => this.keypad?.press(key),
      });
    else this.chat?.start({ closed });
    void this.tools();
    this.actor.start();
    void this.ended.then(() => this.keypad?.stop());
    this.actor.send({ type: 'transport.opened' });
  }

  /** Text mode: a message from the caller; resolves when the agent's answer is complete. */
  message(text: string): Promise<void> {
    return new Promise((resolve) => {
      const before = this.transcript.length;
      const sub = this.actor.subscribe((snap) => {
        const c = snap.value as { conversation?: unknown };
        if (snap.status !== 'active' || (this.transcript.length > before + 1 && c.conversation === 'listening')) {
          sub.unsubscribe();
          resolve();
        }
      });
      this.actor.send({ type: 'caller.message', text });
    });
  }

  hangUp(): void {
    this.actor.send({ type: 'call.hangup' });
  }

  /** transfer_call on a phone line: the carrier moves the caller; the line closes and the call ends. */
  transfer(number: string): void {
    const line = this.audio;
    if (!line?.transfer || this.actor.getSnapshot().status !== 'active') return;
    this.transferredTo = number;
    line.transfer(number).catch((e) => {
      this.transferredTo = undefined;
      this.o.deps.logger.warn('call transfer failed', { reason: e instanceof Error ? e.message : String(e) });
    });
  }

  /**
   * Warm transfer_call on a phone line: a short summary of the call written by the agent's LLM from the
   * transcript, then the carrier dials the person, who hears it before the caller is joined. Joined, the
   * call ends as call_transfer (the stream stops); not joined, the caller is still here and the result tells
   * the model why.
   */
  async warmTransfer(number: string, timeoutMs: number, signal: AbortSignal): Promise<{ connected: boolean; result: string }> {
    const line = this.audio;
    if (!line?.warmTransfer || this.actor.getSnapshot().status !== 'active')
      return { connected: false, result: 'A transfer is not possible on this call.' };
    const summary = await this.transferSummary(signal);
    try {
      this.transferredTo = number;
      const end = await line.warmTransfer({ number, summary, timeoutMs, signal });
      if (end.connected) return { connected: true, result: `The caller is now connected to ${number}.` };
      this.transferredTo = undefined;
      const why =
        end.reason === 'busy'
          ? 'the line was busy'
          : end.reason === 'failed'
            ? 'the call could not be placed'
            : 'nobody answered';
      return {
        connected: false,
        result: `The transfer to ${number} did not go through: ${why}. The caller is still with you: tell them, and offer another way to help.`,
      };
    } catch (e) {
      this.transferredTo = undefined;
      const reason = e instanceof Error ? e.message : String(e);
      this.o.deps.logger.warn('call transfer failed', { reason });
      return { connected: false, result: 'The transfer could not be made. The caller is still with you: tell them.' };
    }
  }

  /** What the person a call is warm-transferred to hears first: the LLM's summary of the transcript (a plain line if it fails). */
  private async transferSummary(signal: AbortSignal): Promise<string> {
    const fallback = 'A caller is being transferred to you.';
    const { plan, providers, keys, deps } = this.o;
    const lines = this.actor
      .getSnapshot()
      .context.history.filter((t) => t.text.trim())
      .map((t) => `${t.role === 'user' ? 'Caller' : 'Agent'}: ${t.text}`);
    if (lines.length === 0) return fallback;
    const route = plan.pipeline.llm;
    const access = keys[route.provider];
    let text = '';
    try {
      for await (const e of providers.llm(route.provider).stream({
        apiKey: access?.apiKey ?? '',
        baseUrl: access?.baseUrl ?? deps.config.providerUrls[route.provider] ?? '',
        ...(access?.publicOnly ? { publicOnly: true } : {}),
        model: route.model,
        messages: [
          {
            role: 'system',
            content:
              'You hand a phone call over to a colleague. In at most three short sentences, spoken to them, say who is calling and what they need, from the transcript below. No greeting, no lists.',
          },
          { role: 'user', content: lines.join('\n').slice(-8_000) },
        ],
        tools: [],
        temperature: 0.2,
        maxTokens: 200,
        signal,
      })) {
        if (e.type === 'delta') text += e.text;
        else if (e.type === 'usage') {
          this.usage.llm_input_tokens += e.inputTokens;
          this.usage.llm_output_tokens += e.outputTokens;
        }
        if (text.length > 1_000) break;
      }
    } catch (e) {
      deps.logger.warn('transfer summary not written', { reason: e instanceof Error ? e.message : String(e) });
    }
    return text.trim().slice(0, 1_000) || fallback;
  }

  /** The agent's functions, prepared once (in parallel, each with a deadline; one that fails is left out). */
  tools(): Promise<PreparedTool[]> {
    if (!this.preparedTools) {
      const { plan, deps, toolKinds = TOOL_KINDS } = this.o;
      this.preparedTools =
        plan.functions.length === 0 || this.toolsLife.signal.aborted
          ? Promise.resolve([])
          : prepareTools(plan.functions, toolKinds, this.toolEnv, deps.logger, this.toolsLife.signal).catch((e) => {
              deps.logger.warn('functions not prepared', { reason: e instanceof Error ? e.message : String(e) });
              return [];
            });
    }
    return this.preparedTools;
  }

  /** What a tool runs with: the company, the call, the provider cards, the services and the phone line. */
  get toolEnv(): ToolEnvBase {
    const { deps, companyId, keys, plan } = this.o;
    const audio = this.audio;
    return {
      deps,
      companyId,
      call: this.o.call ?? {
        call_id: '',
        agent_id: '',
        type: audio ? (audio.kind === 'phone' ? 'phone_call' : 'web_call') : 'chat',
        from_number: null,
        to_number: null,
        dynamic_variables: { ...plan.variables },
      },
      keys,
      services: this.o.toolServices ?? NO_TOOL_SERVICES,
      phone: toolPhoneLine(audio, this.o.carrier ?? ''),
    };
  }

  /** Puts the conversation's functions away (an MCP session is closed); once. */
  async dispose(): Promise<void> {
    if (this.toolsLife.signal.aborted) return;
    this.toolsLife.abort();
    const tools = await (this.preparedTools ?? Promise.resolve([]));
    await closeTools(tools);
  }

  /** The agent's voice on `line` (speaker.ts). */
  voice(line: AudioLine): Voice {
    const { plan, keys, deps, providers } = this.o;
    const tts = plan.pipeline.tts;
    return {
      line,
      provider: providers.tts(tts),
      options: voiceOptions(plan.voice, keys[tts], deps.config.providerUrls[tts], line.format),
      plan: plan.voice,
      usage: this.usage,
      times: () => this.clock.times,
    };
  }

  /** The recogniser's words while the caller talks (listen.ts): the backchannel counts them. */
  heardInterim(text: string, final: boolean): void {
    if (!this.actor.getSnapshot().matches({ conversation: 'userSpeaking' })) return;
    this.backchannel?.heard(`${this.turnFinals} ${text}`);
    if (final) this.turnFinals = `${this.turnFinals} ${text}`;
  }

  /** The speech-to-speech provider's transcript of what the caller said (it comes after the turn). */
  callerTranscriptArrived(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    const last = [...this.transcript].reverse().find((t) => t.role === 'user');
    if (last && !last.text) last.text = clean;
    else this.pendingCallerText = clean;
    this.audio?.notify({ type: 'transcript', role: 'user', text: clean, final: true });
    this.o.onTurn?.(this);
  }

  /** Usage and cost so far. */
  cost() {
    return usageCost({
      sttSeconds: this.usage.stt_seconds,
      llmInputTokens: this.usage.llm_input_tokens,
      llmOutputTokens: this.usage.llm_output_tokens,
      ttsCharacters: this.usage.tts_characters,
      telephonyMinutes: this.usage.telephony_minutes,
      llmModel: this.usage.llm_model,
    });
  }

  /** Stamps the turns the machine added to its history with their times. */
  private observe(history: readonly Turn[]) {
    if (history.length <= this.historyLength) return;
    const now = performance.now();
    const clock = this.clock;
    for (const turn of history.slice(this.historyLength)) {
      const t = clock.times;
      if (turn.role === 'user') {
        this.turnFinals = '';
        this.backchannel?.reset();
        const text = turn.text || this.pendingCallerText;
        this.pendingCallerText = '';
        this.transcript.push({
          role: 'user',
          text,
          start_ms: clock.at(t.callerStartAt ?? now),
          end_ms: clock.at(t.callerVoiceEndAt ?? t.sttFinalAt ?? now),
        });
        if (text) this.audio?.notify({ type: 'transcript', role: 'user', text, final: true });
      } else {
        this.transcript.push({
          role: 'agent',
          text: turn.text,
          start_ms: clock.at(clock.agentTurnStartAt ?? now),
          end_ms: clock.at(now),
          ...(turn.interrupted ? { interrupted: true } : {}),
          ...(turn.toolCalls?.length ? { tool_calls: turn.toolCalls } : {}),
        });
        this.audio?.notify({ type: 'transcript', role: 'agent', text: turn.text, final: true });
      }
    }
    this.historyLength = history.length;
    this.o.onTurn?.(this);
  }

  /**
   * The listen actor: the speech stream (or the speech-to-speech session) until the machine stops it, or
   * until the line fails on its own (a flood), which ends the call with the line's reason. The stream is
   * stopped either way (a settled actor's signal never aborts, so it gets a signal of its own).
   */
  private async listenOnLine(parent: CallSessionRef, signal: AbortSignal): Promise<void> {
    const own = new AbortController();
    const stop = () => own.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([
        this.realtime ? this.realtime.listen(parent, own.signal) : listen(this, parent, own.signal),
        this.lineFailed,
      ]);
    } finally {
      signal.removeEventListener('abort', stop);
      own.abort();
    }
  }
}
