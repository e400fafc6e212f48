/**
 * A set of E.164 phone numbers held as numbers (digits after '+', at most 15, so exact below 2^53) in an
 * open-addressing table over a Float64Array: no allocation per entry, so a million numbers cost a few
 * megabytes and no garbage collection (a Set of strings or of large numbers allocates per entry).
 */
export class PhoneSet {
  private table = new Float64Array(1 << 16);
  private mask = (1 << 16) - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds the phone ('+' and digits); false when it was there already. */
  add(phone: string): boolean {
    const n = Number(phone.slice(1));
    if (!(n > 0)) throw new Error(`not an E.164 number: ${phone}`);
    if (this.count * 2 >= this.table.length) this.grow();
    return this.insert(n);
  }

  private insert(n: number): boolean {
    let i = hash(n) & this.mask;
    for (;;) {
      const v = this.table[i];
      if (v === 0) {
        this.table[i] = n;
        this.count++;
        return true;
      }
      if (v === n) return false;
      i = (i + 1) & this.mask;
    }
  }

  private grow() {
    const old = this.table;
    this.table = new Float64Array(old.length * 2);
    this.mask = this.table.length - 1;
    this.count = 0;
    for (const v of old) if (v !== 0) this.insert(v);
  }
}

function hash(n: number): number {
  const lo = (n % 4294967296) | 0;
  const hi = (n / 4294967296) | 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  return Math.imul(h, 0xc2b2ae35) >>> 0;
}
