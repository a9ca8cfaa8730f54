import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context } from 'koa';
import { InvalidParameterError } from '../core/errors';
import { SECRET_MASK } from '../../../shared/settings-schema';
import type { DiscoveryPreview, SettingsUpdateResult } from '../../../shared/contracts/admin';
import { SettingsValidationError } from '../services/settings';
import { getService } from '../utils/get-service';

/** The request body as a JSON object, or a 400 naming it. */
function objectBody(ctx: Context): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidParameterError('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

/** Invalid Settings as Strapi's 400 `ValidationError`, every field in `details.errors`. */
function validationError(error: SettingsValidationError): errors.ValidationError {
  return new errors.ValidationError(error.message, {
    errors: error.errors.map((e) => ({ ...e, name: 'ValidationError' })),
  });
}

/**
 * Settings (README › In the admin): read, save, send a test webhook, preview the discovery documents.
 * Admin JWT + plugin permission (routes/admin.ts).
 */
export const createSettingsController = ({ strapi }: { strapi: Core.Strapi }) => ({
  async find(ctx: Context) {
    // What is stored now (another instance may have saved since), never this instance's old copy.
    await getService(strapi, 'settings').refresh();
    ctx.body = { data: getService(strapi, 'settings').data() };
  },

  async update(ctx: Context) {
    const body = objectBody(ctx);
    const user = (ctx.state as { user?: { id?: unknown } }).user;
    const userId =
      typeof user?.id === 'number'
        ? user.id
        : user?.id !== undefined
          ? Number(user.id) || null
          : null;
    try {
      const data = await getService(strapi, 'settings').update(body, userId);
      const result: SettingsUpdateResult = { ...data, appliesAt: 'next-rebuild' };
      ctx.body = { data: result };
    } catch (error) {
      if (error instanceof SettingsValidationError) throw validationError(error);
      throw error;
    }
  },

  /** The small discovery documents of the current snapshot with an unsaved Discovery section. */
  async previewDiscovery(ctx: Context) {
    const body = objectBody(ctx);
    const discovery = (() => {
      try {
        return getService(strapi, 'settings').discoveryPreview(body);
      } catch (error) {
        if (error instanceof SettingsValidationError) throw validationError(error);
        throw error;
      }
    })();
    const documents = getService(strapi, 'discovery');
    const [robots, llms, rsl, tdmrep] = await Promise.all([
      documents.robots(discovery),
      documents.llms(discovery),
      documents.rsl(),
      documents.tdmrep(),
    ]);
    const preview: DiscoveryPreview = {
      robots: robots.body,
      llms: llms.body,
      rsl: rsl.body,
      tdmrep: JSON.stringify(tdmrep.body, null, 2),
    };
    ctx.body = { data: preview };
  },

  async testWebhook(ctx: Context) {
    const { url, secret, ...rest } = objectBody(ctx);
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown field; allowed are "url" and "secret"');
    if (typeof url !== 'string')
      throw new InvalidParameterError('url', 'must be an absolute http(s) URL');
    if (typeof secret !== 'string') throw new InvalidParameterError('secret', 'must be a string');
    const config = getService(strapi, 'config');
    let key = secret;
    if (secret === SECRET_MASK) {
      const stored = config.secretFor(url);
      if (!stored)
        throw new InvalidParameterError(
          'secret',
          'no secret is stored for this URL: enter it to send a test',
        );
      key = stored;
    }
    ctx.body = { data: await getService(strapi, 'webhooks').sendTest(url, key) };
  },
});
