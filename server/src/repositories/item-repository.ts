import type { Core } from '@strapi/strapi';
import { ITEM_TYPES, OPEN_SNAPSHOT } from '../../../shared/constants';
import type { ManifestItem, StoredItemState, Usage } from '../core/types';
import type { TrackedState } from '../core/tracking';
import { WRITE_BATCH, jsonMember, optionalNumber, parseJson } from './json';
import { SnapshotGoneError } from '../core/errors';
import { readStoredItem, versionString } from '../core/items';
import { bulkInsert, inCallersTransaction } from './bulk';
import { createBlobRepository } from './blob-repository';
import { decodeBlob } from './blob-codec';
import { checksumOf, historyOf, storedStateColumns, storedStateOf } from './stored-state';

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
  /** The revision of the tracked state this version publishes (what settling it checks). */
  stateRevision?: number;
  /**
   * The item's data and canonical text: stored already (their keys), the data's stored body to
   * keep in the version's row and the text stored already, both stored bodies to keep in the row
   * (a first build's), or both to be stored.
   */
  stored:
    | { dataRef: string; contentRef: string }
    | { dataBody: Buffer | string; contentRef: string }
    | { dataBody: Buffer | string; contentBody: Buffer | string }
    | { data: ManifestItem; content: string };
}

/** The version of snapshot `seq` that publishes a tracked state, its texts `stored` as given. */
export function versionOfState(
  state: TrackedState,
  seq: number,
  stored: NewItemVersion['stored'],
): NewItemVersion {
  return {
    itemId: state.itemId,
    seqFrom: seq,
    type: state.type,
    lang: state.lang,
    parent: state.parent,
    sourceUid: state.sourceUid,
    sourceDocument: state.sourceDocument,
    state,
    stabilityPin: state.stabilityPin,
    stateRevision: state.revision,
    stored,
  };
}

export interface ServedRow {
  itemId: string;
  data: ManifestItem;
  history: string[];
  stabilityPin?: number;
}

