import type { Core } from '@strapi/strapi';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { manifestUpdatedEvent } from '../core/webhooks';
import { getService } from '../utils/get-service';

/**
 * What happens after a snapshot with changes is published (docs/protocol.md §8 Events):
 * a `manifest.updated` event for the webhook subscribers, pointing at the
 * delta since the previous snapshot, and the changed page URLs for IndexNow.
 */
export const createEventsService = ({ strapi }: { strapi: Core.Strapi }) => ({
  async snapshotPublished(
    snapshot: SnapshotRecord,
    previous: SnapshotRecord | null,
    changedPageUrls: string[],
  ): Promise<void> {
    const config = getService(strapi, 'settings').config();
    const apiUrl = (config.apiUrl ?? config.siteUrl).replace(/\/+$/, '');
    const since = previous ? String(previous.seq) : null;
    const deltaUrl = since
      ? `${apiUrl}/api/sitemap-ai/delta?since=${since}`
      : `${apiUrl}/api/sitemap-ai/manifest`;
    const { added, changed, removed } = snapshot.changes;
    if (added + changed + removed === 0) return;
    try {
      await getService(strapi, 'webhooks').enqueue(
        manifestUpdatedEvent({
          snapshot: { id: snapshot.seq, created_at: snapshot.builtAt },
          since,
          counts: snapshot.changes,
          deltaUrl,
        }),
        { changedPageUrls },
      );
    } catch (error) {
      strapi.log.error(
        `[sitemap-ai] webhook events for snapshot ${snapshot.seq} not queued: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  },
});
