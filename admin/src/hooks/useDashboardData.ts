import type { DashboardData } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/** GET /sitemap-ai/dashboard (dashboard.read): readiness, coverage, freshness, pending changes, ingest. */
export function useDashboardData(): AdminGet<DashboardData> {
  return useAdminGet<DashboardData>(`/${PLUGIN_ID}/dashboard`);
}