/** What the access log and the readiness checklist need to know of an item. */
export interface ItemDescription {
  itemId: string;
  type: string;
  lang: string;
  sourceUid: string;
  sourceDocument: string;
  checksum: string;
  version: string;
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

/** What serving an item reads of its version row. */
const SERVED_FIELDS = [
  'item_id',
  'seq_from',
  'data_ref',
  'data_body',
  'data',
  'checksum',
  'modified_at',
  'history',
  'stability_pin',
];

type Row = Record<string, unknown>;

function toVersion(row: Row): ItemVersion {
  return {
    rowId: Number(row.id),
    itemId: String(row.item_id),
    seqFrom: Number(row.seq_from),
    seqTo: Number(row.seq_to),
    type: String(row.item_type),
    lang: String(row.lang),
    sourceUid: String(row.source_uid),
    sourceDocument: String(row.source_document),
    stabilityPin: optionalNumber(row.stability_pin),
    state: storedStateOf(row),
  };
}

/**
 * The row's data (`checksum` among the columns read): from its stored text, kept in the row
 * (`data_body`, a first build's), or inline on rows written before texts were stored by key; its
 * citation built unless `citation` is false.
 */
function dataOf(row: Row, texts: ReadonlyMap<string, string>, citation = true): ManifestItem {
  // A query that left a column out would serve the text "undefined" as the item's checksum, or
  // an empty item.
  if (row.checksum === undefined) throw new Error('the checksum of this version was not read');
  const data = parseJson<ManifestItem>(storedData(row, texts), {} as ManifestItem);
  return readStoredItem(data, checksumOf(row.checksum), citation);
}

/** The row's stored data as read: its text, or on some drivers an inline JSON column parsed. */
function storedData(row: Row, texts: ReadonlyMap<string, string>): unknown {
  if (row.data_body === undefined) throw new Error('the data of this version was not read');
  return row.data_ref
    ? storedText(row, 'data_ref', texts)
    : row.data_body
      ? decodeBlob(row.data_body as Buffer | string)
      : row.data;
}

/** The columns of a version the discovery documents fold into one policy per page. */
const POLICY_FIELDS = [
  'item_id',
  'seq_from',
  'item_type',
  'source_uid',
  'parent_item',
  'data_ref',
  'data_body',
  'data',
  'checksum',
];

/**
 * A version as the discovery documents' policy fold reads it (policyPage, policyOfPages): a page
 * (an article item) with its data, any other item with only its usage.
 */
export type PolicyRow = {
  itemId: string;
  sourceUid: string;
  parent?: string;
  type: string;
} & ({ data: ManifestItem } | { usage: Usage | undefined });

/**
 * The usage of a version's stored item: the one member read from its stored text (jsonMember),
 * the whole item parsed only where that text is not a whole object, or comes back parsed.
 */
function usageOf(row: Row, texts: ReadonlyMap<string, string>): Usage | undefined {
  const stored = storedData(row, texts);
  const member = typeof stored === 'string' ? jsonMember(stored, 'usage') : null;
  return member ? (member.value as Usage | undefined) : dataOf(row, texts, false).usage;
}

/**
 * Versions as the policy fold reads them: a page's data without its citation built, the usage
 * alone of anything else (of a 10k site's 140k versions, 10k are pages).
 */
function toPolicyRows(rows: readonly Row[], texts: ReadonlyMap<string, string>): PolicyRow[] {
  return rows.map((row) => {
    const itemId = String(row.item_id);
    const type = String(row.item_type);
    const sourceUid = String(row.source_uid);
    const parent = row.parent_item ? String(row.parent_item) : undefined;
    return type === 'article'
      ? { itemId, type, sourceUid, parent, data: dataOf(row, texts, false) }
      : { itemId, type, sourceUid, parent, usage: usageOf(row, texts) };
  });
}

/**
 * The row's canonical text (`content_body` among the columns read): from its stored text, kept in
 * the row (a first build's), or inline on rows written before texts were stored by key.
 */
function contentOf(row: Row, texts: ReadonlyMap<string, string>): string {
  if (row.content_body === undefined) throw new Error('the text of this version was not read');
  return row.content_ref
    ? storedText(row, 'content_ref', texts)
    : row.content_body
      ? decodeBlob(row.content_body as Buffer | string)
      : String(row.content ?? '');
}

/**
 * A referenced text that is not stored: its version was collected between reading the row and
 * its text, i.e. the snapshot read is no longer retained (never served as an empty item).
 */
function storedText(row: Row, column: string, texts: ReadonlyMap<string, string>): string {
  const text = texts.get(String(row[column]));
  if (text === undefined) throw new SnapshotGoneError(Number(row.seq_from));
  return text;
}

function toServed(row: Row, texts: ReadonlyMap<string, string>): ServedRow {
  return {
    itemId: String(row.item_id),
    data: dataOf(row, texts),
    history: historyOf(row),
    stabilityPin: optionalNumber(row.stability_pin),
  };
}

/** Keyset position and the type/lang filters of a page query. */
function keysetFilters(after: string, q: Pick<PageQuery, 'type' | 'lang'>): Row {
  const where: Row = {};
  if (after) where.item_id = { $gt: after };
  if (q.type) where.item_type = q.type;
  if (q.lang) where.lang = q.lang;
  return where;
}

/** Valid in snapshot S: seq_from ≤ S < seq_to. */
function validIn(snapshot: number): Row {
  return { seq_from: { $lte: snapshot }, seq_to: { $gt: snapshot } };
}

/** Item versions (docs/protocol.md §4 storage design): the only code that touches their table. */
export const createItemRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(ITEM_VERSION_UID);
  const blobs = createBlobRepository({ strapi });

  /** The stored texts the rows reference (`columns`: which references). */
  const textsOf = (rows: readonly Row[], ...columns: string[]) =>
    blobs.texts(rows.flatMap((row) => columns.map((column) => row[column])));

  /** Served rows matching `where`, in item-id order; `limit + 1` rows tell whether more follow. */
  async function servedPage(where: Row, limit: number): Promise<ServedRow[]> {
    const rows = (await query().findMany({
      where,
      orderBy: { item_id: 'asc' },
      limit: limit + 1,
      select: SERVED_FIELDS,
    })) as Row[];
    const texts = await textsOf(rows, 'data_ref');
    return rows.map((row) => toServed(row, texts));
  }

