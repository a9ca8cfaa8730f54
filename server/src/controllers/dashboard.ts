import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { InvalidParameterError } from '../core/errors';
import { GEO_TABLES, type GeoTable } from '../../../shared/geo-csv';
import { getService } from '../utils/get-service';

/** `days` of the GEO metrics: 1–365, 30 unless given. */
function daysOf(value: unknown): number {
  if (value === undefined) return 30;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > 365)
    throw new InvalidParameterError('days', 'must be a whole number of days from 1 to 365');
  return Number(value);
}

/** GET /sitemap-ai/dashboard (README › In the admin; README › Observability): `{ data: DashboardData }`; `?fresh=true` recomputes the readiness checklist. */
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

  /** GET /sitemap-ai/geo?days=30 (docs/protocol.md §10): `{ data: GeoMetrics }`. */
  async geo(ctx: Context) {
    const { days, ...rest } = ctx.query;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown parameter; allowed is days');
    ctx.body = { data: await getService(strapi, 'geo').metrics(daysOf(days)) };
  },

  /** GET /sitemap-ai/geo.csv?table=…&days=30: one table of the GEO metrics as CSV. */
  async geoCsv(ctx: Context) {
    const { days, table, ...rest } = ctx.query;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown parameter; allowed are table and days');
    if (typeof table !== 'string' || !(GEO_TABLES as readonly string[]).includes(table))
      throw new InvalidParameterError('table', `must be one of ${GEO_TABLES.join(', ')}`);
    const geo = getService(strapi, 'geo');
    const body = geo.csv(await geo.metrics(daysOf(days)), table as GeoTable);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="sitemap-ai-${table}.csv"`);
    ctx.body = body;
  },

  /** GET /api/sitemap-ai/beacon (public): a visit from an AI assistant, reported by a front end. */
  async beacon(ctx: Context) {
    await getService(strapi, 'geo').beacon(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 204;
  },
});
