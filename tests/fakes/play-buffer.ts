/**
 * The carrier's side of a bidirectional media stream, shared by the Twilio and Plivo fakes: the server's
 * audio is buffered with the named marks (Twilio's `mark`, Plivo's `checkpoint`) in the order they came and
 * "played" at real time, a mark reached once the audio before it has played. A clear drops what was not
 * played; each carrier then says what it does with the marks still pending.
 */
type Item = { kind: 'audio'; bytes: Uint8Array } | { kind: 'mark'; name: string };

export class PlayBuffer {
  /** bytes of the server's audio that have been played to the caller */
  playedBytes = 0;
  /** bytes dropped by a clear */
  clearedBytes = 0;
  private items: Item[] = [];

  audio(bytes: Uint8Array) {
    this.items.push({ kind: 'audio', bytes });
  }

  mark(name: string) {
    this.items.push({ kind: 'mark', name });
  }

  /** Plays `bytes` of buffered audio; the marks reached on the way go to `reached`, in order. */
  play(bytes: number, reached: (name: string) => void) {
    let left = bytes;
    while (this.items.length > 0) {
      const head = this.items[0] as Item;
      if (head.kind === 'mark') {
        this.items.shift();
        reached(head.name);
        continue;
      }
      if (left === 0) break;
      const take = Math.min(left, head.bytes.byteLength);
      this.playedBytes += take;
      left -= take;
      if (take === head.bytes.byteLength) this.items.shift();
      else head.bytes = head.bytes.subarray(take);
    }
  }

  /** Drops the audio not played yet; answers the marks that were still pending, in order. */
  clear(): string[] {
    const pending: string[] = [];
    for (const item of this.items) {
      if (item.kind === 'audio') this.clearedBytes += item.bytes.byteLength;
      else pending.push(item.name);
    }
    this.items = [];
    return pending;
  }
}