  return {
    /** Open versions of the given items. */
    async openFor(itemIds: readonly string[]): Promise<ItemVersion[]> {
      const result: ItemVersion[] = [];
      for (let i = 0; i < itemIds.length; i += WRITE_BATCH) {
        const rows = (await query().findMany({
          where: { seq_to: OPEN_SNAPSHOT, item_id: { $in: itemIds.slice(i, i + WRITE_BATCH) } },
          select: STATE_FIELDS,
        })) as Row[];
        result.push(...rows.map(toVersion));
      }
      return result;
    },

    /** Whether any version is open (valid in the next snapshot, whichever was published last). */
    async anyOpen(): Promise<boolean> {
      return (await query().findOne({ where: { seq_to: OPEN_SNAPSHOT }, select: ['id'] })) !== null;
    },

    /** Whether any version is valid in snapshot S: none is when the versions were lost behind the plugin's back. */
    async anyValidIn(snapshot: number): Promise<boolean> {
      return (await query().findOne({ where: validIn(snapshot), select: ['id'] })) !== null;
    },

    /**
     * Items per type valid in snapshot S, in one grouped statement: a count per type scanned the
     * versions valid in S once for each of the six types (a first build of 10k articles counted
     * 140k versions six times, ~230 ms on SQLite; grouped, ~75 ms).
     */
    async countByType(snapshot: number): Promise<Record<string, number>> {
      const table = strapi.db.metadata.get(ITEM_VERSION_UID as never).tableName;
      const rows = (await inCallersTransaction(strapi, (knex) =>
        knex(table)
          .select('item_type')
          .count({ n: '*' })
          .where('seq_from', '<=', snapshot)
          .andWhere('seq_to', '>', snapshot)
          .groupBy('item_type'),
      )) as { item_type: unknown; n: unknown }[];
      const byType = new Map(rows.map((row) => [String(row.item_type), Number(row.n)]));
      const counts: Record<string, number> = {};
      for (const type of ITEM_TYPES) {
        const n = byType.get(type) ?? 0;
        if (n > 0) counts[type] = n;
      }
      return counts;
    },

    /**
     * Whether every version is an open version of snapshot `seq`: what a first build of `seq` that
     * published as it tracked leaves when it is interrupted (it closes none; it discards what it
     * replaces). False as soon as any snapshot was ever published over them.
     */
    async onlyOpenOf(seq: number): Promise<boolean> {
      const other = await query().findOne({
        where: { $or: [{ seq_from: { $ne: seq } }, { seq_to: { $ne: OPEN_SNAPSHOT } }] },
        select: ['id'],
      });
      return other === null;
    },

    /**
     * Keyset page of the page items (no parent) opened in snapshot `seq` and open still, with the
     * URL of each page: what a first build that completes an interrupted one announces of the
     * versions the interrupted one wrote. `limit + 1` rows tell whether more follow.
     */
    async pagesOpenedIn(
      seq: number,
      after: string,
      limit: number,
    ): Promise<{ itemId: string; url: string }[]> {
      const rows = (await query().findMany({
        where: {
          seq_from: seq,
          seq_to: OPEN_SNAPSHOT,
          parent_item: { $null: true },
          ...keysetFilters(after, {}),
        },
        orderBy: { item_id: 'asc' },
        limit: limit + 1,
        select: ['item_id', 'seq_from', 'data_ref', 'data_body', 'data', 'checksum'],
      })) as Row[];
      const texts = await textsOf(rows, 'data_ref');
      return rows.map((row) => {
        const data = dataOf(row, texts, false);
        return { itemId: String(row.item_id), url: String(data.signals?.canonical ?? data.url) };
      });
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
      // Versions of states read from rows that still carry their texts inline store them now.
      const inline = versions.flatMap((v) =>
        'data' in v.stored ? [JSON.stringify(v.stored.data), v.stored.content] : [],
      );
      const keys = await blobs.put(inline);
      let next = 0;
      const refsOf = (v: NewItemVersion) =>
        'data' in v.stored ? { dataRef: keys[next++]!, contentRef: keys[next++]! } : v.stored;
      await bulkInsert(
        strapi,
        ITEM_VERSION_UID,
        versions.map((v) => ({
          item_id: v.itemId,
          seq_from: v.seqFrom,
          seq_to: OPEN_SNAPSHOT,
          item_type: v.type,
          lang: v.lang,
          parent_item: v.parent ?? null,
          source_uid: v.sourceUid,
          source_document: v.sourceDocument,
          ...storedStateColumns(v.state),
          stability_pin: v.stabilityPin ?? null,
          state_revision: v.stateRevision ?? null,
          ...((stored) => ({
            data_ref: 'dataRef' in stored ? stored.dataRef : null,
            data_body: 'dataBody' in stored ? stored.dataBody : null,
            content_ref: 'contentRef' in stored ? stored.contentRef : null,
            content_body: 'contentBody' in stored ? stored.contentBody : null,
          }))(refsOf(v)),
        })),
      );
    },

    /** Close versions: they stay valid for snapshots before `seq`. */
    async close(rowIds: readonly number[], seq: number): Promise<void> {
      for (let i = 0; i < rowIds.length; i += WRITE_BATCH) {
        await query().updateMany({
          where: { id: { $in: rowIds.slice(i, i + WRITE_BATCH) } },
          data: { seq_to: seq },
        });
      }
    },

    /**
     * Delete versions the build being made wrote and no snapshot has published (a first build's
     * version of an item published again while the build ran): closing one would leave an empty
     * range.
     */
    async discard(rowIds: readonly number[]): Promise<void> {
      for (let i = 0; i < rowIds.length; i += WRITE_BATCH)
        await query().deleteMany({ where: { id: { $in: rowIds.slice(i, i + WRITE_BATCH) } } });
    },

    /** Keyset page of snapshot S in item-id order; `limit + 1` rows tell whether more follow. */
    async page(q: PageQuery): Promise<ServedRow[]> {
      return servedPage({ ...validIn(q.snapshot), ...keysetFilters(q.after, q) }, q.limit);
    },

    /**
     * Delta of snapshot C since S (docs/protocol.md §5): versions valid in C opened after
     * S, in item-id order after `after`.
     */
    async openedSince(
      since: number,
      snapshot: number,
      q: Omit<PageQuery, 'snapshot'>,
    ): Promise<ServedRow[]> {
      return servedPage(
        {
          seq_from: { $gt: since, $lte: snapshot },
          seq_to: { $gt: snapshot },
          ...keysetFilters(q.after, q),
        },
        q.limit,
      );
    },

    /**
     * Tombstones of the delta of C since S: items whose version was closed in
     * (S, C] and that have no version valid in C, in item-id order after `after`.
     */
    async removedSince(
      since: number,
      snapshot: number,
      q: Omit<PageQuery, 'snapshot'>,
    ): Promise<{ itemId: string; removedIn: number }[]> {
      const result: { itemId: string; removedIn: number }[] = [];
      let after = q.after;
      while (result.length <= q.limit) {
        const where: Row = { seq_to: { $gt: since, $lte: snapshot } };
        Object.assign(where, keysetFilters(after, q));
        const rows = (await query().findMany({
          where,
          orderBy: [{ item_id: 'asc' }, { seq_to: 'desc' }],
          limit: q.limit + 1,
          select: ['item_id', 'seq_to'],
        })) as Row[];
        if (rows.length === 0) break;
        const closed = new Map<string, number>();
        for (const row of rows)
          if (!closed.has(String(row.item_id))) closed.set(String(row.item_id), Number(row.seq_to));
        const alive = (await query().findMany({
          where: { ...validIn(snapshot), item_id: { $in: [...closed.keys()] } },
          select: ['item_id'],
        })) as Row[];
        const aliveIds = new Set(alive.map((r) => String(r.item_id)));
        for (const [itemId, removedIn] of closed)
          if (!aliveIds.has(itemId)) result.push({ itemId, removedIn });
        after = String(rows[rows.length - 1]!.item_id);
        if (rows.length < q.limit + 1) break;
      }
      return result.slice(0, q.limit + 1);
    },

    /**
     * Keyset page of every item valid in snapshot S with its type, source type and parent: what
     * the discovery documents fold into one policy per page. `limit + 1` rows tell whether more follow.
     * Their data comes without its citation built (they read licences, usages, titles and URLs).
     */
    async policyPage(snapshot: number, after: string, limit: number): Promise<PolicyRow[]> {
      const rows = (await query().findMany({
        where: { ...validIn(snapshot), ...keysetFilters(after, {}) },
        orderBy: { item_id: 'asc' },
        limit: limit + 1,
        select: POLICY_FIELDS,
      })) as Row[];
      return toPolicyRows(rows, await textsOf(rows, 'data_ref'));
    },

    /**
     * The pages (article items' ids) whose item or any of whose fragments changed from snapshot
     * `from` to `to`: a version opened or closed in (from, to]. Null when the versions that changed
     * are more than `limit` (the caller reads the snapshot whole instead). The versions closed in
     * that range must still be stored: `from` no older than the oldest retained snapshot.
     */
    async pagesChangedBetween(from: number, to: number, limit: number): Promise<string[] | null> {
      // Opened and closed read apart, each by its own index (an OR of the two ranges may be
      // planned as a scan of the whole table).
      const rows: Row[] = [];
      for (const column of ['seq_from', 'seq_to']) {
        rows.push(
          ...((await query().findMany({
            where: { [column]: { $gt: from, $lte: to } },
            limit: limit + 1 - rows.length,
            select: ['item_id', 'item_type', 'parent_item'],
          })) as Row[]),
        );
        if (rows.length > limit) return null;
      }
      const pages = new Set<string>();
      for (const row of rows) {
        if (row.item_type === 'article') pages.add(String(row.item_id));
        else if (row.parent_item) pages.add(String(row.parent_item));
      }
      return [...pages];
    },

    /**
     * What policyPage reads, for these pages only: each one's item and its fragments valid in
     * snapshot S, in id order, a bounded list of pages a statement.
     */
    async policyOfPages(snapshot: number, pageIds: readonly string[]): Promise<PolicyRow[]> {
      const result: PolicyRow[] = [];
      for (let i = 0; i < pageIds.length; i += WRITE_BATCH) {
        const ids = pageIds.slice(i, i + WRITE_BATCH);
        const rows = (await query().findMany({
          where: {
            ...validIn(snapshot),
            $or: [{ item_id: { $in: ids } }, { parent_item: { $in: ids } }],
          },
          orderBy: { item_id: 'asc' },
          select: POLICY_FIELDS,
        })) as Row[];
        result.push(...toPolicyRows(rows, await textsOf(rows, 'data_ref')));
      }
      return result;
    },

    /** Page items of snapshot S with their canonical text, in id order after `after`. */
    async pageContents(
      snapshot: number,
      after: string,
      limit: number,
    ): Promise<(ServedRow & { checksum: string; content: string })[]> {
      const rows = (await query().findMany({
        where: { ...validIn(snapshot), ...keysetFilters(after, { type: 'article' }) },
        orderBy: { item_id: 'asc' },
        limit: limit + 1,
        select: [...SERVED_FIELDS, 'content_ref', 'content_body', 'content'],
      })) as Row[];
      const texts = await textsOf(rows, 'data_ref', 'content_ref');
      return rows.map((row) => ({
        ...toServed(row, texts),
        checksum: checksumOf(row.checksum),
        content: contentOf(row, texts),
      }));
    },

    /** The fragments of a page valid in snapshot S, in id order. */
    async childrenOf(snapshot: number, parentId: string): Promise<ServedRow[]> {
      const rows = (await query().findMany({
        where: { ...validIn(snapshot), parent_item: parentId },
        orderBy: { item_id: 'asc' },
        select: SERVED_FIELDS,
      })) as Row[];
      const texts = await textsOf(rows, 'data_ref');
      return rows.map((row) => toServed(row, texts));
    },

    async findServed(snapshot: number, itemId: string): Promise<ServedRow | null> {
      const row = (await query().findOne({
        where: { ...validIn(snapshot), item_id: itemId },
        select: SERVED_FIELDS,
      })) as Row | null;
      return row ? toServed(row, await textsOf([row], 'data_ref')) : null;
    },

    async findContent(
      snapshot: number,
      itemId: string,
    ): Promise<{ checksum: string; content: string } | null> {
      const row = (await query().findOne({
        where: { ...validIn(snapshot), item_id: itemId },
        select: ['item_id', 'seq_from', 'checksum', 'content_ref', 'content_body', 'content'],
      })) as Row | null;
      if (!row) return null;
      const texts = await textsOf([row], 'content_ref');
      return { checksum: checksumOf(row.checksum), content: contentOf(row, texts) };
    },

    /**
     * Type, version, checksum and source entry of items valid in snapshot S
     * (the access log and the readiness checklist name them without reading their data).
     */
    async describe(
      snapshot: number,
      itemIds: readonly string[],
    ): Promise<Map<string, ItemDescription>> {
      const result = new Map<string, ItemDescription>();
      const ids = [...new Set(itemIds)];
      for (let i = 0; i < ids.length; i += WRITE_BATCH) {
        const rows = (await query().findMany({
          where: { ...validIn(snapshot), item_id: { $in: ids.slice(i, i + WRITE_BATCH) } },
          select: [
            'item_id',
            'item_type',
            'lang',
            'source_uid',
            'source_document',
            'checksum',
            'content_version',
            'meta_version',
          ],
        })) as Row[];
        for (const row of rows) {
          result.set(String(row.item_id), {
            itemId: String(row.item_id),
            type: String(row.item_type),
            lang: String(row.lang),
            sourceUid: String(row.source_uid),
            sourceDocument: String(row.source_document),
            checksum: checksumOf(row.checksum),
            version: versionString({
              contentVersion: Number(row.content_version),
              metaVersion: Number(row.meta_version),
            }),
          });
        }
      }
      return result;
    },

    /** Garbage collection: versions closed before the oldest retained snapshot; how many went. */
    async collect(oldestKept: number): Promise<number> {
      const result = (await query().deleteMany({ where: { seq_to: { $lte: oldestKept } } })) as
        { count?: number } | undefined;
      return Number(result?.count ?? 0);
    },

    /** Where versions reference stored texts (what text collection must keep). */
    references(): { table: string; columns: readonly string[] } {
      return {
        table: strapi.db.metadata.get(ITEM_VERSION_UID).tableName,
        columns: ['data_ref', 'content_ref'],
      };
    },
  };
};

export type ItemRepository = ReturnType<typeof createItemRepository>;
