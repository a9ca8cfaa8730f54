import { pluginConfigSchema, type PluginConfig } from './config';
import { DEFAULT_USAGE, FRAGMENT_TYPES, WEBHOOK_EVENTS } from '../../../shared/constants';
import {
  SECRET_MASK,
  settingsFieldError,
  settingsFieldName,
  settingsIssues,
} from '../../../shared/settings-schema';
import type {
  ContentTypeSettings,
  DiscoverySettings,
  EditableSettings,
  SettingsFieldError,
} from '../../../shared/contracts/admin';

/**
 * The site owner's Settings (README › In the admin) and the file config: the stored values
 * go on top of the file config, key by key, and the result is validated by
 * the same schema as the file config, so every consumer reads the effective
 * values from one place. Pure.
 */

/** What Settings shows: the editable part of a config, with its defaults spelled out. */
export function editableFromConfig(config: PluginConfig): EditableSettings {
  const { chunk, maxTokens } = config.defaults.embedding;
  const contentTypes: Record<string, ContentTypeSettings> = {};
  for (const [uid, type] of Object.entries(config.contentTypes)) {
    contentTypes[uid] = {
      enabled: type.enabled,
      pathPattern: type.pathPattern,
      granularity: [...(type.granularity ?? FRAGMENT_TYPES)],
      chunk: type.chunk ?? chunk,
      maxTokens: type.maxTokens ?? maxTokens,
      ...(type.license ? { license: type.license } : {}),
      ...(type.usage && Object.keys(type.usage).length > 0 ? { usage: { ...type.usage } } : {}),
    };
  }
  return {
    siteUrl: config.siteUrl,
    defaults: {
      license: config.defaults.license,
      usage: { ...DEFAULT_USAGE, ...config.defaults.usage },
      embedding: { chunk, maxTokens },
    },
    contentTypes,
    schedule: { enabled: config.schedule.enabled, cron: config.schedule.cron },
    webhooks: {
      subscribers: config.webhooks.subscribers.map((s) => ({ url: s.url, secret: s.secret })),
    },
    rateLimit: { ...config.rateLimit },
    accessLogRetentionDays: config.accessLog.retentionDays,
    discovery: {
      title: config.discovery.title ?? '',
      summary: config.discovery.summary ?? '',
      agents: config.discovery.agents ? [...config.discovery.agents] : null,
      serveAtRoot: config.discovery.serveAtRoot,
    },
  };
}

/**
 * The file config's `discovery` with the Settings' values on top: an empty title or summary and
 * `agents: null` unset the file's value (the documents then use their defaults); what Settings do
 * not edit (details, optionalTypes, sitemapUrlsPerFile) keeps its file value.
 */
function applyDiscovery(
  config: PluginConfig['discovery'],
  settings: DiscoverySettings,
): Record<string, unknown> {
  const { title: _title, summary: _summary, agents: _agents, ...kept } = config;
  const title = settings.title.trim();
  const summary = settings.summary.trim();
  return {
    ...kept,
    serveAtRoot: settings.serveAtRoot,
    ...(title ? { title } : {}),
    ...(summary ? { summary } : {}),
    ...(settings.agents ? { agents: [...settings.agents] } : {}),
  };
}

/**
 * The file config with the stored Settings on top (not yet validated). A
 * content type the Settings do not mention keeps its file config; one they
 * mention keeps the file's field mapping (slugField, bodyFields, schema, …)
 * and takes the Settings' values, an unset licence or usage included.
 */
export function applyEditableSettings(
  config: PluginConfig,
  settings: EditableSettings,
): Record<string, unknown> {
  const contentTypes: Record<string, unknown> = { ...config.contentTypes };
  for (const [uid, type] of Object.entries(settings.contentTypes)) {
    const { license: _license, usage: _usage, ...mapping } = config.contentTypes[uid] ?? {};
    contentTypes[uid] = {
      ...mapping,
      enabled: type.enabled,
      pathPattern: type.pathPattern,
      granularity: [...type.granularity],
      chunk: type.chunk,
      maxTokens: type.maxTokens,
      ...(type.license ? { license: type.license } : {}),
      ...(type.usage && Object.keys(type.usage).length > 0 ? { usage: { ...type.usage } } : {}),
    };
  }
  return {
    ...config,
    siteUrl: settings.siteUrl,
    defaults: {
      ...config.defaults,
      license: settings.defaults.license,
      usage: { ...settings.defaults.usage },
      embedding: { ...config.defaults.embedding, ...settings.defaults.embedding },
    },
    contentTypes,
    schedule: { ...settings.schedule },
    webhooks: {
      ...config.webhooks,
      subscribers: settings.webhooks.subscribers.map((s) => ({
        url: s.url,
        secret: s.secret,
        events: config.webhooks.subscribers.find((f) => f.url === s.url)?.events ?? [
          ...WEBHOOK_EVENTS,
        ],
      })),
    },
    rateLimit: { ...settings.rateLimit },
    accessLog: { ...config.accessLog, retentionDays: settings.accessLogRetentionDays },
    discovery: applyDiscovery(config.discovery, settings.discovery),
  };
}

