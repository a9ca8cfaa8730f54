import type { SnapshotSummary } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/** GET /sitemap-ai/snapshots (dashboard.read): the last snapshots, newest first. */
export function useSnapshots(): AdminGet<SnapshotSummary[]> {
  return useAdminGet<SnapshotSummary[]>(`/${PLUGIN_ID}/snapshots`);
}
