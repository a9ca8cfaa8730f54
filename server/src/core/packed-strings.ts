/**
 * A set of strings kept in order in one string: its members, sorted by UTF-16 code units (the
 * order of `Array.prototype.sort` and of `<`), written one after the other, and where each ends.
 * Exact, unlike FingerprintSet, and about the members' characters in size (one byte each where
 * they are all Latin-1, as ids and slugs are) and 4 bytes more a member, against ~40 more for a
 * string of its own in a Set. What a whole-site pass keeps of every document while it runs (the
 * type's documents to read in order, the documents compared): at 100k documents ~3 MB each instead
 * of ~5.5 and ~7 MB, and V8 sizes its heap to what lives.
 *
 * Members added one by one wait in a Set of their own and are merged into the packed string a
 * thousand, or a quarter of its members, at a time (MERGE_AT).
 */
export class PackedStringSet {
  /** The merged members, sorted, one after the other. */
  private packed = '';
  /** Where each merged member ends in `packed`. */
  private ends = new Uint32Array(0);
  /** Members added since the last merge. */
  private recent = new Set<string>();

  /** The set of `members` (in any order, repeats counted once), packed at once. */
  static of(members: Iterable<string>): PackedStringSet {
    const set = new PackedStringSet();
    set.recent = new Set(members);
    set.merge();
    return set;
  }

  get size(): number {
    return this.ends.length + this.recent.size;
  }

  has(value: string): boolean {
    return this.recent.has(value) || this.indexOf(value) >= 0;
  }

  add(value: string): void {
    if (this.has(value)) return;
    this.recent.add(value);
    if (this.recent.size >= Math.max(MERGE_AT, this.ends.length >>> 2)) this.merge();
  }

  /** The i-th member in order (0 ≤ i < size). */
  at(i: number): string {
    this.merge();
    if (!Number.isInteger(i) || i < 0 || i >= this.ends.length)
      throw new RangeError(`no member ${i} in a set of ${this.ends.length}`);
    return this.packed.slice(this.startOf(i), this.ends[i]);
  }

  private startOf(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]!;
  }

  /** Where `value` is among the merged members, or -(where it would go) - 1. */
  private indexOf(value: string, from = 0): number {
    let low = from;
    let high = this.ends.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.compareAt(middle, value);
      if (order < 0) low = middle + 1;
      else if (order > 0) high = middle - 1;
      else return middle;
    }
    return -low - 1;
  }

  /** The merged member i against `value`, by code units, without copying it out. */
  private compareAt(i: number, value: string): number {
    const start = this.startOf(i);
    const length = this.ends[i]! - start;
    const common = Math.min(length, value.length);
    for (let k = 0; k < common; k += 1) {
      const difference = this.packed.charCodeAt(start + k) - value.charCodeAt(k);
      if (difference !== 0) return difference;
    }
    return length - value.length;
  }

  /** The recent members merged into the packed string, in order. */
  private merge(): void {
    if (this.recent.size === 0) return;
    const incoming = [...this.recent].sort();
    const pieces: string[] = [];
    const ends = new Uint32Array(this.ends.length + incoming.length);
    let next = 0; // the first merged member not yet copied
    let written = 0; // members written to `ends`
    let shift = 0; // characters inserted before the member being copied
    const copyUpTo = (stop: number) => {
      if (stop <= next) return;
      pieces.push(this.packed.slice(this.startOf(next), this.ends[stop - 1]));
      for (let j = next; j < stop; j += 1) {
        ends[written] = this.ends[j]! + shift;
        written += 1;
      }
      next = stop;
    };
    for (const value of incoming) {
      // (never found: a recent member is not among the merged ones)
      copyUpTo(-this.indexOf(value, next) - 1);
      pieces.push(value);
      shift += value.length;
      ends[written] = (written > 0 ? ends[written - 1]! : 0) + value.length;
      written += 1;
    }
    copyUpTo(this.ends.length);
    this.packed = pieces.join('');
    this.ends = ends;
    this.recent = new Set();
  }
}

/**
 * Members added one by one before they are merged into the packed string: a thousand, or a quarter
 * of the merged ones. Each merge writes a new packed string, and on this 2-core VM writing a string
 * of megabytes cost ~5 ms a megabyte (the pages of a new large object faulted in): merged a
 * thousand at a time, 100k ids of 24 characters took 1.1 s to add, a quarter at a time ~0.2 s.
 */
const MERGE_AT = 1024;
