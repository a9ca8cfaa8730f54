import type { EnabledContentType } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/**
 * GET /sitemap-ai/content-types — the content types indexed now, where the editors' panel
 * shows. `ask === false` (a user without the permission) sends nothing.
 */
export function useEnabledContentTypes(ask: boolean): AdminGet<EnabledContentType[]> {
  return useAdminGet<EnabledContentType[]>(ask ? `/${PLUGIN_ID}/content-types` : null);
}