/** Sections of Settings added after a release: stored Settings saved before it lack them. */
const LATER_SECTIONS = ['discovery'] as const satisfies readonly (keyof EditableSettings)[];

/**
 * Stored Settings (or the file values they were saved over) from before a section existed, with
 * that section taken from today's file config — as if the site owner had left it untouched. Other
 * values, and anything that is not an object, come back as they are (validation judges them).
 */
export function withLaterSections(stored: unknown, file: EditableSettings): unknown {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return stored;
  const missing = LATER_SECTIONS.filter((key) => !(key in stored));
  if (missing.length === 0) return stored;
  return {
    ...stored,
    ...Object.fromEntries(missing.map((key) => [key, structuredClone(file[key])])),
  };
}

/** Config paths whose Settings field has another name. */
function settingsPath(path: readonly (string | number)[]): (string | number)[] {
  if (path[0] === 'accessLog' && path[1] === 'retentionDays')
    return ['accessLogRetentionDays', ...path.slice(2)];
  return [...path];
}

/** The effective config, validated like the file config; a problem is reported at its Settings field. */
export function effectiveConfig(
  config: PluginConfig,
  settings: EditableSettings,
): { ok: true; config: PluginConfig } | { ok: false; errors: SettingsFieldError[] } {
  const result = pluginConfigSchema.safeParse(applyEditableSettings(config, settings));
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, errors: settingsIssues(result.error.issues, settingsPath) };
}

/** Settings as the admin may see them: every set webhook secret replaced by SECRET_MASK. */
export function maskSecrets(settings: EditableSettings): EditableSettings {
  return {
    ...settings,
    webhooks: {
      subscribers: settings.webhooks.subscribers.map((s) => ({
        url: s.url,
        secret: s.secret ? SECRET_MASK : '',
      })),
    },
  };
}

/**
 * Settings from the admin with each masked secret replaced by the stored
 * secret of the same URL; a masked secret of a URL that has none is an error.
 */
export function unmaskSecrets(
  settings: EditableSettings,
  stored: readonly { url: string; secret: string }[],
): { ok: true; settings: EditableSettings } | { ok: false; errors: SettingsFieldError[] } {
  const errors: SettingsFieldError[] = [];
  const subscribers = settings.webhooks.subscribers.map((s, index) => {
    if (s.secret !== SECRET_MASK) return { ...s };
    const secret = stored.find((known) => known.url === s.url)?.secret;
    if (!secret) {
      errors.push(
        settingsFieldError(
          ['webhooks', 'subscribers', String(index), 'secret'],
          'no secret is stored for this URL yet: enter one',
        ),
      );
      return { ...s };
    }
    return { url: s.url, secret };
  });
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, settings: { ...settings, webhooks: { subscribers } } };
}

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Where two values differ, as Settings field names; arrays are compared whole. */
function diffPaths(before: Json, after: Json, path: string[], out: string[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      diffPaths(before[key], after[key], [...path, key], out);
    }
  } else if (!sameJson(before, after)) {
    out.push(path.length > 0 ? settingsFieldName(path) : '(all)');
  }
}

/**
 * The Settings fields whose values differ between two editable settings, named as the Settings
 * form names them (`contentTypes["api::article.article"].pathPattern`), sorted.
 */
export function settingsChanges(before: EditableSettings, after: EditableSettings): string[] {
  const out: string[] = [];
  diffPaths(before, after, [], out);
  return out.sort();
}

function rebase(stored: Json, base: Json, file: Json, path: string[], fromFile: string[]): Json {
  if (!isRecord(stored) || !isRecord(base) || !isRecord(file)) {
    if (sameJson(base, file)) return stored;
    fromFile.push(settingsFieldName(path));
    return file;
  }
  const out: Record<string, Json> = { ...stored };
  for (const key of new Set([...Object.keys(base), ...Object.keys(file)])) {
    const next = [...path, key];
    if (isRecord(base[key]) && isRecord(file[key]) && isRecord(stored[key])) {
      out[key] = rebase(stored[key], base[key], file[key], next, fromFile);
    } else if (!sameJson(base[key], file[key])) {
      fromFile.push(settingsFieldName(next));
      if (key in file) out[key] = file[key];
      else delete out[key];
    }
  }
  return out;
}

/**
 * Stored Settings on top of a file config that changed since they were saved (see
 * README: "Settings and the file config"): every value the file changed — compared with the file
 * config the Settings were saved over — comes from the file; every other value stays as the
 * site owner saved it. `fromFile` names the fields the file decided, for the log.
 */
export function rebaseSettings(
  stored: EditableSettings,
  savedOver: EditableSettings,
  file: EditableSettings,
): { settings: EditableSettings; fromFile: string[] } {
  const fromFile: string[] = [];
  const settings = rebase(stored, savedOver, file, [], fromFile) as EditableSettings;
  return { settings, fromFile: fromFile.sort() };
}
