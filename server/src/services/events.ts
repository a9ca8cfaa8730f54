import type { Core } from '@strapi/strapi';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';

/**
 * What happens after a snapshot with changes is published (SPEC §6 Events):
 * a `manifest.updated` event for the webhook subscribers, pointing at the
 * delta since the previous snapshot, and the changed page URLs for IndexNow.
 */
export const createEventsService = ({ strapi }: { strapi: Core.Strapi }) => ({
  async snapshotPublished(snapshot: SnapshotRecord, previous: SnapshotRecord | null, changedPageUrls: string[]): Promise<void> {
    const config = getService(strapi, 'settings').config();
    const apiUrl = (config.apiUrl ?? config.siteUrl).replace(/\/+$/, '');
    const since = previous ? String(previous.seq) : null;
    const deltaUrl = since ? `${apiUrl}/api/sitemap-ai/delta?since=${since}` : `${apiUrl}/api/sitemap-ai/manifest`;
    const webhooks = strapi.plugin('sitemap-ai').service('webhooks') as
      | { enqueue?: (event: unknown, options: { changedPageUrls: string[] }) => Promise<void> }
      | undefined;
    if (!webhooks?.enqueue) return;
    try {
      await webhooks.enqueue(
        {
          event: 'manifest.updated',
          snapshot: { id: String(snapshot.seq), created_at: snapshot.builtAt },
          since,
          counts: snapshot.changes,
          delta_url: deltaUrl,
        },
        { changedPageUrls },
      );
    } catch (error) {
      strapi.log.error(`[sitemap-ai] webhook events for snapshot ${snapshot.seq} not queued: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
});
