/**
 * One conversation on the server: the callSession machine's actor with its effects supplied, the provider
 * streams as its child actors, and the record of what happened (transcript with times, per-turn latency,
 * usage). Audio never goes through the machine: the transport feeds the speech-to-text stream directly,
 * and the voice's audio goes straight to the transport's playout.
 *
 * Child actors (cancelled by the machine when their state is left):
 * - listen (while the line is open): the Deepgram stream; caller audio in, caller.* events out.
 * - reply (one agent turn): knowledge search, then the LLM stream cut into sentences, each spoken by the
 *   voice as soon as it is complete (ordered playback, synthesis of the next sentence overlapping the
 *   current one). In text mode the LLM's deltas go to the chat's event stream instead.
 */

import type { AgentDoc } from '@contract/agent/save.js';
import type { CallUsage, TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import { usageCost } from '@contract/pricing.js';
import { type Actor, createActor, fromPromise } from 'xstate';
import {
  type CallFailure,
  type CallSessionInput,
  type CallSessionRef,
  callSessionMachine,
  type ListenInput,
  type ReplyInput,
  type Turn,
} from '../../../src/machines/callSession.machine.js';
import type { AppDeps } from '../../platform/deps.js';
import { rmsLevel } from '../audio/level.js';
import { toSamples } from '../audio/pcm16.js';
import type { Transport } from '../lines/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import {
  type AudioFormat,
  BROWSER_AUDIO,
  type LlmEvent,
  type ProviderAccess,
  type ProviderId,
  type SttProvider,
  type TtsOptions,
  type TtsProvider,
  type TtsStream,
} from '../providers/types.js';
import { Backchannel } from './backchannel.js';
import { failureOf } from './failures.js';
import type { KnowledgeSearch } from './knowledge.js';
import { type Pipeline, pipelineOf, readsPhonemes, ttsModelId } from './pipeline.js';
import { buildMessages } from './prompt.js';
import { RealtimeBridge } from './realtime.js';
import { agentTools, boostedKeywords, endOfTurnMs, STT_ENDPOINTING_MS, STT_UTTERANCE_END_MS } from './settings.js';
import { applyPronunciations, fillVariables, SentenceSplitter } from './text.js';

/**
 * The company's access to each provider a call needs: key, API base, and whether the base is its own (looked
 * up before the call by server/modules/providers/call-keys.ts and handed in).
 */
export type ProviderKeys = Partial<Record<ProviderId, ProviderAccess>>;

/** Receives both sides of the call's audio for the recording. */
export interface CallRecorder {
  caller(frame: Uint8Array, at: number): void;
  agent(frame: Uint8Array, at: number): void;
}

export interface ConversationOptions {
  deps: AppDeps;
  providers: ProviderRegistry;
  companyId: string;
  agent: AgentDoc;
  variables: Record<string, string>;
  keys: ProviderKeys;
  /** the chunks of the agent's knowledge bases that match the caller's words (the engine has no SQL) */
  knowledge: KnowledgeSearch;
  transport: Transport;
  input: CallSessionInput;
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

/** Words said by the agent when it ends the call without saying anything. */
export const GOODBYE = 'Thank you for calling. Goodbye!';
const LLM_MAX_TOKENS = 512;
/** A caller frame this loud (RMS, 0..1) counts as voice for the end-of-speech time of latency. */
const VOICE_LEVEL = 0.02;
/** Caller frames kept while the speech stream connects (about 3 s of 20 ms frames). */
const EARLY_FRAMES_MAX = 150;

interface TurnTimes {
  callerStartAt?: number;
  callerVoiceEndAt?: number;
  sttFinalAt?: number;
  commitAt?: number;
  llmRequestAt?: number;
  llmFirstTokenAt?: number;
  firstSentenceAt?: number;
  ttsFirstByteAt?: number;
  firstAudioAt?: number;
}

export class Conversation {
  readonly actor: Actor<typeof callSessionMachine>;
  readonly pipeline: Pipeline;
  /** resolves when the call has ended, with its reason */
  readonly ended: Promise<ConversationEnd>;
  readonly transcript: TranscriptTurn[];
  readonly latency: TurnLatency[] = [];
  readonly usage: CallUsage;
  /** performance.now() at the start: every time of the transcript is ms from here */
  readonly t0 = performance.now();
  private turnTimes: TurnTimes = {};
  private sttSink: ((frame: Uint8Array) => void) | undefined;
  /** caller audio that arrived before the speech stream was connected (sent to it once it is) */
  private early: Uint8Array[] | undefined = [];
  private speaker: Speaker | undefined;
  private historyLength: number;
  private agentTurnStartAt: number | undefined;
  /** the speech-to-speech session, for a Realtime agent's voice call */
  private readonly realtime: RealtimeBridge | undefined;
  /** the caller's words the speech-to-speech provider sent before their turn was stored */
  private pendingCallerText = '';
  /** rejects when the line ends the call for a reason of its own (a flood): the listen actor fails with it */
  private readonly lineFailed: Promise<never>;
  private failLine: (f: CallFailure) => void = () => {};
  /** short acknowledgements while the caller talks at length (the agent's backchanneling) */
  private readonly backchannel: Backchannel | undefined;
  /** the caller's final words of the turn in progress (for the backchannel's count) */
  private turnFinals = '';
  /** the audio of each backchannel word, synthesised once per call */
  private readonly backchannelAudio = new Map<string, Promise<Uint8Array[]>>();
  /** transfer_call moved the caller to this number (the line then closes: the call ends as call_transfer) */
  transferredTo: string | undefined;

