import * as React from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { SettingsUpdate, SettingsUpdateResult } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { toRequestError, type RequestError } from '../utils/request-error';

export type SaveOutcome =
  { ok: true; data: SettingsUpdateResult } | { ok: false; error: RequestError };

/** PUT /sitemap-ai/settings (settings.update). Resolves with the new settings or the server's error (field errors included). */
export function useSaveSettings(): {
  save: (settings: SettingsUpdate) => Promise<SaveOutcome>;
  saving: boolean;
} {
  const { put } = useFetchClient();
  const [saving, setSaving] = React.useState(false);
  const save = React.useCallback(
    async (settings: SettingsUpdate): Promise<SaveOutcome> => {
      setSaving(true);
      try {
        const response = await put<{ data: SettingsUpdateResult }>(
          `/${PLUGIN_ID}/settings`,
          settings,
        );
        return { ok: true, data: response.data.data };
      } catch (error) {
        return { ok: false, error: toRequestError(error) };
      } finally {
        setSaving(false);
      }
    },
    [put],
  );
  return { save, saving };
}
