import { repositories } from '../repositories';
import { randomBytes } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { DiscoveryConfig } from '../core/config';
import { SitemapAiError } from '../core/errors';
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
import { validateDiscoverySettings, validateSettings } from '../../../shared/settings-schema';
import type {
  EditableSettings,
  SettingsData,
  SettingsFieldError,
} from '../../../shared/contracts/admin';
import { getService } from '../utils/get-service';
import { SETTINGS_STORE_KEY, type StoredSettings } from './config';

/** The file config as the last start saw it (key `file-config`): to notice a change at boot. */
interface SeenFileConfig {
  print: string;
  /** Its editable values with secrets masked, to name what changed. */
  editable: EditableSettings;
}

const SAVE_LEASE = 'settings-save';
const SAVE_LEASE_MS = 10_000;
const SAVE_WAIT_MS = 5_000;
const SAVE_RETRY_MS = 50;
const FILE_CONFIG_KEY = 'file-config';

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
 * The Settings of the admin (README › In the admin): validate, store (in the plugin store, one
 * save at a time across instances), mask their secrets for the page, and announce a change.
 * What applies is the `config` service's to compute; this service only writes and, after a save
 * here or one noticed from another instance, tells the others ("config changed", the events
 * service) — the schedule and the rate limiter follow from there.
 */
export const createSettingsService = ({ strapi }: { strapi: Core.Strapi }) => {
  const store = repositories(strapi).store;
  const config = () => getService(strapi, 'config');

  /** Load the stored Settings and announce a change of the effective config, if any. */
  async function reload(): Promise<void> {
    const change = await config().load();
    if (change) await getService(strapi, 'events').configChanged(change);
  }

  const service = {
    /**
     * At boot: compare the file config with the one the last start saw; a change is logged with
     * the Settings fields it touched and reaches the manifest at the next rebuild, which
     * re-compares every entry (the builder's settings fingerprint). Returns the changed fields
     * (`[]` on the first start or without a change).
     */
    async noticeFileConfig(): Promise<string[]> {
      const print = config().fileFingerprint();
      const file = editableFromConfig(config().fileConfig());
      const editable = maskSecrets(file);
      const seen = await store.get<Partial<SeenFileConfig>>(FILE_CONFIG_KEY);
      if (seen?.print === print) return [];
      await store.set(FILE_CONFIG_KEY, { print, editable });
      if (!seen?.print) return [];
      const parsed = seen.editable
        ? validateSettings(withLaterSections(seen.editable, editable))
        : null;
      const fields = parsed?.ok ? settingsChanges(parsed.value, editable) : [];
      const named = fields.length > 0 ? fields.join(', ') : 'fields outside Settings';
      const stored = config().stored();
      const masked = stored?.fileBase
        ? rebaseSettings(stored.settings, stored.fileBase, file).fromFile
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

    /**
     * Follow a save made on another instance: load the stored Settings and, when they changed,
     * announce it here too (the heartbeat, each rebuild and each read of the Settings page).
     */
    refresh: reload,

    /** What GET /sitemap-ai/settings answers: the effective values, secrets masked. */
    data(): SettingsData {
      const effective = config().config();
      const stored = config().stored();
      return {
        settings: maskSecrets(editableFromConfig(effective)),
        availableTypes: config().availableTypes(),
        licenses: effective.licenses.map((l) => ({ uri: l.uri, label: l.label })),
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
      const current = config().config();
      const effective = effectiveConfig(current, {
        ...editableFromConfig(current),
        discovery: parsed.value,
      });
      if (!effective.ok) throw new SettingsValidationError(effective.errors);
      return effective.config.discovery;
    },

    /**
     * Validate and store the whole Settings (PUT): every bad field is
     * reported (SettingsValidationError) and nothing is stored. Then the
     * effective config is reloaded and the change announced (the schedule restarts if it
     * changed, the rate limiter starts afresh); the next rebuild re-compares every entry when
     * what shapes the items changed (the builder's settings fingerprint, which leaves out the
     * discovery documents: they change no item and follow a save at once).
     */
    async update(raw: unknown, userId: number | null): Promise<SettingsData> {
      const parsed = validateSettings(raw);
      if (!parsed.ok) throw new SettingsValidationError(parsed.errors);
      const unmasked = unmaskSecrets(parsed.value, config().config().webhooks.subscribers);
      if (!unmasked.ok) throw new SettingsValidationError(unmasked.errors);
      const checked = config().check(unmasked.settings);
      if (!checked.ok) throw new SettingsValidationError(checked.errors);

      // One save at a time across instances (a short lease): two admins saving at once end with
      // one stored value — the later save — never two store rows or a half-applied mix.
      const token = `${randomBytes(8).toString('hex')}`;
      const leases = repositories(strapi).locks;
      const deadline = Date.now() + SAVE_WAIT_MS;
      while (!(await leases.acquire(SAVE_LEASE, token, SAVE_LEASE_MS))) {
        if (Date.now() > deadline)
          throw new SettingsBusyError('another save of the Settings is in progress; try again');
        await new Promise((resolve) => setTimeout(resolve, SAVE_RETRY_MS));
      }
      try {
        // Stamped once the lease is held, so a later save carries a later (or equal) stamp.
        const next: StoredSettings = {
          settings: unmasked.settings,
          updatedAt: new Date().toISOString(),
          updatedBy: userId,
          fileBase: editableFromConfig(config().fileConfig()),
        };
        await store.set(SETTINGS_STORE_KEY, next);
      } finally {
        await leases.release(SAVE_LEASE, token);
      }
      // What is stored now is what applies here (a later save on another instance included).
      await reload();
      return service.data();
    },
  };
  return service;
};

export type SettingsService = ReturnType<typeof createSettingsService>;