  constructor(private readonly o: ConversationOptions) {
    this.lineFailed = new Promise<never>((_, reject) => {
      this.failLine = reject;
    });
    this.lineFailed.catch(() => {});
    this.pipeline = pipelineOf(o.agent, o.providers);
    this.realtime = this.pipeline.mode === 'realtime' && o.input.mode === 'voice' ? new RealtimeBridge(this) : undefined;
    this.backchannel =
      o.input.mode === 'voice' && !this.realtime && o.agent.editor.backchanneling
        ? new Backchannel(o.agent.editor.backchannelWords, o.agent.editor.backchannelFrequency, (word) => this.acknowledge(word))
        : undefined;
    this.transcript = [...(o.transcript ?? [])];
    this.historyLength = this.transcript.length;
    this.usage = {
      stt_seconds: 0,
      llm_input_tokens: 0,
      llm_output_tokens: 0,
      tts_characters: 0,
      telephony_minutes: 0,
      llm_model: o.agent.settings.llm.options.model,
      stt_provider: o.input.mode === 'voice' ? this.pipeline.stt : '',
      tts_provider: o.input.mode === 'voice' ? this.pipeline.tts : '',
    };
    const history: Turn[] = this.transcript.map((t) => ({
      role: t.role,
      text: t.text,
      ...(t.interrupted ? { interrupted: true } : {}),
      ...(t.tool_calls ? { toolCalls: t.tool_calls } : {}),
    }));
    const machine = callSessionMachine.provide({
      actors: {
        listen: fromPromise<void, ListenInput>(({ input, signal }) => this.listenOnLine(input.parent, signal)),
        reply: fromPromise<void, ReplyInput>(({ input, signal }) => this.reply(input, signal)),
      },
      actions: {
        hangUp: (_, params) => o.transport.hangUp(params.reason, params.message ?? undefined),
        clearPlayback: ({ self }) => {
          const heard = (this.realtime ?? this.speaker)?.cut(o.transport.heardMs()) ?? '';
          o.transport.clear();
          self.send({ type: 'agent.heard', text: heard });
        },
        announce: (_, params) => o.transport.notify({ type: 'state', value: params.state }),
      },
    });
    this.actor = createActor(machine, { input: { ...o.input, history } });
    this.actor.subscribe((snap) => this.observe(snap.context.history));
    this.ended = new Promise((resolve) => {
      this.actor.subscribe({
        complete: () => {
          const out = this.actor.getSnapshot().output;
          resolve({
            reason: this.transferredTo && out?.reason === 'user_hangup' ? 'call_transfer' : (out?.reason ?? 'error_unknown'),
            errorMessage: out?.errorMessage ?? null,
          });
        },
        error: (e) => resolve({ reason: 'error_unknown', errorMessage: e instanceof Error ? e.message : null }),
      });
    });
  }

