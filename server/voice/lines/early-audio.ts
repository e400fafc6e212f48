/**
 * Caller audio that arrives before anyone takes it, kept for a while: a line keeps the frames that come
 * before the engine has started (the call's keys and recording are still being prepared), and the engine
 * keeps the frames that come while the speech stream connects. Bounded: about 3 s of 20 ms frames, the rest
 * is dropped (a caller does not say much before the agent can hear, and nothing grows without limit).
 */

/** Frames kept (about 3 s of 20 ms frames). */
export const EARLY_FRAMES_MAX = 150;

export class EarlyAudio {
  private frames: { frame: Uint8Array; at: number }[] = [];

  constructor(private readonly max = EARLY_FRAMES_MAX) {}

  get size() {
    return this.frames.length;
  }

  /** Keeps a frame (with its arrival time) if there is room. */
  keep(frame: Uint8Array, at: number): void {
    if (this.frames.length < this.max) this.frames.push({ frame, at });
  }

  /** Hands every kept frame to `sink`, in order, and forgets them. */
  drain(sink: (frame: Uint8Array, at: number) => void): void {
    const frames = this.frames;
    this.frames = [];
    for (const { frame, at } of frames) sink(frame, at);
  }

  /** Forgets the kept frames. */
  drop(): void {
    this.frames = [];
  }
}
