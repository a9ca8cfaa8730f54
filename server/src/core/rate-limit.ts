/**
 * Fixed-window request counter per client (SPEC §8 "public routes are
 * rate-limited"). Pure: the caller passes the clock.
 */
export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets (the Retry-After of a 429). */
  retryAfter: number;
}

const MAX_TRACKED_CLIENTS = 50_000;

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  hit(client: string, now: number): RateLimitDecision {
    let window = this.windows.get(client);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= MAX_TRACKED_CLIENTS) this.prune(now);
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(client, window);
    }
    window.count += 1;
    const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
    return {
      allowed: window.count <= this.max,
      remaining: Math.max(0, this.max - window.count),
      retryAfter,
    };
  }

  private prune(now: number): void {
    for (const [client, window] of this.windows)
      if (window.resetAt <= now) this.windows.delete(client);
    // Still full of live windows: forget the oldest half rather than grow without bound.
    if (this.windows.size >= MAX_TRACKED_CLIENTS) {
      let drop = Math.floor(this.windows.size / 2);
      for (const client of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(client);
      }
    }
  }
}