  /** Opens the line: the caller's side starts flowing into the machine. */
  start(): void {
    this.o.transport.start({
      audio: (frame, at) => {
        this.o.recorder?.caller(frame, at);
        const format = this.o.transport.format;
        if (format && rmsLevel(toSamples(frame, format)) >= VOICE_LEVEL) this.turnTimes.callerVoiceEndAt = at;
        if (this.sttSink) this.sttSink(frame);
        else if (this.early && this.early.length < EARLY_FRAMES_MAX) this.early.push(frame);
      },
      closed: () => this.actor.send({ type: 'transport.closed' }),
      message: (text) => this.actor.send({ type: 'caller.message', text }),
      failed: (failure) => this.failLine(failure),
    });
    this.actor.start();
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
  private transfer(number: string): void {
    const transport = this.o.transport;
    if (!transport.transfer || this.actor.getSnapshot().status !== 'active') return;
    this.transferredTo = number;
    transport.transfer(number).catch((e) => {
      this.transferredTo = undefined;
      this.o.deps.logger.warn('call transfer failed', { reason: e instanceof Error ? e.message : String(e) });
    });
  }

  /**
   * A backchannel word, played at once while the caller goes on talking (each word is synthesised once per
   * call, then its audio is reused); dropped if the caller's turn ended meanwhile.
   */
  private acknowledge(word: string): void {
    const format = this.o.transport.format;
    if (!format) return;
    let audio = this.backchannelAudio.get(word);
    if (!audio) {
      audio = synthesise(this.o.providers.tts(this.pipeline.tts), voiceOptions(this.o, this.pipeline.tts, format), word);
      audio.catch(() => {});
      this.backchannelAudio.set(word, audio);
      this.usage.tts_characters += word.length;
    }
    audio.then(
      (chunks) => {
        if (!this.actor.getSnapshot().matches({ conversation: 'userSpeaking' })) return;
        for (const chunk of chunks) this.o.transport.play(chunk);
      },
      () => this.backchannelAudio.delete(word),
    );
  }

  /** The speech-to-speech provider's silence that ends the caller's turn (the agent's responsiveness). */
  get realtimeSilenceMs(): number {
    return endOfTurnMs(this.o.agent.editor.responsiveness);
  }

  /** Where the caller's audio goes (the speech stream, or the speech-to-speech session). */
  feedCallerAudio(sink: (frame: Uint8Array) => void): void {
    for (const frame of this.early ?? []) sink(frame);
    this.early = undefined;
    this.sttSink = sink;
  }

  /** The speech-to-speech provider's transcript of what the caller said (it comes after the turn). */
  callerTranscriptArrived(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    const last = [...this.transcript].reverse().find((t) => t.role === 'user');
    if (last && !last.text) last.text = clean;
    else this.pendingCallerText = clean;
    this.o.transport.notify({ type: 'transcript', role: 'user', text: clean, final: true });
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

  /** ms from the start of the call. */
  private at(t = performance.now()) {
    return Math.max(0, Math.round(t - this.t0));
  }

  /** Stamps the turns the machine added to its history with their times, and records an answer's latency. */
  private observe(history: readonly Turn[]) {
    if (history.length <= this.historyLength) return;
    const now = performance.now();
    for (const turn of history.slice(this.historyLength)) {
      const t = this.turnTimes;
      if (turn.role === 'user') {
        this.turnFinals = '';
        this.backchannel?.reset();
        const text = turn.text || this.pendingCallerText;
        this.pendingCallerText = '';
        this.transcript.push({
          role: 'user',
          text,
          start_ms: this.at(t.callerStartAt ?? now),
          end_ms: this.at(t.callerVoiceEndAt ?? t.sttFinalAt ?? now),
        });
        if (text) this.o.transport.notify({ type: 'transcript', role: 'user', text, final: true });
      } else {
        this.transcript.push({
          role: 'agent',
          text: turn.text,
          start_ms: this.at(this.agentTurnStartAt ?? now),
          end_ms: this.at(now),
          ...(turn.interrupted ? { interrupted: true } : {}),
          ...(turn.toolCalls?.length ? { tool_calls: turn.toolCalls } : {}),
        });
        this.o.transport.notify({ type: 'transcript', role: 'agent', text: turn.text, final: true });
      }
    }
    this.historyLength = history.length;
    this.o.onTurn?.(this);
  }

  // -------------------------------------------------------------------------------------------
  // listen: the caller's speech

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
        this.realtime ? this.realtime.listen(parent, own.signal) : this.listen(parent, own.signal),
        this.lineFailed,
      ]);
    } finally {
      signal.removeEventListener('abort', stop);
      own.abort();
    }
  }

  private async listen(parent: CallSessionRef, signal: AbortSignal): Promise<void> {
    const o = this.o;
    if (o.input.mode === 'text' || !o.transport.format) {
      await untilAborted(signal);
      return;
    }
    const access = o.keys[this.pipeline.stt];
    let fail: (e: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    failed.catch(() => {});
    let stream: Awaited<ReturnType<SttProvider['connect']>>;
    try {
      stream = await o.providers.stt(this.pipeline.stt).connect(
        {
          apiKey: access?.apiKey ?? '',
          baseUrl: access?.baseUrl ?? o.deps.config.providerUrls[this.pipeline.stt] ?? '',
          language: o.agent.settings.stt.options.language,
          model: o.agent.settings.stt.options.model ?? 'nova-2',
          format: o.transport.format,
          keywords: boostedKeywords(o.agent),
          endpointingMs: STT_ENDPOINTING_MS,
          utteranceEndMs: STT_UTTERANCE_END_MS,
        },
        (e) => {
          const now = performance.now();
          if (e.type === 'speech_started') {
            this.turnTimes.callerStartAt ??= now;
            parent.send({ type: 'caller.speech_started' });
          } else if (e.type === 'transcript') {
            if (e.text) {
              this.turnTimes.callerStartAt ??= now;
              o.transport.notify({ type: 'transcript', role: 'user', text: e.text, final: false });
              if (this.actor.getSnapshot().matches({ conversation: 'userSpeaking' })) {
                this.backchannel?.heard(`${this.turnFinals} ${e.text}`);
                if (e.isFinal) this.turnFinals = `${this.turnFinals} ${e.text}`;
              }
            }
            if (e.isFinal) this.turnTimes.sttFinalAt = now;
            parent.send({ type: 'caller.transcript', text: e.text, final: e.isFinal });
            if (e.speechFinal) parent.send({ type: 'caller.utterance_ended' });
          } else if (e.type === 'utterance_end') {
            this.turnTimes.sttFinalAt ??= now;
            parent.send({ type: 'caller.utterance_ended' });
          } else if (e.type === 'error') fail(failureOf(e.error, 'error_stt_provider'));
        },
        signal,
      );
    } catch (e) {
      throw failureOf(e, 'error_stt_provider');
    }
    this.feedCallerAudio((frame) => stream.sendAudio(frame));
    try {
      await Promise.race([untilAborted(signal), failed]);
    } finally {
      this.sttSink = undefined;
      // billed by the call's clock: never more seconds than the line has been open, whatever was sent
      const lineSeconds = (performance.now() - (o.transport.callerAudio?.openedAt ?? this.t0)) / 1000;
      const heard = Math.min(this.usage.stt_seconds + stream.audioSeconds, lineSeconds);
      this.usage.stt_seconds = Math.round(heard * 100) / 100;
      void stream.close().catch(() => {});
    }
  }

  // -------------------------------------------------------------------------------------------
  // reply: one agent turn

  private async reply(input: ReplyInput, signal: AbortSignal): Promise<void> {
    const o = this.o;
    const parent = input.parent;
    const times = this.turnTimes;
    // the agent's side of the times belongs to this turn alone: a turn cut short (the greeting the
    // caller talked over) must not lend its first sentence or first byte to the answer that follows
    times.llmRequestAt = times.llmFirstTokenAt = times.firstSentenceAt = times.ttsFirstByteAt = undefined;
    times.firstAudioAt = undefined;
    times.commitAt = performance.now();
    this.agentTurnStartAt = undefined;
    const voice = o.input.mode === 'voice' && o.transport.format !== null;
    const speaker = voice ? new Speaker(this, parent, signal) : undefined;
    this.speaker = speaker;
    let outputStarted = false;
    const started = () => {
      if (outputStarted) return;
      outputStarted = true;
      this.agentTurnStartAt = performance.now();
      times.firstAudioAt = this.agentTurnStartAt;
      parent.send({ type: 'reply.output_started' });
    };
    const say = (sentence: string) => {
      parent.send({ type: 'reply.sentence', text: sentence });
      if (speaker) speaker.say(sentence, started);
    };

    try {
      if (this.realtime) {
        await this.realtime.reply(input, signal, started);
        return;
      }
      if (input.kind === 'greeting') {
        if (!voice) {
          started();
          o.transport.text(input.text);
        }
        say(input.text);
        await speaker?.finish();
        return;
      }
      speaker?.prepare();
      const tools = agentTools(o.agent);
      const lastUser = [...input.history].reverse().find((t) => t.role === 'user')?.text ?? '';
      const knowledgeIds = o.agent.editor.selectedKnowledgeBases
        .map((k) => k.knowledge_base_id)
        .filter((id): id is string => typeof id === 'string');
      const knowledge =
        input.kind === 'answer' && knowledgeIds.length > 0
          ? (await o.knowledge(o.companyId, knowledgeIds, lastUser)).map((h) => h.content)
          : [];
      const messages = buildMessages({
        prompt: fillVariables(o.agent.prompt, o.variables),
        mode: o.input.mode,
        history: input.history,
        knowledge,
        reminder: input.kind === 'reminder',
        facts: `The current time is ${o.deps.clock.now().toISOString()}.`,
      });
      const route = this.pipeline.llm;
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
          tools: tools.map((t) => t.spec),
          temperature: o.agent.editor.llmSettings.temperature,
          maxTokens: LLM_MAX_TOKENS,
          signal,
        });
        for await (const e of events) {
          if (signal.aborted) return;
          if (e.type === 'delta') {
            times.llmFirstTokenAt ??= performance.now();
            if (!voice) {
              started();
              o.transport.text(e.text);
            }
            for (const s of splitter.push(e.text)) {
              said = true;
              say(s);
            }
          } else if (e.type === 'tool_call') {
            times.llmFirstTokenAt ??= performance.now();
            const tool = tools.find((t) => t.spec.name === e.call.name);
            parent.send({
              type: 'reply.tool_call',
              name: tool?.type === 'end_call' ? 'end_call' : e.call.name,
              arguments: e.call.arguments,
            });
            o.transport.toolCall?.(e.call.name, e.call.arguments);
            if (tool?.type === 'end_call') endCall = true;
            if (tool?.type === 'transfer' && tool.number && o.transport.transfer) transferTo = tool.number;
          } else if (e.type === 'usage') {
            this.usage.llm_input_tokens += e.inputTokens;
            this.usage.llm_output_tokens += e.outputTokens;
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
        if (!voice) {
          started();
          o.transport.text(GOODBYE);
        }
        say(GOODBYE);
      }
      if (!voice) started();
      await speaker?.finish();
      // after the turn is committed (with its tool call) the carrier moves the caller
      if (transferTo && !signal.aborted) {
        const number = transferTo;
        setTimeout(() => this.transfer(number), 0);
      }
    } finally {
      speaker?.close();
      if (input.kind === 'answer' && times.firstAudioAt !== undefined) this.recordLatency(times);
      // a newer turn may already have started on the same times (a barge-in): leave them to it
      if (this.turnTimes === times && this.speaker === speaker) this.turnTimes = {};
    }
  }

  /** The answer turn just spoken: end of the caller's speech -> the agent's first audio, in parts. */
  private recordLatency(t: TurnTimes) {
    const end = t.callerVoiceEndAt ?? t.sttFinalAt ?? t.commitAt;
    if (end === undefined || t.firstAudioAt === undefined) return;
    const d = (a?: number, b?: number) => (a !== undefined && b !== undefined ? Math.max(0, Math.round(b - a)) : 0);
    this.latency.push({
      turn: this.transcript.length,
      total_ms: d(end, t.firstAudioAt),
      stt_ms: d(end, t.sttFinalAt ?? t.commitAt),
      wait_ms: d(t.sttFinalAt ?? t.commitAt, t.commitAt),
      llm_ms: d(t.llmRequestAt, t.llmFirstTokenAt),
      tts_ms: d(t.firstSentenceAt, t.ttsFirstByteAt),
    });
  }

  /** @internal for Speaker */
  get options() {
    return this.o;
  }

  /** @internal for Speaker */
  get times() {
    return this.turnTimes;
  }
}

