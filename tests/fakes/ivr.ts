/**
 * A phone menu (IVR) at the far end of a call, for the carrier fakes: it says its menu ('Press 1 for
 * appointments, 2 for billing'), listens to the agent's audio as the carrier plays it to the callee (at
 * real time, mu-law 8 kHz: CarrierStreamFake.listenToPlayed), hears the keys in it with the Goertzel
 * detector of server/voice/audio/dtmf.ts, and answers each key by its menu ('Billing department').
 *
 * Speaking is what the other fakes do for a caller: `words(text)` tells the speech fake what the next
 * stretch of voice says (DeepgramFake.script), then the stream sends that much loud audio. A key the menu
 * does not have gets `unknown` (when given). Only in-band tones reach it: keys sent any other way (a
 * carrier's own DTMF API) are not heard, as on a real line the IVR decodes.
 */
import { DtmfDetector, type HeardKey } from '../../server/voice/audio/dtmf.js';
import { PHONE_AUDIO } from '../../server/voice/providers/types.js';
import type { CarrierStreamFake } from './carrier-stream.js';

export interface IvrMenu {
  /** said when the call is answered */
  prompt: string;
  /** what the IVR says after each key */
  options: Record<string, string>;
  /** said after a key the menu does not have */
  unknown?: string;
}

export class FakeIvr {
  /** the keys heard in the agent's audio, with their time on the played audio's timeline (ms) */
  readonly heard: HeardKey[] = [];
  /** what the IVR said, in order */
  readonly said: string[] = [];

  constructor(
    private readonly menu: IvrMenu,
    /** the speech fake learns what the next stretch of voice says */
    private readonly words: (text: string) => void,
    /** ms of voice per sentence said */
    private readonly speechMs = 600,
  ) {}

  /** Answers on `stream`: the prompt after `promptAfterMs`, then an answer per key heard. */
  attach(stream: CarrierStreamFake, promptAfterMs = 200): void {
    const detector = new DtmfDetector(PHONE_AUDIO, (key) => {
      this.heard.push(key);
      const answer = this.menu.options[key.key] ?? this.menu.unknown;
      if (answer) this.speak(stream, answer);
    });
    stream.listenToPlayed((bytes) => detector.push(bytes));
    setTimeout(() => this.speak(stream, this.menu.prompt), promptAfterMs);
  }

  private speak(stream: CarrierStreamFake, text: string) {
    this.said.push(text);
    this.words(text);
    stream.say(this.speechMs);
  }
}
