import { repositories } from '../repositories';
import { randomBytes } from 'node:crypto';
import { validate as isCronExpression } from 'node-cron';
import type { Core } from '@strapi/strapi';
import { parsePluginConfig, type PluginConfig } from '../core/config';
import { FRAGMENT_TYPES, PLUGIN_ID } from '../../../shared/constants';
import { ConfigError } from '../core/errors';
import { resolveFieldMap, type FieldMap } from '../core/field-map';
import type { SiteContext, TypePolicy } from '../core/items';
import {
  editableFromConfig,
  effectiveConfig,
  rebaseSettings,
  withLaterSections,
} from '../core/settings';
import { sha256Hex, stableStringify } from '../core/canonical';
import { settingsFieldError, validateSettings } from '../../../shared/settings-schema';
import type {
  EditableSettings,
  EnabledContentType,
  SettingsData,
  SettingsFieldError,
} from '../../../shared/contracts/admin';
import { createContentSchemas } from '../repositories/content-schemas';

/** An enabled content type, with what the manifest reads from it. */
export interface EnabledType {
  uid: string;
  map: FieldMap;
  policy: TypePolicy;
}

/** The Settings as stored in the plugin store (key `settings`). */
export interface StoredSettings {
  settings: EditableSettings;
  updatedAt: string;
  updatedBy: number | null;
  /** The file config's editable values when these Settings were saved (absent before 0.2). */
  fileBase?: EditableSettings;
}

/** The effective config before and after the stored Settings changed (the "config changed" event). */
export interface ConfigChange {
  before: PluginConfig;
  after: PluginConfig;
}

/** Keys of the plugin store the config reads. */
export const SETTINGS_STORE_KEY = 'settings';
const TOKEN_SECRET_KEY = 'token-secret';
/** A generated token secret: 32 random bytes, hex; a stored one shorter than 32 characters is replaced. */
const TOKEN_SECRET_BYTES = 32;
const TOKEN_SECRET_MIN_LENGTH = 32;

/** What the config derives from the effective config, computed once per change of it. */
interface Derived {
  config: PluginConfig;
  types?: EnabledType[];
  tracked?: ReadonlySet<string>;
  policyPrint?: string;
}

/**
 * The effective config, read-only (README › Configuration): the file config (validated at
 * start-up, docs/protocol.md §7) with the Settings saved in the admin on top, and what follows
 * from them — the enabled types with their field maps, the site context, the fingerprints. All
 * of it is computed once and kept until the stored Settings change: `load()` reads them (at
 * boot, and whenever this instance may have missed a save on another one) and drops what was
 * derived from the old values. The settings service writes them; this one never does.
 */
