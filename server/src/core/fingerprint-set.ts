/**
 * A set of strings that keeps a 64-bit fingerprint of each, not the strings: 8 bytes a slot of an
 * open-addressing table of two Uint32Arrays at most 70 % full (12–23 bytes a member). What the
 * readiness checklist remembers of every item it pages through (ids seen, fragment permalinks),
 * so that checking a site of 1.4M items costs tens of megabytes, not the hundreds a Set of the
 * strings takes.
 *
 * Two different strings share a fingerprint with a probability of about n² / 2⁶⁵ for n members
 * (5·10⁻⁸ at 1.4M): `add` may then answer that a new string was there already, never the other
 * way round.
 */
export class FingerprintSet {
  private high: Uint32Array;
  private low: Uint32Array;
  private members = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity) capacity *= 2;
    this.high = new Uint32Array(capacity);
    this.low = new Uint32Array(capacity);
  }

  get size(): number {
    return this.members;
  }

  /** Add `value`; false when it (or a string of the same fingerprint) was already in. */
  add(value: string): boolean {
    const [high, low] = fingerprint(value);
    if (!this.insert(high, low)) return false;
    this.members += 1;
    // At most 70 % full: linear probing stays short.
    if (this.members * 10 > this.high.length * 7) this.grow();
    return true;
  }

  /** Put a fingerprint in its slot; false when it is there already. */
  private insert(high: number, low: number): boolean {
    const mask = this.high.length - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      if (this.high[slot] === 0 && this.low[slot] === 0) {
        this.high[slot] = high;
        this.low[slot] = low;
        return true;
      }
      if (this.high[slot] === high && this.low[slot] === low) return false;
    }
  }

  private grow(): void {
    const { high, low } = this;
    this.high = new Uint32Array(high.length * 2);
    this.low = new Uint32Array(low.length * 2);
    for (let slot = 0; slot < high.length; slot += 1)
      if (high[slot] !== 0 || low[slot] !== 0) this.insert(high[slot]!, low[slot]!);
  }
}

/** Final mixing of a 32-bit hash: every input bit reaches every output bit. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Two independent 32-bit hashes of the UTF-16 code units (FNV-1a, and a multiply-rotate lane
 * seeded with the length), each mixed; never (0, 0), which marks an empty slot.
 */
export function fingerprint(value: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ value.length;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b = (b << 13) | (b >>> 19);
  }
  const high = mix(a);
  const low = mix(b ^ high);
  return high === 0 && low === 0 ? [0, 1] : [high, low];
}
