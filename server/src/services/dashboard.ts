import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { indexFreshnessHours } from '../core/readiness';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';
import { within } from '../utils/within';
import type {
  DashboardData,
  DiscoveryDocumentLink,
  SnapshotSummary,
} from '../../../shared/contracts/admin';
import { messageOf } from '../core/errors';

/** Snapshots the dashboard lists. */
const DASHBOARD_SNAPSHOTS = 20;

/**
 * How long the dashboard waits for the readiness checklist of the current snapshot. On a large site
 * it is a crawl of the whole snapshot (11.5 s at 10k articles): past this the dashboard answers with
 * the last checklist computed and says the current one is being computed (it goes on, and the next
 * request after it ends gets it).
 */
const READINESS_WAIT_MS = 4000;

/** The public discovery documents, in the order the dashboard lists them. */
function discoveryDocuments(urls: {
  llms: string;
  llms_full: string;
  rsl: string;
  tdmrep: string;
  sitemap: string;
  policy: string;
}): DiscoveryDocumentLink[] {
  return [
    { name: 'llms.txt', url: urls.llms },
    { name: 'llms-full.txt', url: urls.llms_full },
    // robots.txt sits beside llms.txt under the plugin's prefix.
    { name: 'robots.txt', url: new URL('robots.txt', urls.llms).href },
    { name: 'rsl.xml', url: urls.rsl },
    { name: 'tdmrep.json', url: urls.tdmrep },
    { name: 'sitemap.xml', url: urls.sitemap },
    { name: 'policy.json', url: urls.policy },
  ];
}

export function snapshotSummary(snapshot: SnapshotRecord): SnapshotSummary {
  return {
    id: String(snapshot.seq),
    created_at: snapshot.builtAt,
    item_count: snapshot.itemCount,
    counts: snapshot.counts,
    changes: snapshot.changes,
    trigger: snapshot.trigger,
    duration_ms: snapshot.durationMs,
  };
}

/** What the plugin's dashboard shows (README › In the admin; README › Observability): GET /sitemap-ai/dashboard. */
export const createDashboardService = ({ strapi }: { strapi: Core.Strapi }) => {
  const states = repositories(strapi).states;
  const dirty = repositories(strapi).dirty;

  return {
    /** `readinessWaitMs`: how long to wait for the checklist (tests; READINESS_WAIT_MS otherwise). */
    async data(
      options: { fresh?: boolean; now?: Date; readinessWaitMs?: number } = {},
    ): Promise<DashboardData> {
      const now = options.now ?? new Date();
      const snapshots = await getService(strapi, 'manifest').recentSnapshots(DASHBOARD_SNAPSHOTS);
      const instances = getService(strapi, 'instances');
      const mine = getService(strapi, 'config').fileFingerprint();
      // Publishes this process has returned from count as pending, not as queued.
      await getService(strapi, 'tracker').flush();
      const checklist = getService(strapi, 'readiness');
      const checking = checklist.check({ fresh: options.fresh });
      // What is shown if the wait ends first: the last checklist completed before this request.
      const previous = checklist.latest();
      const [computed, pendingChanges, dirtyEntries, oldestPending, oldestDirty, ingest, live] =
        await Promise.all([
          within(checking, options.readinessWaitMs ?? READINESS_WAIT_MS, (error) =>
            strapi.log.error(`[sitemap-ai] readiness checklist failed: ${messageOf(error)}`),
          ),
          states.countPending(),
          dirty.count(),
          states.oldestPendingModified(),
          dirty.oldestMarkedAt(),
          getService(strapi, 'access-log').ingest(now),
          instances.live(now.getTime()),
        ]);
      // Still computing: the last checklist computed (maybe an older snapshot's), or none yet.
      const readiness = computed ?? previous;
      return {
        snapshots: snapshots.map(snapshotSummary),
        readiness: readiness?.checks ?? [],
        evidenceCoverage: Math.round((readiness?.evidenceCoverage ?? 0) * 10_000) / 10_000,
        freshnessHours: indexFreshnessHours({
          oldestPending,
          latestSnapshot: snapshots[0]?.builtAt ?? null,
          oldestDirty,
          now,
        }),
        pendingChanges,
        dirtyEntries,
        instances: live
          .map((p) => ({
            id: p.id,
            self: p.id === instances.id,
            agrees: p.file === mine,
            expires_at: new Date(p.expiresAt).toISOString(),
          }))
          .sort((a, b) => Number(b.self) - Number(a.self) || a.id.localeCompare(b.id)),
        ingest: ingest.rows.map(({ agent, type, requests, ok, drift }) => ({
          agent,
          type,
          requests,
          ok,
          drift,
        })),
        ingestWindowDays: ingest.windowDays,
        ...(readiness ? { readinessCheckedAt: readiness.checkedAt } : {}),
        ...(readiness?.snapshot ? { readinessSnapshot: readiness.snapshot } : {}),
        ...(computed ? {} : { readinessComputing: true }),
        documents: discoveryDocuments(getService(strapi, 'discovery').urls()),
      };
    },
  };
};

export type DashboardService = ReturnType<typeof createDashboardService>;
