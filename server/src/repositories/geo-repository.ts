import type { Core } from '@strapi/strapi';
import type { ItemFetch, PublishedChange } from '../core/geo';
import { bulkInsert } from './bulk';
import { CHANGELOG_UID } from './state-repository';

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

    /** Published changes since `since`: item, the version it became, when. */
    async changesSince(since: string): Promise<PublishedChange[]> {
      const rows = (await strapi.db.query(CHANGELOG_UID).findMany({
        where: { at: { $gte: since } },
        select: ['item_id', 'version', 'at'],
        orderBy: { at: 'asc' },
        limit: GEO_ROW_LIMIT,
      })) as Row[];
      return rows.map((row) => ({
        itemId: String(row.item_id),
        version: String(row.version),
        at: String(row.at),
      }));
    },
  };
};

export type GeoRepository = ReturnType<typeof createGeoRepository>;
