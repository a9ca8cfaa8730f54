import type { Core } from '@strapi/strapi';
import { OPEN_SNAPSHOT } from '../core/constants';
import type { ManifestItem, StoredItemState } from '../core/types';

export const ITEM_VERSION_UID = 'plugin::sitemap-ai.item-version' as const;

/** One stored version of an item, as the services use it. */
export interface ItemVersion {
  rowId: number;
  itemId: string;
  seqFrom: number;
  seqTo: number;
  type: string;
  lang: string;
  sourceUid: string;
  sourceDocument: string;
  state: StoredItemState;
  stabilityPin?: number;
}

export interface NewItemVersion {
  itemId: string;
  seqFrom: number;
  type: string;
  lang: string;
  parent?: string;
  sourceUid: string;
  sourceDocument: string;
  state: StoredItemState;
  stabilityPin?: number;
  data: ManifestItem;
  content: string;
}

export interface ServedRow {
  itemId: string;
  data: ManifestItem;
  history: string[];
  stabilityPin?: number;
}

export interface PageQuery {
  snapshot: number;
  after: string;
  limit: number;
  type?: string;
  lang?: string;
}

const STATE_FIELDS = [
  'id',
  'item_id',
  'seq_from',
  'seq_to',
  'item_type',
  'lang',
  'source_uid',
  'source_document',
  'checksum',
  'meta_hash',
  'content_version',
  'meta_version',
  'modified_at',
  'first_published',
  'history',
  'stability_pin',
];

type Row = Record<string, unknown>;

function parseJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as T;
    } catch {
      return fallback;
    }
  }
  return value as T;
}

function toVersion(row: Row): ItemVersion {
  const pin = row.stability_pin;
  return {
    rowId: Number(row.id),
    itemId: String(row.item_id),
    seqFrom: Number(row.seq_from),
    seqTo: Number(row.seq_to),
    type: String(row.item_type),
    lang: String(row.lang),
    sourceUid: String(row.source_uid),
    sourceDocument: String(row.source_document),
    stabilityPin: pin === null || pin === undefined ? undefined : Number(pin),
    state: {
      checksum: String(row.checksum),
      metaHash: String(row.meta_hash),
      contentVersion: Number(row.content_version),
      metaVersion: Number(row.meta_version),
      modified: String(row.modified_at),
      firstPublished: String(row.first_published ?? row.modified_at),
      history: parseJson<string[]>(row.history, []),
    },
  };
}

function toServed(row: Row): ServedRow {
  const pin = row.stability_pin;
  return {
    itemId: String(row.item_id),
    data: parseJson<ManifestItem>(row.data, {} as ManifestItem),
    history: parseJson<string[]>(row.history, []),
    stabilityPin: pin === null || pin === undefined ? undefined : Number(pin),
  };
}

/** Valid in snapshot S: seq_from ≤ S < seq_to. */
function validIn(snapshot: number): Row {
  return { seq_from: { $lte: snapshot }, seq_to: { $gt: snapshot } };
}

const WRITE_BATCH = 200;

/** Item versions (SPEC §6 storage design): the only code that touches their table. */
export const createItemRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(ITEM_VERSION_UID);
  return {
    /** Versions open at the newest snapshot (seq_to = open): the state a rebuild compares with. */
    async openVersions(): Promise<ItemVersion[]> {
      const rows = (await query().findMany({ where: { seq_to: OPEN_SNAPSHOT }, select: STATE_FIELDS })) as Row[];
      return rows.map(toVersion);
    },

    /** Undo what an interrupted build of snapshot `seq` (or later) left behind. */
    async discardUnpublished(seq: number): Promise<void> {
      await query().deleteMany({ where: { seq_from: { $gte: seq } } });
      await query().updateMany({
        where: { seq_to: { $gte: seq, $lt: OPEN_SNAPSHOT } },
        data: { seq_to: OPEN_SNAPSHOT },
      });
    },

    async insert(versions: readonly NewItemVersion[]): Promise<void> {
      for (let i = 0; i < versions.length; i += WRITE_BATCH) {
        await query().createMany({
          data: versions.slice(i, i + WRITE_BATCH).map((v) => ({
            item_id: v.itemId,
            seq_from: v.seqFrom,
            seq_to: OPEN_SNAPSHOT,
            item_type: v.type,
            lang: v.lang,
            parent_item: v.parent ?? null,
            source_uid: v.sourceUid,
            source_document: v.sourceDocument,
            checksum: v.state.checksum,
            meta_hash: v.state.metaHash,
            content_version: v.state.contentVersion,
            meta_version: v.state.metaVersion,
            modified_at: v.state.modified,
            first_published: v.state.firstPublished,
            history: v.state.history,
            stability_pin: v.stabilityPin ?? null,
            data: v.data,
            content: v.content,
          })),
        });
      }
    },

    /** Close versions: they stay valid for snapshots before `seq`. */
    async close(rowIds: readonly number[], seq: number): Promise<void> {
      for (let i = 0; i < rowIds.length; i += WRITE_BATCH) {
        await query().updateMany({ where: { id: { $in: rowIds.slice(i, i + WRITE_BATCH) } }, data: { seq_to: seq } });
      }
    },

    /** Keyset page of snapshot S in item-id order; `limit + 1` rows tell whether more follow. */
    async page(q: PageQuery): Promise<ServedRow[]> {
      const where: Row = { ...validIn(q.snapshot) };
      if (q.after) where.item_id = { $gt: q.after };
      if (q.type) where.item_type = q.type;
      if (q.lang) where.lang = q.lang;
      const rows = (await query().findMany({
        where,
        orderBy: { item_id: 'asc' },
        limit: q.limit + 1,
        select: ['item_id', 'data', 'history', 'stability_pin'],
      })) as Row[];
      return rows.map(toServed);
    },

    async findServed(snapshot: number, itemId: string): Promise<ServedRow | null> {
      const row = (await query().findOne({
        where: { ...validIn(snapshot), item_id: itemId },
        select: ['item_id', 'data', 'history', 'stability_pin'],
      })) as Row | null;
      return row ? toServed(row) : null;
    },

    async findContent(snapshot: number, itemId: string): Promise<{ checksum: string; content: string } | null> {
      const row = (await query().findOne({
        where: { ...validIn(snapshot), item_id: itemId },
        select: ['checksum', 'content'],
      })) as Row | null;
      return row ? { checksum: String(row.checksum), content: String(row.content ?? '') } : null;
    },

    async countIn(snapshot: number): Promise<number> {
      return Number(await query().count({ where: validIn(snapshot) }));
    },

    /** Garbage collection: versions closed before the oldest retained snapshot. */
    async collect(oldestKept: number): Promise<void> {
      await query().deleteMany({ where: { seq_to: { $lte: oldestKept } } });
    },
  };
};

export type ItemRepository = ReturnType<typeof createItemRepository>;
