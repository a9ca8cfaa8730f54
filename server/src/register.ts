import type { Core } from '@strapi/strapi';
import { METADATA_ATTRIBUTE } from '../../shared/constants';
import { ConfigError } from './core/errors';
import { createMethodGuard } from './middlewares/method-guard';
import { createTrackChangesMiddleware } from './middlewares/track-changes';
import { getService } from './utils/get-service';
import { plainModels } from './repositories/models';

/**
 * Registers change tracking (a document-service middleware) and adds the
 * editors' JSON attribute `sitemapAi` (README › In the admin): private (never in the public
 * REST output), hidden from the generated form, localized with the entry, so
 * it follows draft → publish and i18n.
 *
 * The attribute goes on every collection and single type of the app (`api::`),
 * not only on the types enabled now: a site owner can enable a type later in
 * Settings (stored in the database, read after register), and its entries must
 * then be able to hold editors' values without a restart — the schema (and its
 * column) can only change here. A type enabled in the file config outside
 * `api::` gets it too. An app attribute of that name that is not JSON is left
 * alone on a type that is not enabled, and stops start-up on one that is.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const config = getService(strapi, 'config');
  const schemas = config.schemas;
  const enabledInFile = new Set(
    Object.entries(config.fileConfig().contentTypes)
      .filter(([, typeConfig]) => typeConfig.enabled)
      .map(([uid]) => uid),
  );
  for (const uid of enabledInFile) {
    if (!schemas.get(uid))
      throw new ConfigError(`contentTypes["${uid}"]`, 'no such content type in this Strapi app');
  }
  const targets = Object.keys(schemas.all()).filter(
    (uid) => enabledInFile.has(uid) || schemas.isAppType(uid),
  );
  for (const uid of targets) {
    const existing = schemas.attribute(uid, METADATA_ATTRIBUTE);
    if (existing && existing.type !== 'json') {
      if (enabledInFile.has(uid)) {
        throw new ConfigError(
          `contentTypes["${uid}"]`,
          `attribute "${METADATA_ATTRIBUTE}" is reserved by sitemap-ai`,
        );
      }
      strapi.log.warn(
        `[sitemap-ai] ${uid} has its own "${METADATA_ATTRIBUTE}" attribute: it cannot be enabled for the manifest`,
      );
      continue;
    }
    schemas.defineAttribute(uid, METADATA_ATTRIBUTE, {
      type: 'json',
      private: true,
      configurable: false,
      visible: false,
      writable: true,
      pluginOptions: { i18n: { localized: schemas.isLocalized(uid) } },
    });
  }
  // The tables with a row per item or change: plain models, not content types (repositories/models.ts).
  const models = strapi.get('models') as { add(model: unknown): unknown };
  for (const model of plainModels(String(strapi.config.get('database.connection.client'))))
    models.add(model);
  strapi.documents.use(createTrackChangesMiddleware({ strapi }) as never);
  // Ahead of the app's middlewares (body parser included): wrong methods on our read-only paths.
  strapi.server.use(createMethodGuard(strapi));
};