// ---------------------------------------------------------------------------------------------
// The voice of one agent turn

/** A voice stream whose listeners are attached when a sentence takes it (a stream may be opened early). */
interface Lane {
  stream: Promise<TtsStream>;
  onAudio?: (chunk: Uint8Array) => void;
  onDone?: () => void;
}

interface SpeechJob {
  text: string;
  lane?: Lane;
  /** audio received before this job's turn to play */
  buffered: Uint8Array[];
  done: boolean;
  /** the playout's timeline (ms) where this sentence's audio starts and ends */
  startMs?: number;
  endMs?: number;
}

/** Max sentences being synthesised at once (the one playing and the next ones). */
const SYNTH_AHEAD = 3;

/**
 * Speaks sentences in order: each has its own voice stream (so its audio span is exact, which is what
 * cuts a barge-in at the word the caller heard); up to SYNTH_AHEAD are synthesised at once, and only the
 * head's audio goes to the line, the others wait in order.
 */
class Speaker {
  private readonly jobs: SpeechJob[] = [];
  private head = 0;
  private prepared: Lane | undefined;
  private failure: unknown;
  private settled: (() => void) | undefined;
  private failedWith: ((e: unknown) => void) | undefined;
  private closed = false;
  private onFirstAudio: (() => void) | undefined;
  /** the voice reads the agent's pronunciations as SSML phoneme tags */
  private readonly ssml: boolean;

