import { createHmac } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import {
  MemoryCounterStore,
  SharedRateLimiter,
  type CounterStore,
  type RateLimitDecision,
} from '../core/rate-limit';
import { createRateCounterRepository } from '../repositories/rate-counter-repository';

import { createRedisCounterStore } from '../repositories/rate-counter-redis';

import { getService } from '../utils/get-service';
import { within } from '../utils/within';
import { messageOf } from '../core/errors';

/** Expired counters are deleted at most this often per instance. */
const PRUNE_INTERVAL_MS = 60_000;
/** A failing store is logged at most this often. */
const ERROR_LOG_INTERVAL_MS = 60_000;

/**
 * One rate limit for the public routes across every instance on the site's database
 * (docs/protocol.md "Rate limits"): counts go to the store of `rateLimitStore` — the database
 * by default, Redis when configured, memory for a single instance. A request never waits for
 * the store longer than `rateLimitStore.waitMs`, and a store that fails leaves each instance
 * limiting on its own counts (logged), never a 5xx.
 */
/** A caller with its own limit (docs/protocol.md §7.2): a verified agent, counted by who it is. */
export interface RateLimitTier {
  name: string;
  /** Who is counted: the same agent on every address is one client. */
  identity: string;
  max: number;
  windowSeconds: number;
}

export const createRateLimitService = ({ strapi }: { strapi: Core.Strapi }) => {
  /** One limiter per tier and limit (`anonymous/600/60`, `verified/6000/60`). */
  const limiters = new Map<string, SharedRateLimiter>();
  let store: CounterStore | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let lastPrune = 0;
  let lastErrorLog = 0;
  // A change of the Settings (here or on another instance) starts every client afresh: the next
  // counts go to new buckets. Subscribed when the limiter is first used; nothing to forget before.
  const unsubscribe = getService(strapi, 'events').onConfigChanged(() => service.reset());

  function logError(error: unknown): void {
    const now = Date.now();
    if (now - lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    lastErrorLog = now;
    strapi.log.warn(
      `[sitemap-ai] rate limit: the shared counter store failed, limiting on this instance's own counts meanwhile: ${messageOf(error)}`,
    );
  }

  function storeOf(): CounterStore {
    if (store) return store;
    const { rateLimitStore } = getService(strapi, 'config').config();
    if (rateLimitStore.kind === 'redis')
      store = createRedisCounterStore({
        url: rateLimitStore.redisUrl!,
        keyPrefix: rateLimitStore.keyPrefix,
        onError: logError,
      });
    else if (rateLimitStore.kind === 'memory') store = new MemoryCounterStore();
    else store = createRateCounterRepository({ strapi }, getService(strapi, 'instances').id);
    return store;
  }

  /** Hand this instance's new counts to the store and learn the totals (one run at a time). */
  async function runOnce(): Promise<void> {
    const now = Date.now();
    for (const current of [...limiters.values()]) {
      const deltas = current.takeDeltas(now);
      if (deltas.length === 0) continue;
      try {
        current.settle(deltas, await storeOf().add(deltas, now), now);
      } catch (error) {
        current.settle(deltas, null, now);
        logError(error);
      }
    }
    if (now - lastPrune >= PRUNE_INTERVAL_MS) {
      lastPrune = now;
      await storeOf().prune(now).catch(logError);
    }
  }

  /** A sync that includes every count made before this call. */
  function sync(): Promise<void> {
    if (!running) {
      running = runOnce().finally(() => {
        running = null;
      });
      return running;
    }
    if (!queued)
      queued = running.then(() => {
        queued = null;
        return sync();
      });
    return queued;
  }

  function startTimer(): void {
    if (timer) return;
    const { syncMs } = getService(strapi, 'config').config().rateLimitStore;
    timer = setInterval(() => {
      if ([...limiters.values()].some((l) => l.pending())) void sync();
    }, syncMs);
    timer.unref();
  }

  /**
   * The same on every instance of the site and pseudonymous (no address is stored); a new limit
   * (`max` or window) counts in new buckets, so a change in Settings starts every client afresh.
   */
  function clientKey(ip: string, limit: string): string {
    const secret = getService(strapi, 'config').tokenSecret();
    const digest = createHmac('sha256', secret).update(ip).digest('base64url').slice(0, 22);
    return `${digest}/${limit}`;
  }

  const service = {
    /**
     * Count one request and decide it; `null` when the rate limit is off. A caller of a tier
     * (a verified agent) is counted by its identity against the tier's limit, anyone else by
     * address against `rateLimit`.
     */
    async check(
      ip: string,
      tier?: RateLimitTier,
    ): Promise<(RateLimitDecision & { max: number; windowSeconds: number }) | null> {
      const { rateLimit, rateLimitStore } = getService(strapi, 'config').config();
      if (!rateLimit.enabled) return null;
      const max = tier?.max ?? rateLimit.max;
      const windowSeconds = tier?.windowSeconds ?? rateLimit.windowSeconds;
      // The anonymous tier's key stays `max/window`, so counts survive an upgrade.
      const key = tier ? `${tier.name}:${max}/${windowSeconds}` : `${max}/${windowSeconds}`;
      let current = limiters.get(key);
      if (!current) {
        current = new SharedRateLimiter(max, windowSeconds * 1000, rateLimitStore.syncMs);
        limiters.set(key, current);
      }
      const client = clientKey(tier ? `${tier.name}:${tier.identity}` : ip, key);
      startTimer();
      if (current.count(client, Date.now())) await within(sync(), rateLimitStore.waitMs);
      return { ...current.decide(client, Date.now()), max, windowSeconds };
    },

    /** Store what is counted so far (tests, shutdown). */
    flush: (): Promise<void> => sync(),

    /** Forget this instance's counts (the limit changed: the next counts go to new buckets). */
    reset(): void {
      limiters.clear();
    },

    /** Store the last counts and close the store (call and await in destroy). */
    async stop(): Promise<void> {
      unsubscribe();
      if (timer) clearInterval(timer);
      timer = null;
      await sync().catch(logError);
      if (store) await store.close().catch(logError);
      store = null;
      limiters.clear();
    },
  };
  return service;
};

export type RateLimitService = ReturnType<typeof createRateLimitService>;
