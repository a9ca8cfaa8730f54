import type { Core } from '@strapi/strapi';
import {
  decodeDeltaSpan,
  type DeltaFetch,
  type ItemFetch,
  type PublishedChange,
} from '../core/geo';
import { ITEM_VERSION_UID } from './item-repository';
import { WRITE_BATCH } from './json';
import { bulkInsert } from './bulk';
import { CHANGELOG_UID, FRAGMENT_STATE_UID } from './state-repository';
import { FIRST_VERSION } from '../core/tracking';

export const ASSISTANT_VISIT_UID = 'plugin::sitemap-ai.assistant-visit' as const;
import { ACCESS_LOG_UID } from './access-log-repository';

/** Rows any one metrics query reads at most: a bounded dashboard, whatever the traffic. */
export const GEO_ROW_LIMIT = 200_000;

export interface AssistantVisit {
  at: string;
  assistant: string;
  itemId: string;
  anchor: string | null;
  client: string;
}

type Row = Record<string, unknown>;

/** What the GEO metrics read: the access log, the changelog and the assistant visits. */
export const createGeoRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const visits = () => strapi.db.query(ASSISTANT_VISIT_UID);

  return {
    async addVisits(list: readonly AssistantVisit[]): Promise<void> {
      await bulkInsert(
        strapi,
        ASSISTANT_VISIT_UID,
        list.map((v) => ({
          at: v.at,
          assistant: v.assistant,
          item_id: v.itemId,
          anchor: v.anchor,
          client: v.client,
        })),
      );
    },

    async visitsSince(since: string): Promise<AssistantVisit[]> {
      const rows = (await visits().findMany({
        where: { at: { $gte: since } },
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      return rows.map((row) => ({
        at: String(row.at),
        assistant: String(row.assistant),
        itemId: String(row.item_id),
        anchor: row.anchor ? String(row.anchor) : null,
        client: String(row.client),
      }));
    },

    async pruneVisits(before: string): Promise<void> {
      await visits().deleteMany({ where: { at: { $lt: before } } });
    },

    /** Successful fetches of one item since `since` (fragment, content, changelog, page routes). */
    async itemFetchesSince(since: string): Promise<ItemFetch[]> {
      const rows = (await strapi.db.query(ACCESS_LOG_UID).findMany({
        where: {
          at: { $gte: since },
          item_id: { $notNull: true },
          served_version: { $notNull: true },
          status: { $in: [200, 304] },
        },
        select: ['at', 'agent', 'item_id', 'served_version'],
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      return rows.map((row) => ({
        at: String(row.at),
        agent: String(row.agent),
        itemId: String(row.item_id),
        servedVersion: String(row.served_version),
      }));
    },

    /** Item fetches and drifts per month and per agent since `since`. */
    async requestsSince(since: string): Promise<
      {
        at: string;
        agent: string;
        itemType: string | null;
        drift: boolean;
        ok: boolean;
        item: boolean;
      }[]
    > {
      const rows = (await strapi.db.query(ACCESS_LOG_UID).findMany({
        where: { at: { $gte: since } },
        select: ['at', 'agent', 'item_type', 'item_id', 'drift', 'status'],
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      return rows.map((row) => {
        const status = Number(row.status);
        return {
          at: String(row.at),
          agent: String(row.agent),
          itemType: row.item_type ? String(row.item_type) : null,
          drift: row.drift === true || row.drift === 1 || row.drift === '1',
          ok: (status >= 200 && status < 300) || status === 304,
          item: Boolean(row.item_id),
        };
      });
    },

    /** Deltas agents read since `since`, with the snapshots each spans. */
    async deltaFetchesSince(since: string): Promise<DeltaFetch[]> {
      const rows = (await strapi.db.query(ACCESS_LOG_UID).findMany({
        where: { at: { $gte: since }, route: 'delta', status: { $in: [200, 304] } },
        select: ['at', 'agent', 'served_version', 'client_version'],
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      return rows.flatMap((row) => {
        const span = decodeDeltaSpan(
          row.served_version ? String(row.served_version) : null,
          row.client_version ? String(row.client_version) : null,
        );
        return span ? [{ ...span, agent: String(row.agent), at: String(row.at) }] : [];
      });
    },

    /** The snapshot that first served each change's version (`seq`), where it is still stored. */
    async withFirstSnapshot(changes: readonly PublishedChange[]): Promise<PublishedChange[]> {
      const ids = [...new Set(changes.map((c) => c.itemId))];
      const firstSeq = new Map<string, number>();
      for (let i = 0; i < ids.length; i += WRITE_BATCH) {
        const rows = (await strapi.db.query(ITEM_VERSION_UID).findMany({
          where: { item_id: { $in: ids.slice(i, i + WRITE_BATCH) } },
          select: ['item_id', 'content_version', 'meta_version', 'seq_from'],
        })) as Row[];
        for (const row of rows) {
          const key = `${String(row.item_id)}|v${Number(row.content_version)}.${Number(row.meta_version)}`;
          const seq = Number(row.seq_from);
          const known = firstSeq.get(key);
          if (known === undefined || seq < known) firstSeq.set(key, seq);
        }
      }
      return changes.map((c) => {
        const seq = firstSeq.get(`${c.itemId}|${c.version}`);
        return seq === undefined ? c : { ...c, seq };
      });
    },

    /**
     * Published changes since `since`: item, the version it became, when — the changelog's rows
     * and the "added" entries states imply (core/tracking.ts `TrackedState.addedAt`), oldest first.
     */
    async changesSince(since: string): Promise<PublishedChange[]> {
      const rows = (await strapi.db.query(CHANGELOG_UID).findMany({
        where: { at: { $gte: since } },
        select: ['item_id', 'version', 'at'],
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      const implying = (await strapi.db.query(FRAGMENT_STATE_UID).findMany({
        where: { added_at: { $gte: Date.parse(since) } },
        select: ['item_id', 'added_at'],
        orderBy: { added_at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      const changes = [
        ...rows.map((row) => ({
          itemId: String(row.item_id),
          version: String(row.version),
          at: String(row.at),
        })),
        ...implying.map((row) => ({
          itemId: String(row.item_id),
          version: FIRST_VERSION,
          at: new Date(Number(row.added_at)).toISOString(),
        })),
      ];
      return changes
        .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
        .slice(0, GEO_ROW_LIMIT);
    },
  };
};

export type GeoRepository = ReturnType<typeof createGeoRepository>;
