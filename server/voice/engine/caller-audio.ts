/**
 * Where the caller's audio goes: to the speech stream (listen.ts) or the speech-to-speech session
 * (realtime.ts) once it is connected, kept meanwhile (lines/early-audio.ts).
 */
import { EarlyAudio } from '../lines/early-audio.js';

/** Where the caller's audio goes: the connected stream, else kept until one connects. */
export class CallerAudio {
  private sink: ((frame: Uint8Array) => void) | undefined;
  /** audio that arrived before the stream was connected (sent to it once it is); none after the first */
  private early: EarlyAudio | undefined = new EarlyAudio();

  push(frame: Uint8Array, at: number): void {
    if (this.sink) this.sink(frame);
    else this.early?.keep(frame, at);
  }

  /** The stream is connected: it gets the audio kept so far, then every frame. */
  connect(sink: (frame: Uint8Array) => void): void {
    this.early?.drain((frame) => sink(frame));
    this.early = undefined;
    this.sink = sink;
  }

  /** The stream is gone: frames are dropped from now on. */
  disconnect(): void {
    this.sink = undefined;
  }
}
