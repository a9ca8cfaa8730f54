import type { Core } from '@strapi/strapi';
import { parseJson } from './json';

export const SNAPSHOT_UID = 'plugin::sitemap-ai.snapshot' as const;

export interface SnapshotRecord {
  seq: number;
  builtAt: string;
  itemCount: number;
  counts: Record<string, number>;
  changes: { added: number; changed: number; removed: number };
  trigger: string;
  durationMs: number;
}

interface SnapshotRow {
  seq: number;
  built_at: string;
  item_count: number;
  counts: Record<string, number> | null;
  changes: SnapshotRecord['changes'] | null;
  trigger: string | null;
  duration_ms: number | null;
}

/** The columns of a snapshot row (its attributes are named as its columns). */
const COLUMNS = ['seq', 'built_at', 'item_count', 'counts', 'changes', 'trigger', 'duration_ms'];

type Row = Record<string, unknown>;

function toRecord(row: SnapshotRow): SnapshotRecord {
  return {
    seq: Number(row.seq),
    builtAt: row.built_at,
    itemCount: Number(row.item_count),
    counts: row.counts ?? {},
    changes: row.changes ?? { added: 0, changed: 0, removed: 0 },
    trigger: row.trigger ?? 'unknown',
    durationMs: Number(row.duration_ms ?? 0),
  };
}

/** Snapshots of the manifest: the only code that reads or writes their table. */
export const createSnapshotRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(SNAPSHOT_UID);
  /** The newest snapshot when last read, and when that read started. */
  let seen: { at: number; record: SnapshotRecord | null } | null = null;
  /** When this instance last published a snapshot. */
  let published = 0;
  return {
    /**
     * The newest snapshot. Every public read starts here (a 304 costs little else), so it is one
     * indexed statement without the entity manager's per-row conversions.
     */
    async latest(): Promise<SnapshotRecord | null> {
      // Inside a caller's transaction, read in it (a separate connection could wait on it).
      if (strapi.db.inTransaction()) {
        const row = (await query().findOne({ orderBy: { seq: 'desc' } })) as SnapshotRow | null;
        return row ? toRecord(row) : null;
      }
      const at = Date.now();
      const meta = strapi.db.metadata.get(SNAPSHOT_UID);
      const rows = (await strapi.db
        .connection(meta.tableName)
        .select(COLUMNS)
        .orderBy('seq', 'desc')
        .limit(1)) as Row[];
      const row = rows[0];
      const record = row
        ? toRecord({
            ...(row as unknown as SnapshotRow),
            built_at: String(row.built_at),
            counts: parseJson(row.counts, null),
            changes: parseJson(row.changes, null),
          })
        : null;
      if (at > published && (!seen || seen.at <= at)) seen = { at, record };
      return record;
    },

    /**
     * The newest snapshot as read at most `maxAgeMs` ago by this instance (else read now). A
     * snapshot this instance publishes is seen at once; one another instance publishes, within
     * `maxAgeMs`. For revalidations only (docs/protocol.md §6): never to read items at.
     */
    async latestSeen(maxAgeMs: number): Promise<SnapshotRecord | null> {
      if (seen && Date.now() - seen.at <= maxAgeMs) return seen.record;
      return this.latest();
    },

    async find(seq: number): Promise<SnapshotRecord | null> {
      const row = (await query().findOne({ where: { seq } })) as SnapshotRow | null;
      return row ? toRecord(row) : null;
    },

    /** The oldest snapshot still kept. */
    async oldest(): Promise<SnapshotRecord | null> {
      const row = (await query().findOne({ orderBy: { seq: 'asc' } })) as SnapshotRow | null;
      return row ? toRecord(row) : null;
    },

    /** The newest snapshot built at or before `time` (an ISO date), if one is still kept. */
    async latestBuiltBy(time: string): Promise<SnapshotRecord | null> {
      const row = (await query().findOne({
        where: { built_at: { $lte: time } },
        orderBy: { seq: 'desc' },
      })) as SnapshotRow | null;
      return row ? toRecord(row) : null;
    },

    /** When each of `seqs` was built (those still kept). */
    async builtAt(seqs: readonly number[]): Promise<Map<number, string>> {
      if (seqs.length === 0) return new Map();
      const rows = (await query().findMany({
        where: { seq: { $in: [...new Set(seqs)] } },
        select: ['seq', 'built_at'],
      })) as Pick<SnapshotRow, 'seq' | 'built_at'>[];
      return new Map(rows.map((row) => [Number(row.seq), row.built_at]));
    },

    async list(limit: number): Promise<SnapshotRecord[]> {
      const rows = (await query().findMany({ orderBy: { seq: 'desc' }, limit })) as SnapshotRow[];
      return rows.map(toRecord);
    },

    /** Publishing a snapshot is inserting its row: readers only see snapshots that have one. */
    async publish(record: SnapshotRecord): Promise<void> {
      await query().create({
        data: {
          seq: record.seq,
          built_at: record.builtAt,
          item_count: record.itemCount,
          counts: record.counts,
          changes: record.changes,
          trigger: record.trigger,
          duration_ms: record.durationMs,
        },
      });
      // A read that started before this one was stored no longer names the newest.
      published = Date.now();
      seen = null;
    },

    /**
     * Drop snapshots that are neither among the newest `keep` nor younger than
     * `maxAgeMs`; returns the oldest seq still kept.
     */
    async collect(keep: number, maxAgeMs: number, now = Date.now()): Promise<number | null> {
      const kept = (await query().findMany({
        orderBy: { seq: 'desc' },
        limit: keep,
        select: ['seq'],
      })) as { seq: number }[];
      if (kept.length === 0) return null;
      let oldest = Number(kept[kept.length - 1]!.seq);
      const young = (await query().findOne({
        where: { built_at: { $gte: new Date(now - maxAgeMs).toISOString() } },
        orderBy: { seq: 'asc' },
        select: ['seq'],
      })) as { seq: number } | null;
      if (young) oldest = Math.min(oldest, Number(young.seq));
      await query().deleteMany({ where: { seq: { $lt: oldest } } });
      return oldest;
    },
  };
};

export type SnapshotRepository = ReturnType<typeof createSnapshotRepository>;