export const createConfigService = ({ strapi }: { strapi: Core.Strapi }) => {
  let fileCached: PluginConfig | undefined;
  let filePrint: string | undefined;
  let derived: Derived | undefined;
  let stored: StoredSettings | null = null;
  let installationSecret: string | undefined;

  const store = repositories(strapi).store;
  const schemas = createContentSchemas({ strapi });

  /** Field maps of the enabled types of `config`; a bad one throws ConfigError naming it. */
  function resolveTypes(config: PluginConfig): EnabledType[] {
    const result: EnabledType[] = [];
    for (const [uid, typeConfig] of Object.entries(config.contentTypes)) {
      if (!typeConfig.enabled) continue;
      const schema = schemas.get(uid);
      if (!schema)
        throw new ConfigError(`contentTypes["${uid}"]`, 'no such content type in this Strapi app');
      const map = resolveFieldMap(
        uid,
        schema.attributes,
        schemas.components(),
        schemas.all(),
        typeConfig,
      );
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
  }

  /** The effective config and what is derived from it, computed on first use after a change. */
  function current(): Derived {
    if (!derived) {
      let config = service.fileConfig();
      if (stored) {
        const effective = effectiveConfig(config, service.storedOnFile(stored));
        if (effective.ok) config = effective.config;
        else
          strapi.log.error(
            `[sitemap-ai] stored settings ignored, the file config applies: ${effective.errors.map((e) => e.message).join('; ')}`,
          );
      }
      derived = { config };
    }
    return derived;
  }

  const service = {
    /** The app's content-type schemas (the one adapter over `strapi.contentTypes`). */
    schemas,

    /** The effective config: the file config with the stored Settings on top. */
    config(): PluginConfig {
      return current().config;
    },

    /** The file config alone (`config/plugins` → `sitemap-ai.config`). */
    fileConfig(): PluginConfig {
      if (!fileCached) fileCached = parsePluginConfig(strapi.config.get(`plugin::${PLUGIN_ID}`));
      return fileCached;
    },

    /** The Settings as last loaded from the store (null: none saved, or not valid here). */
    stored(): StoredSettings | null {
      return stored;
    },

    /**
     * The stored Settings re-based on today's file config: a value the file changed since the
     * Settings were saved comes from the file (so editing config/plugins is never masked by an
     * old save); everything else stays as the site owner saved it.
     */
    storedOnFile(saved: StoredSettings): EditableSettings {
      if (!saved.fileBase) return saved.settings;
      const file = editableFromConfig(service.fileConfig());
      return rebaseSettings(saved.settings, saved.fileBase, file).settings;
    },

    /**
     * The effective config for `settings`, with everything only the server can check: the cron
     * expression parses, each content type exists, and each enabled type's fields can be
     * indexed. Every problem is returned, named by its Settings field.
     */
    check(
      settings: EditableSettings,
    ): { ok: true; config: PluginConfig } | { ok: false; errors: SettingsFieldError[] } {
      const errors: SettingsFieldError[] = [];
      if (!isCronExpression(settings.schedule.cron)) {
        errors.push(
          settingsFieldError(['schedule', 'cron'], 'is not a cron expression node-cron accepts'),
        );
      }
      const known = new Set([
        ...service.availableTypes().map((t) => t.uid),
        ...Object.keys(service.fileConfig().contentTypes),
      ]);
      for (const uid of Object.keys(settings.contentTypes)) {
        if (!known.has(uid))
          errors.push(
            settingsFieldError(
              ['contentTypes', uid],
              'is not a content type this site can index (one of the app’s own collection or single types)',
            ),
          );
      }
      if (errors.length > 0) return { ok: false, errors };
      const effective = effectiveConfig(service.fileConfig(), settings);
      if (!effective.ok) return effective;
      for (const [uid, type] of Object.entries(effective.config.contentTypes)) {
        if (!type.enabled) continue;
        try {
          resolveTypes({ ...effective.config, contentTypes: { [uid]: type } });
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          // `contentTypes["api::x.x"].titleField`: a field of the file config or of the schema, reported at the type.
          const field = /^contentTypes\["[^"]+"\]\.([A-Za-z]+)/.exec(error.key)?.[1];
          const reason = error.message.replace(/^sitemap-ai config "[^"]*": /, '');
          if (field === 'pathPattern')
            errors.push(settingsFieldError(['contentTypes', uid, 'pathPattern'], reason));
          else
            errors.push(
              settingsFieldError(['contentTypes', uid], field ? `${field}: ${reason}` : reason),
            );
        }
      }
      return errors.length > 0 ? { ok: false, errors } : effective;
    },

    /**
     * Read the stored Settings (bootstrap, after a save, and whenever another instance may have
     * saved: before each rebuild, at each heartbeat). Stored values that no longer fit the app
     * (a content type removed, a field renamed) are ignored with an error in the log: the file
     * config applies. When they changed, everything derived from the old values is dropped and
     * the change is returned, for the settings service to announce.
     */
    async load(): Promise<ConfigChange | null> {
      const raw = await store.get<Partial<StoredSettings>>(SETTINGS_STORE_KEY);
      const previous = stored;
      const before = service.config();
      stored = null;
      if (raw && typeof raw === 'object' && raw.settings) {
        // Settings saved before a section existed take that section from the file config.
        const file = editableFromConfig(service.fileConfig());
        const parsed = validateSettings(withLaterSections(raw.settings, file));
        const checked = parsed.ok ? service.check(parsed.value) : parsed;
        if (parsed.ok && checked.ok) {
          const base = raw.fileBase
            ? validateSettings(withLaterSections(raw.fileBase, file))
            : null;
          stored = {
            settings: parsed.value,
            updatedAt: String(raw.updatedAt ?? ''),
            updatedBy: raw.updatedBy ?? null,
            ...(base?.ok ? { fileBase: base.value } : {}),
          };
        } else if (!checked.ok) {
          strapi.log.error(
            `[sitemap-ai] stored settings ignored, the file config applies: ${checked.errors.map((e) => e.message).join('; ')}`,
          );
        }
      }
      // The whole record decides, not its stamp: two instances saving in the same millisecond
      // store different values under one `updatedAt`, and the one that loses the save must follow.
      if (stableStringify(previous) === stableStringify(stored)) return null;
      derived = undefined;
      return { before, after: service.config() };
    },

    /** Drop the parsed config and the loaded Settings (destroy; a reboot loads them again). */
    reset(): void {
      derived = undefined;
      fileCached = undefined;
      filePrint = undefined;
      stored = null;
      installationSecret = undefined;
    },

    /** Enabled content types, checked against the schemas; a bad entry throws ConfigError naming it. */
    enabledTypes(): readonly EnabledType[] {
      const now = current();
      if (!now.types) now.types = resolveTypes(now.config);
      return now.types;
    },

    /** The enabled type `uid`, if it is one. */
    enabledType(uid: string): EnabledType | undefined {
      return service.enabledTypes().find((t) => t.uid === uid);
    },

    /**
     * Content types whose changes are tracked: the enabled ones, and those
     * that were enabled before (their items must be removed, with a changelog).
     */
    trackedUids(): ReadonlySet<string> {
      const now = current();
      if (!now.tracked) now.tracked = new Set(Object.keys(now.config.contentTypes));
      return now.tracked;
    },

    /** Content types of the app a site owner may index: its own collection and single types. */
    availableTypes(): SettingsData['availableTypes'] {
      return Object.keys(schemas.all())
        .filter((uid) => schemas.isAppType(uid))
        .map((uid) => ({
          uid,
          displayName: schemas.displayName(uid),
          localized: schemas.isLocalized(uid),
        }))
        .sort((a, b) => a.displayName.localeCompare(b.displayName) || a.uid.localeCompare(b.uid));
    },

    /** Content types enabled now, as the editors' panel needs them. */
    enabledContentTypes(): EnabledContentType[] {
      return service.enabledTypes().map(({ uid }) => ({
        uid,
        displayName: schemas.displayName(uid),
        localized: schemas.isLocalized(uid),
      }));
    },

    /**
     * A hash of what of the effective config shapes the items (site, defaults, content types):
     * a change re-compares every entry, and a tracked state is published only under the policy
     * it was computed with.
     * The discovery documents' settings are left out on purpose: they change no item, so saving
     * them never re-compares the site.
     */
    policyFingerprint(): string {
      const now = current();
      if (!now.policyPrint) {
        const { siteUrl, siteName, apiUrl, mediaUrl, defaultLocale, defaults, contentTypes } =
          now.config;
        now.policyPrint = sha256Hex(
          stableStringify({
            siteUrl,
            siteName,
            apiUrl,
            mediaUrl,
            defaultLocale,
            defaults,
            contentTypes,
            // Items' content_url follows the app's REST prefix; the default leaves earlier prints as they were.
            ...(service.apiPath() === `/api/${PLUGIN_ID}` ? {} : { apiPath: service.apiPath() }),
            v: 1,
          }),
        );
      }
      return now.policyPrint;
    },

    /** A hash of the whole file config: it changes with any value of config/plugins. */
    fileFingerprint(): string {
      if (!filePrint) filePrint = sha256Hex(stableStringify(service.fileConfig()));
      return filePrint;
    },

    /**
     * The path of the plugin's public routes on the API origin: Strapi's `api.rest.prefix`
     * (`/api` by default) and the plugin id — `/api/sitemap-ai`.
     */
    apiPath(): string {
      const prefix = String(strapi.config.get('api.rest.prefix', '/api')).replace(/\/+$/, '');
      return `${prefix}/${PLUGIN_ID}`;
    },

    /** The absolute URL of the plugin's public routes (`apiUrl`, else `siteUrl`, and `apiPath()`). */
    publicApiUrl(): string {
      const config = current().config;
      return `${(config.apiUrl ?? config.siteUrl).replace(/\/+$/, '')}${service.apiPath()}`;
    },

    /** The site as the core builds items for it (`defaultLocale`: the i18n default, if none is configured). */
    site(defaultLocale: string): SiteContext {
      const config = current().config;
      const apiUrl = config.apiUrl ?? config.siteUrl;
      return {
        siteUrl: config.siteUrl,
        siteName: config.siteName ?? new URL(config.siteUrl).hostname,
        apiUrl,
        apiPath: service.apiPath(),
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

    /** The webhook secret the effective config has for `url`, if any. */
    secretFor(url: string): string | undefined {
      return current().config.webhooks.subscribers.find((s) => s.url === url)?.secret;
    },

    /**
     * Secret of the page tokens: the configured `tokenSecret`, else one generated for this
     * installation and kept in the database (never derived from app keys, which are often
     * committed). `loadTokenSecret()` at bootstrap reads or creates it.
     */
    tokenSecret(): string {
      const config = current().config;
      if (config.tokenSecret) return config.tokenSecret;
      if (!installationSecret) throw new Error('sitemap-ai: the token secret is not loaded yet');
      return installationSecret;
    },

    /**
     * Read this installation's token secret, creating it on the first start. Every instance on
     * the database reads back what is stored, so they all sign with the same secret.
     */
    async loadTokenSecret(): Promise<void> {
      const saved = await store.get(TOKEN_SECRET_KEY);
      if (typeof saved === 'string' && saved.length >= TOKEN_SECRET_MIN_LENGTH) {
        installationSecret = saved;
        return;
      }
      await store.set(TOKEN_SECRET_KEY, randomBytes(TOKEN_SECRET_BYTES).toString('hex'));
      installationSecret = String(await store.get(TOKEN_SECRET_KEY));
    },
  };
  return service;
};

export type ConfigService = ReturnType<typeof createConfigService>;
