import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import accessLog from './access-log';
import errors from './errors';
import rateLimit from './rate-limit';
import { getService } from '../utils/get-service';

/** What the revalidation path leaves in `ctx.state` for the public routes' own middlewares. */
export interface RevalidationState {
  /** The access log, errors and rate limit of this request ran around the router already. */
  sitemapAiAround?: true;
}

/** Whether the public routes' access log, errors and rate limit already run around this request. */
export const runsAround = (ctx: Context): boolean =>
  (ctx.state as RevalidationState).sitemapAiAround === true;

/**
 * A first manifest page the instance holds is answered here, after the app's middlewares (security
 * headers, CORS, logger, session: everything `/_health` passes through too) and before the router:
 * a crawler's revalidation (`If-None-Match`), the commonest request the plugin answers, with its
 * `304`, and a page of the newest snapshot seen whose bytes are cached, with them (the
 * controller's `answeredFromSeen`, docs/protocol.md §6). Matching the path against every route of
 * the app and Strapi's per-route chain (route info, authentication, policies) cost a `304` a third
 * of its time. The public routes' own middlewares run around it as they run around the route —
 * the access log records the answer, a client over its rate limit gets its `429`, an error its
 * JSON body — and the ETags are the controller's own. A request this does not answer goes on to
 * the router, whose route then leaves the access log, errors and rate limit to this chain
 * (`runsAround`): counted and logged once. Registered on the server in `bootstrap`, after the
 * app's middlewares.
 */
export function createRevalidation(strapi: Core.Strapi) {
  const prefix = getService(strapi, 'config').apiPath();
  const formats = new Map<string, 'json' | 'xml'>([
    [`${prefix}/manifest`, 'json'],
    [`${prefix}/manifest.json`, 'json'],
    [`${prefix}/manifest.xml`, 'xml'],
  ]);
  const chain = [
    accessLog({ kind: 'manifest' }, { strapi }),
    errors(undefined, { strapi }),
    rateLimit(undefined, { strapi }),
  ];
  /** The chain around `last`, outermost first, as the route runs it. */
  const around = (ctx: Context, last: () => Promise<void>, i = 0): Promise<unknown> =>
    i === chain.length ? last() : chain[i]!(ctx, () => around(ctx, last, i + 1));
  const controller = () =>
    strapi.plugin('sitemap-ai').controller('manifest') as unknown as {
      answeredFromSeen(ctx: Context, format: 'json' | 'xml'): Promise<boolean>;
    };
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET') return next();
    const format = formats.get(ctx.path);
    if (!format) return next();
    return around(ctx, async () => {
      if (await controller().answeredFromSeen(ctx, format)) return;
      // (the route's own access log, errors and rate limit: already around it)
      (ctx.state as RevalidationState).sitemapAiAround = true;
      await next();
    });
  };
}
