import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { InvalidParameterError } from '../core/errors';
import { getService } from '../utils/get-service';

/** GET /sitemap-ai/dashboard (SPEC §7, §9): `{ data: DashboardData }`; `?fresh=true` recomputes the readiness checklist. */
export const createDashboardController = ({ strapi }: { strapi: Core.Strapi }) => ({
  async show(ctx: Context) {
    const { fresh, ...rest } = ctx.query;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown parameter; allowed is fresh');
    if (fresh !== undefined && fresh !== 'true' && fresh !== 'false')
      throw new InvalidParameterError('fresh', 'must be true or false');
    ctx.body = { data: await getService(strapi, 'dashboard').data({ fresh: fresh === 'true' }) };
  },
});
