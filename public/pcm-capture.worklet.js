// The web call's capture (issue 18): on the audio thread, resamples the microphone to 16 kHz mono by linear
// interpolation (src/audio/pcm.ts LinearResampler), converts to PCM16 little-endian, and posts one 20 ms
// frame (640 bytes) at a time to the page, with the frame's RMS level. Muted: frames of silence.
// Served as a file of its own (public/): the Content-Security-Policy allows scripts from 'self' only.
const TARGET_RATE = 16000;
const FRAME_SAMPLES = 320;

class PcmCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / TARGET_RATE;
    this.pos = 0;
    this.last = 0;
    this.frame = new Int16Array(FRAME_SAMPLES);
    this.filled = 0;
    this.sumSquares = 0;
    this.muted = false;
    this.port.onmessage = (e) => {
      if (e.data && typeof e.data.muted === 'boolean') this.muted = e.data.muted;
    };
  }

  process(inputs) {
    const input = inputs[0]?.[0];
    if (!input) return true;
    while (this.pos < input.length) {
      const i = Math.floor(this.pos);
      const frac = this.pos - i;
      const a = i === 0 ? this.last : input[i - 1];
      const b = input[i];
      let s = this.muted ? 0 : a + (b - a) * frac;
      s = Math.max(-1, Math.min(1, s));
      this.sumSquares += s * s;
      this.frame[this.filled++] = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
      if (this.filled === FRAME_SAMPLES) {
        const out = new ArrayBuffer(FRAME_SAMPLES * 2);
        const view = new DataView(out);
        for (let j = 0; j < FRAME_SAMPLES; j++) view.setInt16(j * 2, this.frame[j], true);
        this.port.postMessage({ frame: out, level: Math.sqrt(this.sumSquares / FRAME_SAMPLES) }, [out]);
        this.filled = 0;
        this.sumSquares = 0;
      }
      this.pos += this.step;
    }
    this.pos -= input.length;
    this.last = input[input.length - 1];
    return true;
  }
}

registerProcessor('pcm-capture', PcmCapture);
