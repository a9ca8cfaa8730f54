import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { InvalidParameterError } from '../core/errors';
import type { SnapshotRecord } from '../services/manifest';
import type { WebhookLogQuery } from '../../../shared/contracts/webhooks';
import { snapshotSummary } from '../services/dashboard';
import { getService } from '../utils/get-service';

const snapshotBody = (snapshot: SnapshotRecord | null) =>
  snapshot ? snapshotSummary(snapshot) : null;

/** Admin endpoints (admin JWT + permission, docs/protocol.md §4 admin-side). */
export const createAdminController = ({ strapi }: { strapi: Core.Strapi }) => ({
  async rebuild(ctx: Context) {
    const body = (ctx.request as { body?: unknown }).body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidParameterError('body', 'must be a JSON object');
    const { full, ...rest } = body as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown field; allowed is "full"');
    if (full !== undefined && typeof full !== 'boolean')
      throw new InvalidParameterError('full', 'must be true or false');
    const result = await getService(strapi, 'snapshot-builder').rebuild({
      trigger: 'admin',
      full: full === true,
    });
    ctx.body = {
      data: {
        snapshot: snapshotBody(result.snapshot),
        skipped: result.skipped,
        locked: result.locked,
        failures: result.failures,
      },
    };
  },

  async deliveries(ctx: Context) {
    const { limit, status, ...rest } = ctx.query;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown parameter; allowed are limit, status');
    if (limit !== undefined && (typeof limit !== 'string' || !/^[0-9]{1,4}$/.test(limit))) {
      throw new InvalidParameterError('limit', 'must be a whole number');
    }
    if (status !== undefined && typeof status !== 'string')
      throw new InvalidParameterError('status', 'give it once');
    const log = await getService(strapi, 'webhooks').log({
      limit: limit === undefined ? undefined : Number(limit),
      // The service validates the value against the known statuses.
      status: status as WebhookLogQuery['status'],
    });
    ctx.body = { data: log };
  },

  async snapshots(ctx: Context) {
    const list = await getService(strapi, 'manifest').recentSnapshots(20);
    ctx.body = { data: list.map(snapshotBody) };
  },
});
