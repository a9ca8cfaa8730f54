import type { Core } from '@strapi/strapi';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { manifestUpdatedEvent } from '../core/webhooks';
import { getService } from '../utils/get-service';
import type { ConfigChange } from './config';
import { messageOf } from '../core/errors';

/** A service that follows the effective config (the schedule, the rate limiter). */
export type ConfigListener = (change: ConfigChange) => void | Promise<void>;

/**
 * What happens in the plugin that others follow, without the one it happens in calling them:
 * - "config changed": the stored Settings changed (a save here, or one noticed from another
 *   instance); the scheduler and the rate limiter subscribe, so the settings service knows
 *   neither of them.
 * - a snapshot with changes is published (docs/protocol.md §8 Events): a `manifest.updated`
 *   event for the webhook subscribers, pointing at the delta since the previous snapshot, and
 *   the changed page URLs for IndexNow.
 */
export const createEventsService = ({ strapi }: { strapi: Core.Strapi }) => {
  const configListeners = new Set<ConfigListener>();

  return {
    /** Follow every change of the effective config; returns the unsubscribe. */
    onConfigChanged(listener: ConfigListener): () => void {
      configListeners.add(listener);
      return () => {
        configListeners.delete(listener);
      };
    },

    /** Tell every subscriber, one after the other; one failing is logged and stops no other. */
    async configChanged(change: ConfigChange): Promise<void> {
      for (const listener of [...configListeners]) {
        try {
          await listener(change);
        } catch (error) {
          strapi.log.error(
            `[sitemap-ai] a change of the config was not applied everywhere: ${messageOf(error)}`,
          );
        }
      }
    },

    async snapshotPublished(
      snapshot: SnapshotRecord,
      previous: SnapshotRecord | null,
      changedPageUrls: string[],
    ): Promise<void> {
      const api = getService(strapi, 'config').publicApiUrl();
      const since = previous ? String(previous.seq) : null;
      const deltaUrl = since ? `${api}/delta?since=${since}` : `${api}/manifest`;
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
          `[sitemap-ai] webhook events for snapshot ${snapshot.seq} not queued: ${messageOf(error)}`,
        );
      }
    },
  };
};

export type EventsService = ReturnType<typeof createEventsService>;
