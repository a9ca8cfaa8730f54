import type { GeoMetrics } from '../../../shared/contracts/admin';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

/** GET /sitemap-ai/geo (dashboard.read): time-to-index, drift, agents, assistant visits. */
export function useGeoMetrics(days = 30): AdminGet<GeoMetrics> {
  return useAdminGet<GeoMetrics>(`/${PLUGIN_ID}/geo`, { days: String(days) });
}
