import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../server/src/core/rate-limit';

const T0 = Date.parse('2025-10-22T09:00:00.000Z');

describe('RateLimiter', () => {
  it('Given a limit of 3 per minute, When a client makes 4 requests, Then the fourth is refused with the seconds left', () => {
    const limiter = new RateLimiter(3, 60_000);
    const decisions = [0, 1_000, 2_000, 15_500].map((dt) => limiter.hit('203.0.113.7', T0 + dt));
    expect(decisions).toEqual([
      { allowed: true, remaining: 2, retryAfter: 60 },
      { allowed: true, remaining: 1, retryAfter: 59 },
      { allowed: true, remaining: 0, retryAfter: 58 },
      { allowed: false, remaining: 0, retryAfter: 45 }, // ceil(44.5 s) left in the window
    ]);
  });

  it('Given a refused client, When the window has passed, Then it is allowed again with a fresh window', () => {
    const limiter = new RateLimiter(1, 60_000);
    limiter.hit('GPTBot', T0);
    expect(limiter.hit('GPTBot', T0 + 59_999).allowed).toBe(false);
    expect(limiter.hit('GPTBot', T0 + 60_000)).toEqual({
      allowed: true,
      remaining: 0,
      retryAfter: 60,
    });
  });

  it('Given two clients, When one is exhausted, Then the other is still allowed', () => {
    const limiter = new RateLimiter(1, 60_000);
    limiter.hit('198.51.100.1', T0);
    expect(limiter.hit('198.51.100.1', T0 + 1).allowed).toBe(false);
    expect(limiter.hit('198.51.100.2', T0 + 1).allowed).toBe(true);
  });

  it('Given the last millisecond of a window, When refused, Then Retry-After is at least one second', () => {
    const limiter = new RateLimiter(1, 60_000);
    limiter.hit('ClaudeBot', T0);
    expect(limiter.hit('ClaudeBot', T0 + 59_999).retryAfter).toBe(1);
  });

  it('Given more than 50 000 live clients, When a new one arrives, Then old windows are forgotten and the newcomer is counted', () => {
    const limiter = new RateLimiter(1, 60_000);
    for (let i = 0; i < 50_000; i += 1) limiter.hit(`client-${i}`, T0);
    expect(limiter.hit('client-0', T0 + 1).allowed).toBe(false);
    expect(limiter.hit('newcomer', T0 + 2).allowed).toBe(true);
    expect(limiter.hit('newcomer', T0 + 3).allowed).toBe(false);
    // the oldest half was dropped: client-0 starts a new window
    expect(limiter.hit('client-0', T0 + 4).allowed).toBe(true);
    expect(limiter.hit('client-49999', T0 + 5).allowed).toBe(false);
  });
});
