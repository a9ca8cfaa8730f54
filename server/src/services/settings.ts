import { randomBytes } from 'node:crypto';
import { validate as isCronExpression } from 'node-cron';
import type { Core } from '@strapi/strapi';
import { parsePluginConfig, type DiscoveryConfig, type PluginConfig } from '../core/config';
import { FRAGMENT_TYPES, PLUGIN_ID } from '../../../shared/constants';
import { ConfigError, SitemapAiError } from '../core/errors';
import { createLockRepository } from '../repositories/lock-repository';
import { resolveFieldMap, type Attributes, type FieldMap } from '../core/field-map';
import type { SiteContext, TypePolicy } from '../core/items';
import {
  editableFromConfig,
  effectiveConfig,
  maskSecrets,
  rebaseSettings,
  settingsChanges,
  unmaskSecrets,
  withLaterSections,
} from '../core/settings';
import { AI_CRAWLERS } from '../core/interop';
import { sha256Hex, stableStringify } from '../core/canonical';
import {
  settingsFieldError,
  validateDiscoverySettings,
  validateSettings,
} from '../../../shared/settings-schema';
import type {
  EditableSettings,
  EnabledContentType,
  SettingsData,
  SettingsFieldError,
} from '../../../shared/contracts/admin';
import { createPluginStoreRepository } from '../repositories/plugin-store-repository';
import { getService } from '../utils/get-service';

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

/** The file config as the last start saw it (key `file-config`): to notice a change at boot. */
interface SeenFileConfig {
  print: string;
  /** Its editable values with secrets masked, to name what changed. */
  editable: EditableSettings;
}

const STORE_KEY = 'settings';
const SAVE_LEASE = 'settings-save';
const SAVE_LEASE_MS = 10_000;
const SAVE_WAIT_MS = 5_000;
const FILE_CONFIG_KEY = 'file-config';
const TOKEN_SECRET_KEY = 'token-secret';

type ContentTypeSchemas = Record<
  string,
  {
    kind?: string;
    attributes: Attributes;
    info: { singularName: string; displayName?: string };
    pluginOptions?: { i18n?: { localized?: boolean } };
  }
>;

/** Another save held the Settings for too long: a 409, nothing stored. */
export class SettingsBusyError extends SitemapAiError {
  constructor(message: string) {
    super(message, 409);
  }
}

/** Settings that do not validate: the 400 of PUT /sitemap-ai/settings lists them all. */
export class SettingsValidationError extends Error {
  constructor(readonly errors: SettingsFieldError[]) {
    super(`Invalid settings: ${errors.map((e) => e.message).join('; ')}`);
    this.name = 'SettingsValidationError';
  }
}

/**
 * The site owner's settings: the file config (validated at start-up, docs/protocol.md §7)
 * with the values saved in Settings (README › In the admin, in the plugin store) on top,
 * and what follows from them. `config()` is what every consumer reads.
 */
