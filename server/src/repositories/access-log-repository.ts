import { randomBytes } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { bulkInsert } from './bulk';

export const ACCESS_LOG_UID = 'plugin::sitemap-ai.access-log-entry' as const;
export const ACCESS_LOG_SALT_UID = 'plugin::sitemap-ai.access-log-salt' as const;

/** One stored request (README › Observability): `client` is a pseudonym, never an address. */
export interface AccessLogRecord {
  at: string;
  agent: string;
  route: string;
  ingestType: string;
  itemId: string | null;
  itemType: string | null;
  servedVersion: string | null;
  clientVersion: string | null;
  drift: boolean;
  status: number;
  client: string;
  /** How the caller was treated (docs/protocol.md §7.2): verified, unverified or anonymous. */
  tier: string;
}

/** Requests per agent family and type. */
export interface IngestCount {
  agent: string;
  type: string;
  requests: number;
  ok: number;
  drift: number;
}

type Row = Record<string, unknown>;

/** The access log and its daily salts: the only code that touches their tables. */
export const createAccessLogRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const entries = () => strapi.db.query(ACCESS_LOG_UID);
  const salts = () => strapi.db.query(ACCESS_LOG_SALT_UID);

  return {
    async insert(records: readonly AccessLogRecord[]): Promise<void> {
      await bulkInsert(
        strapi,
        ACCESS_LOG_UID,
        records.map((r) => ({
          at: r.at,
          agent: r.agent,
          route: r.route,
          ingest_type: r.ingestType,
          item_id: r.itemId,
          item_type: r.itemType,
          served_version: r.servedVersion,
          client_version: r.clientVersion,
          drift: r.drift,
          status: r.status,
          tier: r.tier,
          client: r.client,
        })),
      );
    },

    /** Delete entries older than `before` (ISO time); returns how many. */
    async prune(before: string): Promise<number> {
      const result = (await entries().deleteMany({ where: { at: { $lt: before } } })) as
        { count?: number } | undefined;
      return Number(result?.count ?? 0);
    },

    /** Requests since `since` (ISO time), per agent family and type, most requested first. */
    async ingest(since: string): Promise<IngestCount[]> {
      const meta = strapi.db.metadata.get(ACCESS_LOG_UID);
      const column = (attribute: string) =>
        (meta.attributes[attribute] as { columnName?: string } | undefined)?.columnName ??
        attribute;
      const knex = strapi.db.connection;
      const [at, agent, type, status, drift] = [
        'at',
        'agent',
        'ingest_type',
        'status',
        'drift',
      ].map(column) as [string, string, string, string, string];
      const rows = (await strapi.db
        .getConnection(meta.tableName)
        .where(at, '>=', since)
        .select({ agent, type })
        .select(knex.raw('COUNT(*) AS ??', ['requests']))
        .select(
          knex.raw('SUM(CASE WHEN (?? >= 200 AND ?? < 300) OR ?? = 304 THEN 1 ELSE 0 END) AS ??', [
            status,
            status,
            status,
            'ok',
          ]),
        )
        .select(knex.raw('SUM(CASE WHEN ?? = ? THEN 1 ELSE 0 END) AS ??', [drift, true, 'drift']))
        .groupBy(agent, type)) as Row[];
      return rows
        .map((row) => ({
          agent: String(row.agent),
          type: String(row.type),
          requests: Number(row.requests ?? 0),
          ok: Number(row.ok ?? 0),
          drift: Number(row.drift ?? 0),
        }))
        .sort(
          (a, b) =>
            b.requests - a.requests ||
            a.agent.localeCompare(b.agent) ||
            a.type.localeCompare(b.type),
        );
    },

    /** Every stored entry in insertion order (tests and exports; bounded by `limit`). */
    async list(limit: number): Promise<(AccessLogRecord & { id: number })[]> {
      const rows = (await entries().findMany({ orderBy: { id: 'asc' }, limit })) as Row[];
      return rows.map((row) => ({
        id: Number(row.id),
        at: String(row.at),
        agent: String(row.agent),
        route: String(row.route),
        ingestType: String(row.ingest_type),
        itemId: row.item_id ? String(row.item_id) : null,
        itemType: row.item_type ? String(row.item_type) : null,
        servedVersion: row.served_version ? String(row.served_version) : null,
        clientVersion: row.client_version ? String(row.client_version) : null,
        drift: row.drift === true || row.drift === 1 || row.drift === '1',
        status: Number(row.status),
        client: String(row.client),
        tier: row.tier ? String(row.tier) : 'anonymous',
      }));
    },

    /**
     * The salt of a UTC day: created at random by the first instance that
     * needs it (a unique index makes every instance use the same one), and
     * the salts of earlier days are deleted with it.
     */
    async saltFor(day: string): Promise<string> {
      const existing = (await salts().findOne({ where: { day }, select: ['salt'] })) as Row | null;
      if (existing) return String(existing.salt);
      try {
        await salts().create({ data: { day, salt: randomBytes(32).toString('hex') } });
      } catch {
        // Another instance created it first: use theirs.
      }
      const row = (await salts().findOne({ where: { day }, select: ['salt'] })) as Row | null;
      if (!row) throw new Error(`could not create the access-log salt of ${day}`);
      await salts().deleteMany({ where: { day: { $lt: day } } });
      return String(row.salt);
    },

    /** Forget the salts of days before `day` (their pseudonyms can no longer be recomputed). */
    async dropSaltsBefore(day: string): Promise<void> {
      await salts().deleteMany({ where: { day: { $lt: day } } });
    },
  };
};

export type AccessLogRepository = ReturnType<typeof createAccessLogRepository>;
