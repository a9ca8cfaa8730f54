import type { Core } from '@strapi/strapi';
import type { AgentTier } from '../services/agents';
import type { DeltaSpan } from '../core/geo';
import type { Context, Next } from 'koa';
import {
  ITEM_ROUTE_KINDS,
  ROUTE_KINDS,
  loggableItemId,
  parseClientValidators,
  type RouteKind,
  type ServedItem,
} from '../core/access-log';
import { classifyUserAgent } from '../core/agents';
import { getService } from '../utils/get-service';
import { messageOf } from '../core/errors';
import { runsAround } from './revalidation';

/** What the public routes' controllers and middlewares leave in `ctx.state` for the access log. */
export interface PublicRouteState {
  sitemapAiServed?: ServedItem;
  sitemapAiDelta?: DeltaSpan;
  sitemapAiTier?: AgentTier;
}

/**
 * Route middleware of the public endpoints (docs/protocol.md §7; README › Observability): after the answer is
 * made, queues one access-log entry — agent family, route, item, status,
 * the client's address (pseudonymised before it is stored). It is the
 * outermost middleware of each public route, so it sees the final status of
 * errors and 429s too. It never delays or fails the response.
 *
 * Route config: `{ name: 'plugin::sitemap-ai.access-log', config: { kind: 'manifest' } }`.
 */
export default (config: { kind?: string } | undefined, { strapi }: { strapi: Core.Strapi }) => {
  const kind = config?.kind as RouteKind | undefined;
  if (!kind || !(ROUTE_KINDS as readonly string[]).includes(kind)) {
    throw new Error(
      `plugin::sitemap-ai.access-log needs config.kind, one of ${ROUTE_KINDS.join(', ')}`,
    );
  }

  function record(ctx: Context, status: number): void {
    try {
      const itemRoute = ITEM_ROUTE_KINDS.has(kind!);
      const state = ctx.state as PublicRouteState;
      // The item the controller answered with (its current id for an old one), else the id asked for.
      const served = itemRoute ? state.sitemapAiServed : undefined;
      getService(strapi, 'access-log').record({
        at: new Date().toISOString(),
        agent: classifyUserAgent(ctx.get('User-Agent')),
        route: kind!,
        itemId: itemRoute ? (served?.itemId ?? loggableItemId(ctx.params?.id)) : null,
        served,
        status,
        ip: ctx.ip || ctx.request.ip || 'unknown',
        tier: state.sitemapAiTier,
        delta: state.sitemapAiDelta,
        validators: itemRoute
          ? parseClientValidators(ctx.get('If-None-Match'))
          : { versions: [], checksums: [] },
      });
    } catch (error) {
      strapi.log.error(`[sitemap-ai] access log: ${messageOf(error)}`);
    }
  }

  return async (ctx: Context, next: Next) => {
    // (a revalidated manifest page: logged by the chain around the router, once)
    if (runsAround(ctx)) return next();
    try {
      await next();
    } catch (error) {
      record(
        ctx,
        typeof (error as { status?: unknown }).status === 'number'
          ? (error as { status: number }).status
          : 500,
      );
      throw error;
    }
    record(ctx, ctx.status);
  };
};
