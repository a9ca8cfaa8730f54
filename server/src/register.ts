import type { Core } from '@strapi/strapi';
import { METADATA_ATTRIBUTE } from './core/constants';
import { ConfigError } from './core/errors';
import { createTrackChangesMiddleware } from './middlewares/track-changes';
import { getService } from './utils/get-service';

/**
 * Registers change tracking (a document-service middleware) and adds the editors' JSON attribute to every enabled content type (SPEC §7):
 * private (never in the public REST output), hidden from the generated
 * form, localized with the entry, so it follows draft → publish and i18n.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const config = getService(strapi, 'settings').config();
  for (const [uid, typeConfig] of Object.entries(config.contentTypes)) {
    if (!typeConfig.enabled) continue;
    const contentType = strapi.contentTypes[uid as keyof typeof strapi.contentTypes] as
      | { attributes: Record<string, unknown>; pluginOptions?: { i18n?: { localized?: boolean } } }
      | undefined;
    if (!contentType) throw new ConfigError(`contentTypes["${uid}"]`, 'no such content type in this Strapi app');
    const existing = contentType.attributes[METADATA_ATTRIBUTE] as { type?: string } | undefined;
    if (existing && existing.type !== 'json') {
      throw new ConfigError(`contentTypes["${uid}"]`, `attribute "${METADATA_ATTRIBUTE}" is reserved by sitemap-ai`);
    }
    contentType.attributes[METADATA_ATTRIBUTE] = {
      type: 'json',
      private: true,
      configurable: false,
      visible: false,
      writable: true,
      pluginOptions: { i18n: { localized: contentType.pluginOptions?.i18n?.localized === true } },
    };
  }
  strapi.documents.use(createTrackChangesMiddleware({ strapi }) as never);
};
