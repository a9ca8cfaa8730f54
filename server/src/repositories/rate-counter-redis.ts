import { Redis } from 'ioredis';
import type { CounterDelta, CounterStore } from '../core/rate-limit';

/**
 * The shared rate-limit counts in Redis (`rateLimitStore.kind: 'redis'`): one key per bucket,
 * `INCRBY` and an expiry at the window's end, in one MULTI per sync. Commands fail at once while
 * Redis is unreachable (no offline queue), so the limiter falls back to this instance's own
 * counts instead of waiting; the client reconnects by itself.
 */
export function createRedisCounterStore(options: {
  url: string;
  keyPrefix: string;
  onError: (error: Error) => void;
}): CounterStore {
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
  });
  redis.on('error', options.onError);
  redis.connect().catch(options.onError);
  return {
    async add(deltas: readonly CounterDelta[]): Promise<Map<string, number>> {
      const totals = new Map<string, number>();
      if (deltas.length === 0) return totals;
      const multi = redis.multi();
      for (const { bucket, delta, expiresAt } of deltas) {
        const key = `${options.keyPrefix}${bucket}`;
        multi.incrby(key, delta);
        // A second of grace past the window's end: clocks of instances differ a little.
        multi.pexpireat(key, expiresAt + 1_000);
      }
      const results = (await multi.exec()) ?? [];
      deltas.forEach(({ bucket }, index) => {
        const [error, total] = results[index * 2] ?? [new Error('no reply'), null];
        if (!error) totals.set(bucket, Number(total));
      });
      return totals;
    },

    async prune(): Promise<void> {},

    async close(): Promise<void> {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
