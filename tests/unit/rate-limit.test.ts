import { describe, expect, it } from 'vitest';
import {
  MemoryCounterStore,
  SharedRateLimiter,
  bucketOf,
  type CounterStore,
} from '../../server/src/core/rate-limit';

// A minute boundary, so windows of 60 s start here.
const T0 = Date.parse('2025-10-22T09:00:00.000Z');

/** One instance: count, sync with the shared store when asked, decide. */
async function request(
  limiter: SharedRateLimiter,
  store: CounterStore,
  client: string,
  now: number,
  { sync = true } = {},
) {
  const fresh = limiter.count(client, now);
  if (fresh || sync) {
    const deltas = limiter.takeDeltas(now);
    limiter.settle(deltas, await store.add(deltas, now), now);
  }
  return limiter.decide(client, now);
}

describe('SharedRateLimiter on one instance', () => {
  it('Given a limit of 3 per minute, When a client makes 4 requests, Then the fourth is refused with the seconds left in the window', () => {
    const limiter = new SharedRateLimiter(3, 60_000);
    const decisions = [0, 1_000, 2_000, 15_500].map((dt) => limiter.hit('203.0.113.7', T0 + dt));
    expect(decisions).toEqual([
      { allowed: true, remaining: 2, retryAfter: 60 },
      { allowed: true, remaining: 1, retryAfter: 59 },
      { allowed: true, remaining: 0, retryAfter: 58 },
      { allowed: false, remaining: 0, retryAfter: 45 }, // ceil(44.5 s) left in the window
    ]);
  });

  it('Given a refused client, When the next window starts, Then it is allowed again', () => {
    const limiter = new SharedRateLimiter(1, 60_000);
    limiter.hit('GPTBot', T0);
    expect(limiter.hit('GPTBot', T0 + 59_999).allowed).toBe(false);
    expect(limiter.hit('GPTBot', T0 + 60_000)).toEqual({
      allowed: true,
      remaining: 0,
      retryAfter: 60,
    });
  });

  it('Given two clients, When one is exhausted, Then the other is still allowed', () => {
    const limiter = new SharedRateLimiter(1, 60_000);
    limiter.hit('198.51.100.1', T0);
    expect(limiter.hit('198.51.100.1', T0 + 1).allowed).toBe(false);
    expect(limiter.hit('198.51.100.2', T0 + 1).allowed).toBe(true);
  });

  it('Given the last millisecond of a window, When refused, Then Retry-After is at least one second', () => {
    const limiter = new SharedRateLimiter(1, 60_000);
    limiter.hit('ClaudeBot', T0);
    expect(limiter.hit('ClaudeBot', T0 + 59_999).retryAfter).toBe(1);
  });

  it('Given more than 50 000 live clients, When a new one arrives, Then the oldest half is forgotten and the newcomer is counted', () => {
    const limiter = new SharedRateLimiter(1, 60_000);
    for (let i = 0; i < 50_000; i += 1) limiter.hit(`client-${i}`, T0);
    expect(limiter.hit('client-0', T0 + 1).allowed).toBe(false);
    expect(limiter.hit('newcomer', T0 + 2).allowed).toBe(true);
    expect(limiter.hit('newcomer', T0 + 3).allowed).toBe(false);
    expect(limiter.hit('client-0', T0 + 4).allowed).toBe(true);
    expect(limiter.hit('client-49999', T0 + 5).allowed).toBe(false);
  });
});

describe('SharedRateLimiter across instances', () => {
  it('Given three instances sharing one store, When a client spreads 12 requests over them with a limit of 6, Then exactly 6 are allowed', async () => {
    const store = new MemoryCounterStore();
    const instances = [0, 1, 2].map(() => new SharedRateLimiter(6, 60_000));
    const allowed: boolean[] = [];
    for (let i = 0; i < 12; i += 1)
      allowed.push(
        (await request(instances[i % 3]!, store, 'crawler', T0 + i * 100)).allowed === true,
      );
    expect(allowed.filter(Boolean)).toHaveLength(6);
    expect(allowed.slice(0, 6).every(Boolean)).toBe(true);
  });

  it('Given a client over the limit at one instance, When its first request reaches another, Then that one refuses it at once', async () => {
    const store = new MemoryCounterStore();
    const [a, b] = [new SharedRateLimiter(3, 60_000), new SharedRateLimiter(3, 60_000)];
    for (let i = 0; i < 4; i += 1) await request(a, store, 'bot', T0 + i, { sync: false });
    // a's later hits are only local until its next sync
    const deltas = a.takeDeltas(T0 + 10);
    a.settle(deltas, await store.add(deltas, T0 + 10), T0 + 10);
    const first = await request(b, store, 'bot', T0 + 20, { sync: false });
    expect(first).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('Given an instance whose count of a client is older than staleMs, When the client comes back, Then it asks the store before deciding', async () => {
    const store = new MemoryCounterStore();
    const a = new SharedRateLimiter(3, 60_000, 250);
    const b = new SharedRateLimiter(3, 60_000, 250);
    await request(a, store, 'bot', T0, { sync: false });
    for (let i = 1; i <= 3; i += 1) await request(b, store, 'bot', T0 + i, { sync: false });
    const deltas = b.takeDeltas(T0 + 10);
    b.settle(deltas, await store.add(deltas, T0 + 10), T0 + 10);
    // 100 ms after its last sync, a decides on what it knows (stale by b's three hits) …
    expect(a.count('bot', T0 + 100)).toBe(false);
    expect(a.decide('bot', T0 + 100).allowed).toBe(true);
    // … past 250 ms it syncs first and refuses
    expect(a.count('bot', T0 + 400)).toBe(true);
    const mine = a.takeDeltas(T0 + 400);
    a.settle(mine, await store.add(mine, T0 + 400), T0 + 400);
    expect(a.decide('bot', T0 + 400)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('Given a store that fails, When the sync is settled with no totals, Then the hits stay counted locally and are offered again', async () => {
    const limiter = new SharedRateLimiter(2, 60_000);
    limiter.count('bot', T0);
    const deltas = limiter.takeDeltas(T0);
    expect(deltas).toEqual([
      { bucket: bucketOf('bot', T0 / 60_000), delta: 1, expiresAt: T0 + 60_000 },
    ]);
    limiter.settle(deltas, null, T0);
    limiter.count('bot', T0 + 1);
    expect(limiter.decide('bot', T0 + 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.takeDeltas(T0 + 2)).toEqual([
      { bucket: bucketOf('bot', T0 / 60_000), delta: 2, expiresAt: T0 + 60_000 },
    ]);
  });

  it('Given counts of a past window, When the store is pruned, Then they are gone and the next window starts at zero', async () => {
    const store = new MemoryCounterStore();
    const bucket = bucketOf('bot', T0 / 60_000);
    await store.add([{ bucket, delta: 5, expiresAt: T0 + 60_000 }], T0);
    await store.prune(T0 + 60_000);
    expect(
      (await store.add([{ bucket, delta: 1, expiresAt: T0 + 60_000 }], T0 + 1)).get(bucket),
    ).toBe(1);
  });
});
