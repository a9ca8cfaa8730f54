/**
 * A least-recently-used cache bounded by the total size of its values (in UTF-16 code units of
 * their text, near enough to bytes for the budget): what an immutable answer costs to keep.
 */
export class ByteCache<V extends { size: number }> {
  private readonly entries = new Map<string, V>();
  private total = 0;

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Most recently used last: the Map's order is the eviction order.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    if (value.size > this.budget) return;
    const old = this.entries.get(key);
    if (old) {
      this.total -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.total += value.size;
    for (const [oldest, evicted] of this.entries) {
      if (this.total <= this.budget) break;
      this.entries.delete(oldest);
      this.total -= evicted.size;
    }
  }

  /** Total size held (never above the budget). */
  get size(): number {
    return this.total;
  }
}