export const createSettingsService = ({ strapi }: { strapi: Core.Strapi }) => {
  let cached: PluginConfig | undefined;
  let fileCached: PluginConfig | undefined;
  let stored: StoredSettings | null = null;
  let installationSecret: string | undefined;

  const store = createPluginStoreRepository({ strapi });
  const schemas = () => strapi.contentTypes as unknown as ContentTypeSchemas;

  /** Field maps of the enabled types of `config`; a bad one throws ConfigError naming it. */
  function resolveTypes(config: PluginConfig): EnabledType[] {
    const components = strapi.components as unknown as Record<string, { attributes: Attributes }>;
    const contentTypes = schemas();
    const result: EnabledType[] = [];
    for (const [uid, typeConfig] of Object.entries(config.contentTypes)) {
      if (!typeConfig.enabled) continue;
      const schema = contentTypes[uid];
      if (!schema)
        throw new ConfigError(`contentTypes["${uid}"]`, 'no such content type in this Strapi app');
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
  }

  /** Content types of the app a site owner may index: its own collection and single types. */
  function availableTypes(): SettingsData['availableTypes'] {
    return Object.entries(schemas())
      .filter(
        ([uid, schema]) =>
          uid.startsWith('api::') &&
          (schema.kind === 'collectionType' || schema.kind === 'singleType'),
      )
      .map(([uid, schema]) => ({
        uid,
        displayName: schema.info.displayName ?? schema.info.singularName,
        localized: schema.pluginOptions?.i18n?.localized === true,
      }))
      .sort((a, b) => a.displayName.localeCompare(b.displayName) || a.uid.localeCompare(b.uid));
  }

  /**
   * The effective config for `settings`, with everything only the server can
   * check: the cron expression parses, each content type exists, and each
   * enabled type's fields can be indexed.
   */
  function check(
    settings: EditableSettings,
  ): { ok: true; config: PluginConfig } | { ok: false; errors: SettingsFieldError[] } {
    const errors: SettingsFieldError[] = [];
    if (!isCronExpression(settings.schedule.cron)) {
      errors.push(
        settingsFieldError(['schedule', 'cron'], 'is not a cron expression node-cron accepts'),
      );
    }
    const known = new Set([
      ...availableTypes().map((t) => t.uid),
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
  }

  const service = {
    /** The effective config: the file config with the stored Settings on top. */
    config(): PluginConfig {
      if (!cached) {
        cached = service.fileConfig();
        if (stored) {
          const effective = effectiveConfig(cached, service.storedOnFile(stored));
          if (effective.ok) cached = effective.config;
          else
            strapi.log.error(
              `[sitemap-ai] stored settings ignored, the file config applies: ${effective.errors.map((e) => e.message).join('; ')}`,
            );
        }
      }
      return cached;
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
     * A hash of what of the effective config shapes the items (site, defaults, content types):
     * a change re-compares every entry, and a tracked state is published only under the policy
     * it was computed with.
     * The discovery documents' settings are left out on purpose: they change no item, so saving
     * them never re-compares the site.
     */
    policyFingerprint(): string {
      const { siteUrl, siteName, apiUrl, mediaUrl, defaultLocale, defaults, contentTypes } =
        service.config();
      return sha256Hex(
        stableStringify({
          siteUrl,
          siteName,
          apiUrl,
          mediaUrl,
          defaultLocale,
          defaults,
          contentTypes,
          v: 1,
        }),
      );
    },

    /** A hash of the whole file config: it changes with any value of config/plugins. */
    fileFingerprint(): string {
      return sha256Hex(stableStringify(service.fileConfig()));
    },

    /**
     * At boot: compare the file config with the one the last start saw; a change is logged with
     * the Settings fields it touched and reaches the manifest at the next rebuild, which
     * re-compares every entry (the builder's settings fingerprint). Returns the changed fields
     * (`[]` on the first start or without a change).
     */
    async noticeFileConfig(): Promise<string[]> {
      const print = service.fileFingerprint();
      const editable = maskSecrets(editableFromConfig(service.fileConfig()));
      const seen = await store.get<Partial<SeenFileConfig>>(FILE_CONFIG_KEY);
      if (seen?.print === print) return [];
      await store.set(FILE_CONFIG_KEY, { print, editable });
      if (!seen?.print) return [];
      const parsed = seen.editable
        ? validateSettings(withLaterSections(seen.editable, editable))
        : null;
      const fields = parsed?.ok ? settingsChanges(parsed.value, editable) : [];
      const named = fields.length > 0 ? fields.join(', ') : 'fields outside Settings';
      const masked = stored?.fileBase
        ? rebaseSettings(stored.settings, stored.fileBase, editableFromConfig(service.fileConfig()))
            .fromFile
        : [];
      strapi.log.warn(
        `[sitemap-ai] config/plugins changed since the last start (${named}); ` +
          (masked.length > 0
            ? `these now come from the file over saved Settings: ${masked.join(', ')}; `
            : '') +
          'the next rebuild re-compares every entry and logs the change on each item it affects',
      );
      return fields;
    },

    /** The file config alone (`config/plugins` → `sitemap-ai.config`). */
    fileConfig(): PluginConfig {
      if (!fileCached) fileCached = parsePluginConfig(strapi.config.get(`plugin::${PLUGIN_ID}`));
      return fileCached;
    },

    /**
     * Read the stored Settings (bootstrap, and before each rebuild so that
     * every instance follows a change made on another). Stored values that no
     * longer fit the app (a content type removed, a field renamed) are
     * ignored with an error in the log: the file config applies.
     * Returns true when the stored Settings changed.
     */
    async load(): Promise<boolean> {
      const raw = await store.get<Partial<StoredSettings>>(STORE_KEY);
      const previous = stored;
      stored = null;
      if (raw && typeof raw === 'object' && raw.settings) {
        // Settings saved before a section existed take that section from the file config.
        const file = editableFromConfig(service.fileConfig());
        const parsed = validateSettings(withLaterSections(raw.settings, file));
        const checked = parsed.ok ? check(parsed.value) : parsed;
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
      const changed = (previous?.updatedAt ?? null) !== (stored?.updatedAt ?? null);
      if (changed) cached = undefined;
      return changed;
    },

    /** Load the stored Settings and, when another instance changed them, apply them here too. */
    async refresh(): Promise<void> {
      const before = service.config();
      if (await service.load()) await service.applied(before);
    },

    /**
     * Content types whose changes are tracked: the enabled ones, and those
     * that were enabled before (their items must be removed, with a changelog).
     */
    trackedUids(): ReadonlySet<string> {
      return new Set(Object.keys(service.config().contentTypes));
    },

    /** Drop the parsed config and the loaded Settings (destroy; a reboot loads them again). */
    reset(): void {
      cached = undefined;
      fileCached = undefined;
      stored = null;
      installationSecret = undefined;
    },

    /** Enabled content types, checked against the schemas; a bad entry throws ConfigError naming it. */
    enabledTypes(): EnabledType[] {
      return resolveTypes(service.config());
    },

    availableTypes,

    /** Content types enabled now, as the editors' panel needs them. */
    enabledContentTypes(): EnabledContentType[] {
      const contentTypes = schemas();
      return service.enabledTypes().map(({ uid }) => ({
        uid,
        displayName:
          contentTypes[uid]?.info.displayName ?? contentTypes[uid]?.info.singularName ?? uid,
        localized: contentTypes[uid]?.pluginOptions?.i18n?.localized === true,
      }));
    },

    /** What GET /sitemap-ai/settings answers: the effective values, secrets masked. */
    data(): SettingsData {
      const config = service.config();
      return {
        settings: maskSecrets(editableFromConfig(config)),
        availableTypes: availableTypes(),
        licenses: config.licenses.map((l) => ({ uri: l.uri, label: l.label })),
        updatedAt: stored?.updatedAt ?? null,
        updatedBy: stored?.updatedBy ?? null,
        crawlers: AI_CRAWLERS.map(({ token, operator, role }) => ({ token, operator, role })),
      };
    },

    /**
     * The effective `discovery` config with a Discovery section that is not saved (the Settings
     * preview): validated like a PUT, every bad field reported (SettingsValidationError).
     */
    discoveryPreview(raw: unknown): DiscoveryConfig {
      const parsed = validateDiscoverySettings(raw);
      if (!parsed.ok) throw new SettingsValidationError(parsed.errors);
      const current = service.config();
      const effective = effectiveConfig(current, {
        ...editableFromConfig(current),
        discovery: parsed.value,
      });
      if (!effective.ok) throw new SettingsValidationError(effective.errors);
      return effective.config.discovery;
    },

    /** The webhook secret the effective config has for `url`, if any. */
    secretFor(url: string): string | undefined {
      return service.config().webhooks.subscribers.find((s) => s.url === url)?.secret;
    },

    /**
     * Validate and store the whole Settings (PUT): every bad field is
     * reported (SettingsValidationError) and nothing is stored. Then the
     * effective config is reloaded, the schedule restarted if it changed and
     * the rate limiter reset; the next rebuild re-compares every entry when
     * what shapes the items changed (the builder's settings fingerprint, which leaves out the
     * discovery documents: they change no item and follow a save at once).
     */
    async update(raw: unknown, userId: number | null): Promise<SettingsData> {
      const parsed = validateSettings(raw);
      if (!parsed.ok) throw new SettingsValidationError(parsed.errors);
      const unmasked = unmaskSecrets(parsed.value, service.config().webhooks.subscribers);
      if (!unmasked.ok) throw new SettingsValidationError(unmasked.errors);
      const checked = check(unmasked.settings);
      if (!checked.ok) throw new SettingsValidationError(checked.errors);

      const before = service.config();
      const next: StoredSettings = {
        settings: unmasked.settings,
        updatedAt: new Date().toISOString(),
        updatedBy: userId,
        fileBase: editableFromConfig(service.fileConfig()),
      };
      // One save at a time across instances (a short lease): two admins saving at once end with
      // one stored value — the later save — never two store rows or a half-applied mix.
      const token = `${randomBytes(8).toString('hex')}`;
      const leases = createLockRepository({ strapi });
      const deadline = Date.now() + SAVE_WAIT_MS;
      while (!(await leases.acquire(SAVE_LEASE, token, SAVE_LEASE_MS))) {
        if (Date.now() > deadline)
          throw new SettingsBusyError('another save of the Settings is in progress; try again');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      try {
        await store.set(STORE_KEY, next);
      } finally {
        await leases.release(SAVE_LEASE, token);
      }
      // What is stored now is what applies here (a later save on another instance included).
      await service.load();
      await service.applied(before);
      return service.data();
    },

    /** React to a change of the effective config: restart the schedule if it changed, reset the rate limiter. */
    async applied(before: PluginConfig): Promise<void> {
      const after = service.config();
      if (JSON.stringify(before.schedule) !== JSON.stringify(after.schedule))
        await getService(strapi, 'scheduler').restart();
      getService(strapi, 'rate-limit').reset();
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

    /**
     * Secret of the page tokens: the configured `tokenSecret`, else one generated for this
     * installation and kept in the database (never derived from app keys, which are often
     * committed). `loadTokenSecret()` at bootstrap reads or creates it.
     */
    tokenSecret(): string {
      const config = service.config();
      if (config.tokenSecret) return config.tokenSecret;
      if (!installationSecret) throw new Error('sitemap-ai: the token secret is not loaded yet');
      return installationSecret;
    },

    /**
     * Read this installation's token secret, creating it on the first start. Every instance on
     * the database reads back what is stored, so they all sign with the same secret.
     */
    async loadTokenSecret(): Promise<void> {
      const stored = await store.get(TOKEN_SECRET_KEY);
      if (typeof stored === 'string' && stored.length >= 32) {
        installationSecret = stored;
        return;
      }
      await store.set(TOKEN_SECRET_KEY, randomBytes(32).toString('hex'));
      installationSecret = String(await store.get(TOKEN_SECRET_KEY));
    },
  };
  return service;
};

export type SettingsService = ReturnType<typeof createSettingsService>;
