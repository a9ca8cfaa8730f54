import type { EntryPanelData } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/**
 * GET /sitemap-ai/entries/:uid/:documentId?locale= — the entry's inherited
 * policy, configured licences and fragments as they would be published. Asked only for an
 * indexed type (useEnabledContentTypes) and a saved entry; a 404 `NotFoundError` means the
 * entry has no draft in this locale yet.
 */
export function useEntryPanelData(
  uid: string | null,
  documentId: string | undefined,
  locale: string | null,
): AdminGet<EntryPanelData> {
  const url =
    uid && documentId
      ? `/${PLUGIN_ID}/entries/${encodeURIComponent(uid)}/${encodeURIComponent(documentId)}`
      : null;
  return useAdminGet<EntryPanelData>(url, locale ? { locale } : undefined);
}
