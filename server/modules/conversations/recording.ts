/**
 * The recording of a call, made by Parley from the two directions of the audio (no provider recording
 * needed): a stereo 16-bit WAV at the line's sample rate, the caller on the left and the agent on the right
 * (mu-law expanded), both placed on the call's clock by server/voice/audio/wav.ts. The agent's side is fed
 * with the frames as they are played to the caller, so what a barge-in dropped is not in the recording.
 */
import { toSamples } from '../../voice/audio/pcm16.js';
import { StereoWavRecorder, type WavSummary } from '../../voice/audio/wav.js';
import type { CallRecorder } from '../../voice/engine/conversation.js';
import type { AudioFormat } from '../../voice/providers/types.js';

export class CallRecording implements CallRecorder {
  private constructor(
    private readonly wav: StereoWavRecorder,
    private readonly format: AudioFormat,
  ) {}

  static async open(file: string, format: AudioFormat): Promise<CallRecording> {
    return new CallRecording(await StereoWavRecorder.open(file, { sampleRate: format.sampleRate }), format);
  }

  caller(frame: Uint8Array, at: number): void {
    this.wav.append('caller', toSamples(frame, this.format), at);
  }

  agent(frame: Uint8Array, at: number): void {
    this.wav.append('agent', toSamples(frame, this.format), at);
  }

  close(): Promise<WavSummary> {
    return this.wav.close();
  }
}
