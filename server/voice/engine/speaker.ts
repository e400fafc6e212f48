/**
 * The agent's voice on an audio line:
 * - Speaker: the sentences of one agent turn, spoken in order as they arrive from the LLM;
 * - Acknowledgements: the backchannel words, each synthesised once per call and replayed;
 * - collectSpeech: the whole audio of a short text (a backchannel word, the editor's voice preview).
 */
import type { CallUsage } from '@contract/call-runtime.js';
import type { CallSessionRef } from '../../../src/machines/callSession.machine.js';
import type { AudioLine } from '../lines/types.js';
import type { TtsOptions, TtsProvider, TtsStream } from '../providers/types.js';
import { failureOf } from './failures.js';
import type { VoicePlan } from './plan.js';
import { applyPronunciations } from './text.js';
import type { TurnTimes } from './turn-clock.js';

/** What a Speaker speaks with: the line, the voice and where it counts its characters and times. */
export interface Voice {
  line: AudioLine;
  provider: TtsProvider;
  /** the provider's options for this line (voiceOptions in plan.ts) */
  options: TtsOptions;
  plan: VoicePlan;
  usage: CallUsage;
  /** the moments of the turn in progress (turn-clock.ts) */
  times(): TurnTimes;
}

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
export class Speaker {
  private readonly jobs: SpeechJob[] = [];
  private head = 0;
  private prepared: Lane | undefined;
  private failure: unknown;
  private settled: (() => void) | undefined;
  private failedWith: ((e: unknown) => void) | undefined;
  private closed = false;
  private onFirstAudio: (() => void) | undefined;

  constructor(
    private readonly voice: Voice,
    private readonly parent: CallSessionRef,
    private readonly signal: AbortSignal,
  ) {
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
    this.voice.times().firstSentenceAt ??= performance.now();
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
      const end = job.endMs ?? this.voice.line.sentMs();
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
    const { provider, options, plan } = this.voice;
    const lane: Lane = {
      stream: provider.connect(
        { ...options, ...(plan.ssml ? { ssml: true } : {}) },
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
    const plan = this.voice.plan;
    for (let i = this.head; i < Math.min(this.jobs.length, this.head + SYNTH_AHEAD); i++) {
      const job = this.jobs[i] as SpeechJob;
      if (job.lane) continue;
      const lane = this.prepared ?? this.connect();
      this.prepared = undefined;
      lane.onAudio = (chunk) => this.audio(job, chunk);
      lane.onDone = () => this.jobDone(job);
      job.lane = lane;
      const spoken = applyPronunciations(job.text, plan.pronunciations, plan.ssml);
      lane.stream
        .then((s) => {
          if (this.closed) return s.cancel();
          s.sendText(spoken);
          s.end();
          this.voice.usage.tts_characters += job.text.length;
        })
        .catch(() => {});
    }
  }

  private audio(job: SpeechJob, chunk: Uint8Array) {
    if (this.closed) return;
    if (job === this.jobs[0]) this.voice.times().ttsFirstByteAt ??= performance.now();
    if (job !== this.jobs[this.head]) {
      job.buffered.push(chunk);
      return;
    }
    this.play(job, chunk);
  }

  private play(job: SpeechJob, chunk: Uint8Array) {
    const line = this.voice.line;
    if (job.startMs === undefined) job.startMs = line.queuedEndMs();
    line.play(chunk);
    this.onFirstAudio?.();
  }

  private jobDone(job: SpeechJob) {
    if (this.closed) return;
    job.done = true;
    if (job === this.jobs[this.head]) this.advance();
  }

  /** The head sentence is fully queued: mark it, then the next one plays what it has buffered. */
  private advance() {
    const line = this.voice.line;
    while (this.head < this.jobs.length && (this.jobs[this.head] as SpeechJob).done) {
      const job = this.jobs[this.head] as SpeechJob;
      for (const chunk of job.buffered) this.play(job, chunk);
      job.buffered = [];
      job.endMs = line.queuedEndMs();
      job.startMs ??= job.endMs;
      const heardText = this.jobs
        .slice(0, this.head + 1)
        .map((j) => j.text)
        .join(' ');
      line.mark(() => {
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
    this.voice.line.mark(() => resolve());
  }

  private fail(e: unknown) {
    if (this.closed || this.failure !== undefined) return;
    this.failure = failureOf(e, 'error_tts_provider');
    this.close();
    this.check();
  }
}

/**
 * The backchannel's words, played at once while the caller goes on talking: each word is synthesised once
 * per call, then its audio is reused; a word whose audio comes after the caller's turn ended is dropped.
 */
export class Acknowledgements {
  private readonly audio = new Map<string, Promise<Uint8Array[]>>();

  constructor(
    private readonly voice: Pick<Voice, 'line' | 'provider' | 'options' | 'usage'>,
    /** whether the caller is still talking (the word would be heard over their turn) */
    private readonly callerTalking: () => boolean,
  ) {}

  say(word: string): void {
    let audio = this.audio.get(word);
    if (!audio) {
      audio = collectSpeech(this.voice.provider, this.voice.options, word, { timeoutMs: BACKCHANNEL_TIMEOUT_MS });
      audio.catch(() => {});
      this.audio.set(word, audio);
      this.voice.usage.tts_characters += word.length;
    }
    audio.then(
      (chunks) => {
        if (!this.callerTalking()) return;
        for (const chunk of chunks) this.voice.line.play(chunk);
      },
      () => this.audio.delete(word),
    );
  }
}

/** A backchannel word's audio must come within this time. */
const BACKCHANNEL_TIMEOUT_MS = 10_000;

/** The voice did not finish a text in time (collectSpeech). */
export class SpeechTimeoutError extends Error {
  constructor() {
    super('the voice did not finish in time');
    this.name = 'SpeechTimeoutError';
  }
}

/**
 * The whole audio of a short text, bounded in time (SpeechTimeoutError) and in size (audio past `maxBytes`
 * is not kept); rejects with the provider's error when it fails.
 */
export function collectSpeech(
  provider: TtsProvider,
  options: TtsOptions,
  text: string,
  limits: { timeoutMs: number; maxBytes?: number },
): Promise<Uint8Array[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const max = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  return new Promise<Uint8Array[]>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    controller.signal.addEventListener('abort', () => reject(new SpeechTimeoutError()));
    provider
      .connect(
        options,
        (e) => {
          if (e.type === 'audio') {
            if (bytes < max) chunks.push(e.chunk);
            bytes += e.chunk.byteLength;
          } else if (e.type === 'done') resolve(chunks);
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