  constructor(
    private readonly c: Conversation,
    private readonly parent: CallSessionRef,
    private readonly signal: AbortSignal,
  ) {
    this.ssml = readsPhonemes(c.options.providers, c.pipeline.tts, c.options.agent);
    signal.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Opens the first voice stream before the first sentence is known (hides the connection time). */
  prepare(): void {
    this.prepared ??= this.connect();
  }

  say(text: string, onFirstAudio: () => void): void {
    if (this.closed) return;
    this.onFirstAudio = onFirstAudio;
    const job: SpeechJob = { text, buffered: [], done: false };
    this.jobs.push(job);
    this.c.times.firstSentenceAt ??= performance.now();
    this.pump();
  }

  /** Resolves when every sentence has been spoken and heard; rejects when the voice failed. */
  finish(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settled = resolve;
      this.failedWith = reject;
      this.check();
    });
  }

  /** What the caller heard of this turn at `heardMs` of the playout: whole sentences, then words pro rata. */
  cut(heardMs: number): string {
    const heard: string[] = [];
    for (const job of this.jobs) {
      if (job.startMs === undefined || heardMs <= job.startMs) break;
      const end = job.endMs ?? this.c.options.transport.sentMs();
      if (end <= heardMs && job.done) {
        heard.push(job.text);
        continue;
      }
      const words = job.text.split(/\s+/);
      const share = end > job.startMs ? (heardMs - job.startMs) / (end - job.startMs) : 0;
      const n = Math.min(words.length, Math.max(0, Math.round(words.length * share)));
      if (n > 0) heard.push(words.slice(0, n).join(' '));
      break;
    }
    return heard.join(' ');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.jobs) job.lane?.stream.then((s) => s.cancel()).catch(() => {});
    this.prepared?.stream.then((s) => s.cancel()).catch(() => {});
  }

  private connect(): Lane {
    const o = this.c.options;
    const tts = this.c.pipeline.tts;
    const lane: Lane = {
      stream: o.providers.tts(tts).connect(
        { ...voiceOptions(o, tts, o.transport.format ?? BROWSER_AUDIO), ...(this.ssml ? { ssml: true } : {}) },
        (e) => {
          if (e.type === 'audio') lane.onAudio?.(e.chunk);
          else if (e.type === 'done') lane.onDone?.();
          else this.fail(e.error);
        },
        this.signal,
      ),
    };
    lane.stream.catch((e) => this.fail(e));
    return lane;
  }

  /** Starts synthesis of the next sentences (up to SYNTH_AHEAD ahead of the one playing). */
  private pump() {
    for (let i = this.head; i < Math.min(this.jobs.length, this.head + SYNTH_AHEAD); i++) {
      const job = this.jobs[i] as SpeechJob;
      if (job.lane) continue;
      const lane = this.prepared ?? this.connect();
      this.prepared = undefined;
      lane.onAudio = (chunk) => this.audio(job, chunk);
      lane.onDone = () => this.jobDone(job);
      job.lane = lane;
      const spoken = applyPronunciations(job.text, this.c.options.agent.editor.pronunciations, this.ssml);
      lane.stream
        .then((s) => {
          if (this.closed) return s.cancel();
          s.sendText(spoken);
          s.end();
          this.c.usage.tts_characters += job.text.length;
        })
        .catch(() => {});
    }
  }

  private audio(job: SpeechJob, chunk: Uint8Array) {
    if (this.closed) return;
    const times = this.c.times;
    if (job === this.jobs[0]) times.ttsFirstByteAt ??= performance.now();
    if (job !== this.jobs[this.head]) {
      job.buffered.push(chunk);
      return;
    }
    this.play(job, chunk);
  }

  private play(job: SpeechJob, chunk: Uint8Array) {
    const transport = this.c.options.transport;
    if (job.startMs === undefined) job.startMs = transport.queuedEndMs();
    transport.play(chunk);
    this.onFirstAudio?.();
  }

  private jobDone(job: SpeechJob) {
    if (this.closed) return;
    job.done = true;
    if (job === this.jobs[this.head]) this.advance();
  }

  /** The head sentence is fully queued: mark it, then the next one plays what it has buffered. */
  private advance() {
    const transport = this.c.options.transport;
    while (this.head < this.jobs.length && (this.jobs[this.head] as SpeechJob).done) {
      const job = this.jobs[this.head] as SpeechJob;
      for (const chunk of job.buffered) this.play(job, chunk);
      job.buffered = [];
      job.endMs = transport.queuedEndMs();
      job.startMs ??= job.endMs;
      const heardText = this.jobs
        .slice(0, this.head + 1)
        .map((j) => j.text)
        .join(' ');
      transport.mark(() => {
        if (!this.closed) this.parent.send({ type: 'agent.heard', text: heardText });
      });
      this.head++;
      const next = this.jobs[this.head];
      if (next) {
        for (const chunk of next.buffered) this.play(next, chunk);
        next.buffered = [];
      }
    }
    this.pump();
    this.check();
  }

  /** Every sentence queued: resolve once the caller has heard the last of it. */
  private check() {
    if (!this.settled) return;
    if (this.failure !== undefined) {
      this.failedWith?.(this.failure);
      return;
    }
    if (this.head < this.jobs.length) return;
    const resolve = this.settled;
    this.settled = undefined;
    this.c.options.transport.mark(() => resolve());
  }

  private fail(e: unknown) {
    if (this.closed || this.failure !== undefined) return;
    this.failure = failureOf(e, 'error_tts_provider');
    this.close();
    this.check();
  }
}

