import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context, Next } from 'koa';
import { SitemapAiError } from '../core/errors';
import { runsAround } from './revalidation';

/**
 * Route middleware of the public endpoints: the plugin's errors become
 * Strapi-shaped `{ error: { status, name, message } }` bodies with their
 * 4xx status; Strapi's own errors pass to Strapi's error handler (which
 * keeps their `details`); anything unexpected is logged and answered with a 500 that
 * reveals nothing internal.
 */
export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) =>
  async (ctx: Context, next: Next) => {
    // (a revalidated manifest page: its errors are answered by the chain around the router)
    if (runsAround(ctx)) return next();
    try {
      await next();
    } catch (error) {
      if (error instanceof SitemapAiError) {
        ctx.status = error.status;
        if (error.status === 503) ctx.set('Retry-After', '30');
        ctx.body = {
          data: null,
          error: { status: error.status, name: error.name, message: error.message },
        };
        return;
      }
      // Strapi's own errors (a ValidationError with field details, a NotFoundError, …): Strapi answers them in its shape.
      if (error instanceof errors.ApplicationError || error instanceof errors.HttpError)
        throw error;
      strapi.log.error(
        `[sitemap-ai] ${ctx.method} ${ctx.path} failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
      ctx.status = 500;
      ctx.body = {
        data: null,
        error: { status: 500, name: 'InternalServerError', message: 'Internal Server Error' },
      };
    }
  };
