/**
 * Fixed-window request counts per client, shared by every instance of a site
 * (docs/protocol.md "Rate limits"). Pure: the caller passes the clock and
 * does the I/O.
 *
 * Windows are aligned to the epoch (`floor(now / window)`), so instances
 * agree on them without talking. Each instance counts its own hits locally
 * and adds them to a shared counter store in batches (`takeDeltas` → store →
 * `settle`); a decision is the shared total last seen plus the hits not yet
 * stored. A hit is stored before it is decided (`count` returns true) when it
 * is the client's first in the window at this instance or when what this
 * instance knows of the shared total is older than `staleMs`: a client over
 * the limit elsewhere is refused at once, and beyond the limit an instance
 * lets through at most what reaches it within `staleMs`.
 */
export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets (the Retry-After of a 429). */
  retryAfter: number;
}

/** Hits of one client in one window that this instance has not stored yet. */
export interface CounterDelta {
  /** Client key (already pseudonymised) and window index, e.g. `k3J…@29123456`. */
  bucket: string;
  delta: number;
  /** Epoch ms after which the counter may be forgotten (the window's end). */
  expiresAt: number;
}

/** Where the shared counts live: the database, Redis, or (one instance) memory. */
export interface CounterStore {
  /** Add every delta to its bucket and return each bucket's total across all instances after. */
  add(deltas: readonly CounterDelta[], now: number): Promise<Map<string, number>>;
  /** Forget buckets whose window ended before `now`. */
  prune(now: number): Promise<void>;
  close(): Promise<void>;
}

interface Entry {
  window: number;
  /** Shared total at the last sync (this instance's stored hits included). */
  known: number;
  /** Hits handed to the store and not settled yet. */
  inFlight: number;
  /** Hits not handed to the store yet. */
  local: number;
  /** When `known` was last read from the store (epoch ms). */
  syncedAt: number;
}

const MAX_TRACKED_CLIENTS = 50_000;

export function bucketOf(client: string, window: number): string {
  return `${client}@${window}`;
}

export class SharedRateLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
    /** Knowledge of the shared total older than this is refreshed before a decision. */
    readonly staleMs = Number.POSITIVE_INFINITY,
  ) {}

  windowOf(now: number): number {
    return Math.floor(now / this.windowMs);
  }

  /**
   * Count one hit of `client`. Returns true when the caller should sync before deciding: the
   * client's first hit in this window at this instance, or what is known of it is stale.
   */
  count(client: string, now: number): boolean {
    const window = this.windowOf(now);
    let entry = this.entries.get(client);
    if (!entry || entry.window !== window) {
      if (!entry && this.entries.size >= MAX_TRACKED_CLIENTS) this.forgetOld(window);
      entry = { window, known: 0, inFlight: 0, local: 0, syncedAt: Number.NEGATIVE_INFINITY };
      this.entries.delete(client);
      this.entries.set(client, entry);
    }
    entry.local += 1;
    return entry.syncedAt === Number.NEGATIVE_INFINITY || now - entry.syncedAt > this.staleMs;
  }

  /** The decision for `client` now, from what this instance knows of the shared count. */
  decide(client: string, now: number): RateLimitDecision {
    const window = this.windowOf(now);
    const entry = this.entries.get(client);
    const total = entry && entry.window === window ? entry.known + entry.inFlight + entry.local : 0;
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
    return {
      allowed: total <= this.max,
      remaining: Math.max(0, this.max - total),
      retryAfter,
    };
  }

  /** Count and decide in one step (a store that is local, or when a sync is not awaited). */
  hit(client: string, now: number): RateLimitDecision {
    this.count(client, now);
    return this.decide(client, now);
  }

  /** Hits to hand to the store; they count as in flight until `settle`. */
  takeDeltas(now: number): CounterDelta[] {
    const window = this.windowOf(now);
    const deltas: CounterDelta[] = [];
    for (const [client, entry] of this.entries) {
      if (entry.window !== window) {
        // A past window: nobody decides on it any more.
        if (entry.inFlight === 0) this.entries.delete(client);
        continue;
      }
      if (entry.local === 0) continue;
      deltas.push({
        bucket: bucketOf(client, window),
        delta: entry.local,
        expiresAt: (window + 1) * this.windowMs,
      });
      entry.inFlight += entry.local;
      entry.local = 0;
    }
    return deltas;
  }

  /**
   * The store's answer to `deltas`: the totals it returned, or `null` when it failed (the hits
   * go back to local and are offered again at the next sync).
   */
  settle(deltas: readonly CounterDelta[], totals: Map<string, number> | null, now: number): void {
    for (const { bucket, delta } of deltas) {
      const at = bucket.lastIndexOf('@');
      const client = bucket.slice(0, at);
      const window = Number(bucket.slice(at + 1));
      const entry = this.entries.get(client);
      if (!entry || entry.window !== window) continue;
      entry.inFlight = Math.max(0, entry.inFlight - delta);
      const total = totals?.get(bucket);
      if (total === undefined) entry.local += delta;
      else {
        entry.known = Math.max(entry.known, total);
        entry.syncedAt = Math.max(entry.syncedAt, now);
      }
    }
  }

  /** True when some hits wait to be stored. */
  pending(): boolean {
    for (const entry of this.entries.values()) if (entry.local > 0) return true;
    return false;
  }

  private forgetOld(window: number): void {
    for (const [client, entry] of this.entries)
      if (entry.window !== window && entry.inFlight === 0) this.entries.delete(client);
    // Still full of live windows: forget the oldest half rather than grow without bound.
    if (this.entries.size >= MAX_TRACKED_CLIENTS) {
      let drop = Math.floor(this.entries.size / 2);
      for (const client of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(client);
      }
    }
  }
}

/** The counter store of a single instance: a map in memory. */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { total: number; expiresAt: number }>();

  async add(deltas: readonly CounterDelta[], now: number): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    for (const { bucket, delta, expiresAt } of deltas) {
      const counter = this.counters.get(bucket);
      const total = (counter && counter.expiresAt > now ? counter.total : 0) + delta;
      this.counters.set(bucket, { total, expiresAt });
      totals.set(bucket, total);
    }
    return totals;
  }

  async prune(now: number): Promise<void> {
    for (const [bucket, counter] of this.counters)
      if (counter.expiresAt <= now) this.counters.delete(bucket);
  }

  async close(): Promise<void> {
    this.counters.clear();
  }
}