// ---------------------------------------------------------------------------------------------

/** What the voice provider is asked for an agent: key, base, voice, model, format and voice settings. */
export function voiceOptions(
  o: Pick<ConversationOptions, 'agent' | 'keys' | 'deps' | 'providers'>,
  tts: Pipeline['tts'],
  format: AudioFormat,
): TtsOptions {
  const agent = o.agent;
  return {
    apiKey: o.keys[tts]?.apiKey ?? '',
    baseUrl: o.keys[tts]?.baseUrl ?? o.deps.config.providerUrls[tts] ?? '',
    voiceId: agent.settings.tts.options.voice_id,
    model: ttsModelId(o.providers, tts, agent),
    language: agent.settings.stt.options.language,
    format,
    speed: agent.settings.tts.options.speed ?? agent.editor.voiceSettings.speed,
    stability: agent.settings.tts.options.stability ?? 0.5,
    similarity: agent.settings.tts.options.similarity ?? 0.75,
    volume: agent.editor.voiceSettings.volume,
  };
}

/** The whole audio of a short text (a backchannel word), or a rejection; bounded in time. */
function synthesise(provider: TtsProvider, options: TtsOptions, text: string): Promise<Uint8Array[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  return new Promise<Uint8Array[]>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    controller.signal.addEventListener('abort', () => reject(new Error('backchannel: no audio in time')));
    provider
      .connect(
        options,
        (e) => {
          if (e.type === 'audio') chunks.push(e.chunk);
          else if (e.type === 'done') resolve(chunks);
          else reject(e.error);
        },
        controller.signal,
      )
      .then((s) => {
        s.sendText(text);
        s.end();
      }, reject);
  }).finally(() => {
    clearTimeout(timer);
    controller.abort();
  });
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
