import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import { InvalidParameterError } from '../core/errors';
import { getService } from '../utils/get-service';

/**
 * Registered agents' API keys (docs/protocol.md §7.2), for the site owner: list, issue (the key is
 * answered once), revoke. Bodies are validated; a bad one is a 400 naming the field.
 */
export const createAgentKeysController = ({ strapi }: { strapi: Core.Strapi }) => ({
  async list(ctx: Context) {
    ctx.body = { data: await getService(strapi, 'agents').listKeys() };
  },

  async issue(ctx: Context) {
    const body = (ctx.request as { body?: unknown }).body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new errors.ValidationError('the body must be a JSON object { label, rateMax? }');
    const { label, rateMax, ...rest } = body as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new errors.ValidationError(
        `${unknown[0]}: unknown field; allowed are label and rateMax`,
      );
    if (typeof label !== 'string' || label.trim() === '' || label.trim().length > 100)
      throw new errors.ValidationError('label: must be a name of 1 to 100 characters');
    if (
      rateMax !== undefined &&
      rateMax !== null &&
      (typeof rateMax !== 'number' ||
        !Number.isInteger(rateMax) ||
        rateMax < 1 ||
        rateMax > 1_000_000)
    )
      throw new errors.ValidationError(
        'rateMax: must be a whole number from 1 to 1000000, or null',
      );
    ctx.status = 201;
    ctx.body = {
      data: await getService(strapi, 'agents').issueKey({
        label: label.trim(),
        rateMax: (rateMax as number | null | undefined) ?? null,
      }),
    };
  },

  async revoke(ctx: Context) {
    const raw = String(ctx.params.id ?? '');
    if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw new InvalidParameterError('id', 'must be a key id');
    const revoked = await getService(strapi, 'agents').revokeKey(Number(raw));
    if (!revoked) throw new errors.NotFoundError(`no agent key ${raw}`);
    ctx.body = { data: revoked };
  },
});
