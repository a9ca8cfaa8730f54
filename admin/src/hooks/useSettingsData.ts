import type { SettingsData } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/** GET /sitemap-ai/settings (settings.read): the effective settings, indexable types and licences. */
export function useSettingsData(): AdminGet<SettingsData> {
  return useAdminGet<SettingsData>(`/${PLUGIN_ID}/settings`);
}
