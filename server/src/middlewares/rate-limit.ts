import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { RateLimiter } from '../core/rate-limit';
import { getService } from '../utils/get-service';

/**
 * Route middleware of the public endpoints: at most `rateLimit.max` requests
 * per client IP per window; beyond that 429 with Retry-After (SPEC §8).
 * Counts are per Strapi instance, kept in memory.
 */
// Strapi makes one middleware instance per route: the counts are shared per app.
const limiters = new WeakMap<Core.Strapi, { limiter: RateLimiter; key: string }>();

/** Forget the counts (a change of the rate limit in Settings starts every client afresh). */
export function resetRateLimiter(strapi: Core.Strapi): void {
  limiters.delete(strapi);
}

export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) => {
  return async (ctx: Context, next: Next) => {
    const { rateLimit } = getService(strapi, 'settings').config();
    if (!rateLimit.enabled) return next();
    // Limits changed (Settings saved on another instance): start afresh with the new ones.
    const key = `${rateLimit.max}/${rateLimit.windowSeconds}`;
    let entry = limiters.get(strapi);
    if (!entry || entry.key !== key) {
      entry = { limiter: new RateLimiter(rateLimit.max, rateLimit.windowSeconds * 1000), key };
      limiters.set(strapi, entry);
    }
    const { limiter } = entry;
    const decision = limiter.hit(ctx.ip || 'unknown', Date.now());
    ctx.set('RateLimit-Limit', String(rateLimit.max));
    ctx.set('RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      ctx.status = 429;
      ctx.set('Retry-After', String(decision.retryAfter));
      ctx.body = {
        data: null,
        error: {
          status: 429,
          name: 'RateLimitError',
          message: `Too many requests: at most ${rateLimit.max} per ${rateLimit.windowSeconds} s. Retry after ${decision.retryAfter} s.`,
        },
      };
      return;
    }
    return next();
  };
};
