import type { WebhookDelivery } from '../../../shared/contracts/webhooks';
import { PLUGIN_ID } from '../pluginId';
import { useAdminGet, type AdminGet } from './useAdminGet';

const PARAMS = { limit: '20' };

/** GET /sitemap-ai/webhooks/deliveries?limit=20 (dashboard.read): the webhook delivery log, newest first. */
export function useWebhookDeliveries(): AdminGet<WebhookDelivery[]> {
  return useAdminGet<WebhookDelivery[]>(`/${PLUGIN_ID}/webhooks/deliveries`, PARAMS);
}
