import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getService } from '../utils/get-service';
import { runsAround } from './revalidation';

/**
 * Route middleware of the public endpoints: at most `rateLimit.max` requests per client IP per
 * window across every instance of the site; beyond that 429 with Retry-After (docs/protocol.md
 * "Rate limits"). The counting is the `rate-limit` service's.
 */
export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) => {
  return async (ctx: Context, next: Next) => {
    // (a revalidated manifest page: counted by the chain around the router, once)
    if (runsAround(ctx)) return next();
    // A verified AI agent (docs/protocol.md §7.2) has its own, higher limit, counted by who it
    // is; an unverified claim is limited like any other client.
    const identity = await getService(strapi, 'agents').identify(ctx);
    const { verifiedRateLimit } = getService(strapi, 'config').config().agents;
    const tier =
      identity.tier === 'verified' || identity.tier === 'registered'
        ? {
            name: identity.tier,
            identity: `${identity.family}/${identity.subject ?? ''}`,
            max: identity.rateMax ?? verifiedRateLimit.max,
            windowSeconds: verifiedRateLimit.windowSeconds,
          }
        : undefined;
    const decision = await getService(strapi, 'rate-limit').check(ctx.ip || 'unknown', tier);
    if (!decision) return next();
    ctx.set('RateLimit-Limit', String(decision.max));
    ctx.set('RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      const { windowSeconds } = decision;
      ctx.status = 429;
      ctx.set('Retry-After', String(decision.retryAfter));
      ctx.body = {
        data: null,
        error: {
          status: 429,
          name: 'RateLimitError',
          message: `Too many requests: at most ${decision.max} per ${windowSeconds} s. Retry after ${decision.retryAfter} s.`,
        },
      };
      return;
    }
    return next();
  };
};
