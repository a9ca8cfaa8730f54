import { createHmac } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { parsePluginConfig, type PluginConfig } from '../core/config';
import { FRAGMENT_TYPES, PLUGIN_ID } from '../core/constants';
import { ConfigError } from '../core/errors';
import { resolveFieldMap, type Attributes, type FieldMap } from '../core/field-map';
import type { SiteContext, TypePolicy } from '../core/items';

/** An enabled content type, with what the manifest reads from it. */
export interface EnabledType {
  uid: string;
  map: FieldMap;
  policy: TypePolicy;
}

/**
 * The site owner's settings: the file config (validated at start-up, SPEC §8),
 * and what follows from it.
 */
export const createSettingsService = ({ strapi }: { strapi: Core.Strapi }) => {
  let cached: PluginConfig | undefined;

  const service = {
    config(): PluginConfig {
      if (!cached) cached = parsePluginConfig(strapi.config.get(`plugin::${PLUGIN_ID}`));
      return cached;
    },

    /**
     * Content types whose changes are tracked: the enabled ones, and those
     * that were enabled before (their items must be removed, with a changelog).
     */
    trackedUids(): ReadonlySet<string> {
      return new Set(Object.keys(service.config().contentTypes));
    },

    /** Drop the parsed config (tests and a settings change reload it). */
    reset(): void {
      cached = undefined;
    },

    /** Enabled content types, checked against the schemas; a bad entry throws ConfigError naming it. */
    enabledTypes(): EnabledType[] {
      const config = service.config();
      const components = strapi.components as unknown as Record<string, { attributes: Attributes }>;
      const contentTypes = strapi.contentTypes as unknown as Record<string, { attributes: Attributes; info: { singularName: string } }>;
      const result: EnabledType[] = [];
      for (const [uid, typeConfig] of Object.entries(config.contentTypes)) {
        if (!typeConfig.enabled) continue;
        const schema = contentTypes[uid];
        if (!schema) throw new ConfigError(`contentTypes["${uid}"]`, 'no such content type in this Strapi app');
        const map = resolveFieldMap(uid, schema.attributes, components, contentTypes, typeConfig);
        result.push({
          uid,
          map,
          policy: {
            uid,
            typeKey: typeConfig.idPrefix ?? schema.info.singularName,
            pathPattern: typeConfig.pathPattern,
            chunk: typeConfig.chunk ?? config.defaults.embedding.chunk,
            maxTokens: typeConfig.maxTokens ?? config.defaults.embedding.maxTokens,
            stopSequences: typeConfig.stopSequences,
            license: typeConfig.license,
            usage: typeConfig.usage,
            granularity: new Set(typeConfig.granularity ?? FRAGMENT_TYPES),
            schema: typeConfig.schema,
            faqHeadings: typeConfig.faqHeadings?.map((h) => h.toLowerCase()),
          },
        });
      }
      return result;
    },

    site(defaultLocale: string): SiteContext {
      const config = service.config();
      const apiUrl = config.apiUrl ?? config.siteUrl;
      return {
        siteUrl: config.siteUrl,
        siteName: config.siteName ?? new URL(config.siteUrl).hostname,
        apiUrl,
        mediaBaseUrl: config.mediaUrl ?? apiUrl,
        defaultLocale: config.defaultLocale ?? defaultLocale,
        defaults: {
          license: config.defaults.license,
          usage: config.defaults.usage,
          chunk: config.defaults.embedding.chunk,
          maxTokens: config.defaults.embedding.maxTokens,
          stopSequences: config.defaults.embedding.stopSequences,
        },
      };
    },

    /** Secret of the page tokens: the configured one, else derived from the app keys. */
    tokenSecret(): string {
      const config = service.config();
      if (config.tokenSecret) return config.tokenSecret;
      const keys = strapi.config.get('server.app.keys') as string[] | string | undefined;
      const material = Array.isArray(keys) ? keys.join(',') : (keys ?? '');
      if (material === '') throw new ConfigError('tokenSecret', 'not set, and server.app.keys is empty to derive one from');
      return createHmac('sha256', material).update('sitemap-ai page tokens v1').digest('hex');
    },
  };
  return service;
};

export type SettingsService = ReturnType<typeof createSettingsService>;
