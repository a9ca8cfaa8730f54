import type { Core } from '@strapi/strapi';
import type { AliasRecord, ChangelogRecord, StateWrite, TrackedState } from '../core/tracking';
import { impliedAddedEntry } from '../core/tracking';
import type { ChangelogEntry, ManifestItem } from '../core/types';
import { WRITE_BATCH, optionalNumber, parseJson } from './json';
import { bulkInsert, inCallersTransaction, insertRows } from './bulk';
import { type EncodedContent, createBlobRepository } from './blob-repository';
import { decodeBlob } from './blob-codec';
import { createPluginStoreRepository } from './plugin-store-repository';
import { ITEM_VERSION_UID } from './item-repository';
import { itemColumns } from './models';
import { readStoredItem } from '../core/items';
import {
  checksumOf,
  metaHashOf,
  storedChecksum,
  storedStateColumns,
  storedStateOf,
} from './stored-state';
import { turnEventLoop } from '../utils/event-loop';
import { messageOf } from '../core/errors';

export const FRAGMENT_STATE_UID = 'plugin::sitemap-ai.fragment-state' as const;
export const CHANGELOG_UID = 'plugin::sitemap-ai.changelog-entry' as const;
export const ALIAS_UID = 'plugin::sitemap-ai.alias' as const;
export const SOURCE_HASH_UID = 'plugin::sitemap-ai.source-hash' as const;
export const PENDING_STATE_UID = 'plugin::sitemap-ai.pending-state' as const;
/** The plugin-store key set once the pending marks of earlier releases were moved (see models.ts). */
const PENDING_MOVED_KEY = 'pending-marks-moved';

/**
 * What a document's states were compared with in a write: the hash of its entries and of the
 * settings that shape its items, or null when the write was not a whole comparison of them.
 */
export interface ComparedSource {
  uid: string;
  documentId: string;
  hash: string | null;
}

/** Documents a page of `liveDocuments` lists. */
const LIVE_PAGE = 1000;

/** Longest alias chain followed (a renamed heading renamed again …). */
const MAX_ALIAS_HOPS = 10;

type Row = Record<string, unknown>;

/** Another writer changed a state between our read and our write: the caller retries. */
export class StateConflictError extends Error {
  constructor(itemId: string) {
    super(`fragment state "${itemId}" was changed concurrently`);
    this.name = 'StateConflictError';
  }
}

/**
 * A tracked state as read, with the keys of its stored data and text (absent on rows of 0.x), or
 * its data and text as kept in its row (`dataInRow`, `contentInRow`, still encoded: a first
 * build's, read from its version).
 */
export type StoredTrackedState = TrackedState & {
  pending: boolean;
  dataRef?: string;
  dataInRow?: Buffer | string;
  contentRef?: string;
  contentInRow?: Buffer | string;
};

/**
 * What a comparison must know of a state to tell that a document still publishes its item
 * unchanged (tracker.ts `unchangedKeys`): the state without its versions, dates, history,
 * reason and texts (`keysForDocuments`).
 */
export type StateKeyRow = Pick<
  StoredTrackedState,
  | 'itemId'
  | 'type'
  | 'lang'
  | 'sourceDocument'
  | 'removed'
  | 'checksum'
  | 'metaHash'
  | 'pending'
  | 'policyPrint'
>;

/** A state's wait for the next build: the policy it was computed under (absent: unknown). */
interface Waiting {
  print?: string;
}

/** The pending row of a state, as the state reads it. */
function toWaiting(row: Row): Waiting {
  return row.policy_print ? { print: String(row.policy_print) } : {};
}

/**
 * Which stored texts a read needs: the builder never looks at the canonical text. `publish` is
 * the builder's read: the data is decoded on each use and not kept. The builder reads it once per
 * state and keeps what it needs (licence, usage, page); a kept copy lived as long as its state,
 * across the batch's queries, long enough for V8 to move it to the old generation, where a 10k
 * site's build left hundreds of MB of such garbage before a full collection.
 */
type Load = 'data' | 'all' | 'publish' | 'later';

/** What a state read from a row decodes on first use (a member of the state no spread copies). */
interface LazyTexts {
  load: Load;
  /** The stored bodies of its refs, still encoded (absent: not stored). */
  dataBody: Buffer | string | undefined;
  contentBody: Buffer | string | undefined;
  /** Data and text of rows written before texts were stored by key. */
  inlineData: unknown;
  inlineContent: unknown;
  data?: ManifestItem;
  content?: string;
}

const LAZY = Symbol('sitemap-ai.lazy-texts');

type LazyState = StoredTrackedState & { [LAZY]: LazyTexts };

/**
 * The `data` and `content` of a state read from a row: own enumerable accessors (a spread or
 * extend() of the state copies their values), the same two functions for every state. A state
 * whose accessors were closures of its own had a hidden class of its own too: 1.8 KB a state
 * instead of under 300 B, and the garbage a 10k first build left to V8's full collections.
 */
const LAZY_ACCESSORS: PropertyDescriptorMap = {
  data: {
    enumerable: true,
    get(this: LazyState): ManifestItem {
      const lazy = this[LAZY];
      if (lazy.data) return lazy.data;
      if (lazy.load === 'later') throw new Error('the stored texts of this state were not read');
      const text = this.dataRef
        ? lazy.dataBody === undefined
          ? '{}'
          : decodeBlob(lazy.dataBody)
        : this.dataInRow
          ? decodeBlob(this.dataInRow)
          : null;
      const stored = parseJson<ManifestItem>(text ?? lazy.inlineData, {} as ManifestItem);
      // A build reads a state's licence, usage and page, and publishes its stored text by key:
      // it leaves the citation as stored (core/items.ts `readStoredItem`), unbuilt.
      if (lazy.load === 'publish') return readStoredItem(stored, this.checksum, false);
      return (lazy.data = readStoredItem(stored, this.checksum));
    },
  },
  content: {
    enumerable: true,
    get(this: LazyState): string {
      const lazy = this[LAZY];
      // (a text kept in the row was read with it, whatever the load)
      if (!this.contentRef)
        return this.contentInRow
          ? (lazy.content ??= decodeBlob(this.contentInRow))
          : String(lazy.inlineContent ?? '');
      if (lazy.load !== 'all')
        throw new Error(
          lazy.load === 'later'
            ? 'the stored texts of this state were not read'
            : 'the canonical text of this state was not read',
        );
      return (lazy.content ??= lazy.contentBody === undefined ? '' : decodeBlob(lazy.contentBody));
    },
  },
};

/** A row's `removed`, as any driver gives a boolean. */
const removedOf = (row: Row): boolean =>
  row.removed === true || row.removed === 1 || row.removed === '1';

/**
 * A state row, its data and text decoded on first use from `bodies` (stored texts by key); rows
 * written before texts were stored by key carry them inline.
 */
function toState(
  row: Row,
  bodies: ReadonlyMap<string, Buffer | string>,
  load: Load,
  pending: Waiting | undefined,
): StoredTrackedState {
  const dataRef = row.data_ref ? String(row.data_ref) : undefined;
  const contentRef = row.content_ref ? String(row.content_ref) : undefined;
  const stored = storedStateOf(row);
  const state = {
    itemId: String(row.item_id),
    type: String(row.item_type),
    lang: String(row.lang),
    parent: row.parent_item ? String(row.parent_item) : undefined,
    sourceUid: String(row.source_uid),
    sourceDocument: String(row.source_document),
    checksum: stored.checksum,
    metaHash: stored.metaHash,
    contentVersion: stored.contentVersion,
    metaVersion: stored.metaVersion,
    modified: stored.modified,
    firstPublished: stored.firstPublished,
    history: stored.history,
    stabilityPin: optionalNumber(row.stability_pin),
    removed: removedOf(row),
    revision: Number(row.revision),
    pending: pending !== undefined,
    reason: row.reason ? String(row.reason) : undefined,
    policyPrint: pending?.print,
    addedAt:
      row.added_at === null || row.added_at === undefined
        ? undefined
        : new Date(Number(row.added_at)).toISOString(),
    dataRef,
    dataInRow: dataRef || !row.data_body ? undefined : (row.data_body as Buffer | string),
    contentRef,
    contentInRow:
      contentRef || !row.content_body ? undefined : (row.content_body as Buffer | string),
  } satisfies Omit<StoredTrackedState, 'data' | 'content'>;
  const lazy: LazyTexts = {
    load,
    dataBody: dataRef ? bodies.get(dataRef) : undefined,
    contentBody: contentRef && load === 'all' ? bodies.get(contentRef) : undefined,
    inlineData: dataRef ? undefined : row.data,
    inlineContent: contentRef ? undefined : row.content,
  };
  Object.defineProperty(state, LAZY, { value: lazy });
  return Object.defineProperties(state, LAZY_ACCESSORS) as unknown as StoredTrackedState;
}

/**
 * The columns a state published by a first build leaves to its version (README "Storage"): the
 * first build writes each such state and its version of snapshot 1 in one transaction, with the
 * same values, and the version holds them for as long as the state stays at that revision (any
 * change rewrites the whole state). At 10k articles that was 140k rows of about 170 bytes each
 * held twice. A state row without a checksum takes these from the version made at its revision.
 */
const FROM_VERSION: readonly string[] = Object.keys(itemColumns()).filter(
  // (what says where the item comes from is the state's own; the inline texts of rows of 0.x are
  // never written again)
  (column) =>
    !['item_type', 'lang', 'source_uid', 'source_document', 'data', 'content'].includes(column),
);

/** A state row that takes FROM_VERSION from its version (see there). */
const takesFromVersion = (row: Row) => row.checksum === null || row.checksum === undefined;

/**
 * Fill in, in place, a slim state row's `columns` (of FROM_VERSION) from `version`, the version of
 * its item made at its revision, whose values are under `prefix` + the column's name (a joined
 * read's row names them so); a column the state set since keeps its own value. A state whose
 * version is not stored is refused: nothing is made up for its fields.
 */
function takeFromVersion(
  row: Row,
  version: Row | undefined,
  columns: readonly string[],
  prefix = '',
): void {
  if (!version)
    throw new Error(
      `the state of ${String(row.item_id)} takes its fields from its version of revision ${Number(row.revision)}, which is not stored`,
    );
  for (const column of columns) row[column] ??= version[`${prefix}${column}`];
}

/** A state's columns that are its own whether or not it takes FROM_VERSION from its version. */
const OWN_COLUMNS: readonly string[] = [
  'id',
  ...Object.keys(itemColumns()).filter((column) => !FROM_VERSION.includes(column)),
  'item_id',
  'removed',
  'revision',
  'reason',
  'added_at',
];

/** Item ids whose versions one statement of statesOfDocuments looks up (SQLite binds ≤ 32,766). */
const VERSION_LOOKUP = 2_000;

/** The columns keysForDocuments reads (of the state, and of its version when it is slim). */
const KEY_COLUMNS = {
  own: ['id', 'item_id', 'item_type', 'lang', 'source_document', 'removed', 'revision'],
  fromVersion: ['checksum', 'meta_hash'],
} as const;

/**
 * Columns of a slim state's version in a joined read (statesOfDocuments on SQLite): its
 * `seq_from`, and each FROM_VERSION column under this prefix.
 */
const VERSION_SEQ = 'version_seq_from';
const VERSION_PREFIX = 'version_';

/** Columns of a state's pending row in a joined read (statesOfDocuments). */
const PENDING_ITEM = 'pending_item_id';
const PENDING_PRINT = 'pending_policy_print';

/** The pending row joined to a state's row (statesOfDocuments), or undefined when it has none. */
function joinedWaiting(row: Row): Waiting | undefined {
  return row[PENDING_ITEM] === null || row[PENDING_ITEM] === undefined
    ? undefined
    : toWaiting({ policy_print: row[PENDING_PRINT] });
}

/**
 * A state's row; without `refs` that of a state published in the transaction that writes it, its
 * own columns only (the rest, FROM_VERSION, are its version's).
 */
function toRow(state: TrackedState, refs: { data: string; content: string } | null): Row {
  const own: Row = {
    item_id: state.itemId,
    item_type: state.type,
    lang: state.lang,
    source_uid: state.sourceUid,
    source_document: state.sourceDocument,
    removed: state.removed,
    revision: state.revision,
    reason: state.reason ?? null,
    added_at: state.addedAt === undefined ? null : Date.parse(state.addedAt),
  };
  if (!refs) return own;
  return {
    ...own,
    parent_item: state.parent ?? null,
    ...storedStateColumns(state),
    stability_pin: state.stabilityPin ?? null,
    data_ref: refs.data,
    data_body: null,
    content_ref: refs.content,
    content_body: null,
    data: null,
    content: null,
  };
}

function toChangelogRow(entry: ChangelogRecord): Row {
  return {
    item_id: entry.itemId,
    at: entry.at,
    version: entry.version,
    kind: entry.kind,
    desc: entry.desc,
    checksum_before: entry.checksumBefore === null ? null : storedChecksum(entry.checksumBefore),
    checksum_after: entry.checksumAfter === null ? null : storedChecksum(entry.checksumAfter),
  };
}

/** A changelog entry as stored: the item's change, not which entry it came from (nothing reads that). */
export type StoredChangelogEntry = Omit<ChangelogRecord, 'sourceUid' | 'sourceDocument' | 'lang'>;

function toChangelogEntry(row: Row): StoredChangelogEntry {
  return {
    itemId: String(row.item_id),
    at: String(row.at),
    version: String(row.version),
    kind: String(row.kind) as ChangelogRecord['kind'],
    desc: String(row.desc ?? ''),
    checksumBefore: row.checksum_before ? checksumOf(row.checksum_before) : null,
    checksumAfter: row.checksum_after ? checksumOf(row.checksum_after) : null,
  };
}

/**
 * Tracked fragment states and their changelog (docs/protocol.md §3.1): the only code that
 * touches those tables. Writes are optimistic: a state is only replaced if it
 * still has the revision that was read, so concurrent trackers never lose or
 * duplicate a change.
 */
export const createStateRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const states = () => strapi.db.query(FRAGMENT_STATE_UID);
  const changelog = () => strapi.db.query(CHANGELOG_UID);
  const sourceHashes = () => strapi.db.query(SOURCE_HASH_UID);
  const aliases = () => strapi.db.query(ALIAS_UID);
  const pendingStates = () => strapi.db.query(PENDING_STATE_UID);
  const tableOf = (uid: string) => strapi.db.metadata.get(uid).tableName;
  const blobs = createBlobRepository({ strapi });

  /** A subquery for the pending row of each row of the states table (for EXISTS / NOT EXISTS). */
  function pendingRowOfState() {
    const knex = strapi.db.connection;
    const stateTable = tableOf(FRAGMENT_STATE_UID);
    const pendingTable = tableOf(PENDING_STATE_UID);
    return knex(pendingTable)
      .select(knex.raw('1'))
      .whereRaw('??.?? = ??.??', [pendingTable, 'item_id', stateTable, 'item_id']);
  }

  /**
   * State rows with the stored texts they reference (`load`: which of them) and, for those that
   * wait for the next build, their pending rows by item id.
   */
  async function withTexts(
    rows: Row[],
    load: Load,
    pending: ReadonlyMap<string, Waiting>,
  ): Promise<StoredTrackedState[]> {
    await fromVersions(rows);
    const bodies =
      load === 'later'
        ? new Map<string, Buffer | string>()
        : await blobs.getEncoded(
            rows.flatMap((row) =>
              load === 'all' ? [row.data_ref, row.content_ref] : [row.data_ref],
            ),
          );
    return rows.map((row) => toState(row, bodies, load, pending.get(String(row.item_id))));
  }

  /**
   * Fill in, in place, the columns (`columns`, of FROM_VERSION) the rows of states published by a
   * first build take from their versions: the version of the item made at the state's revision,
   * the newest if there were several, looked up by item id a bounded list at a time, its values as
   * the database gives them (toState reads any driver's numbers and JSON). A column the state set
   * since (`invalidate`) keeps its own value.
   */
  async function fromVersions(
    rows: Row[],
    columns: readonly string[] = FROM_VERSION,
  ): Promise<void> {
    const slim = rows.filter(takesFromVersion);
    const versionTable = tableOf(ITEM_VERSION_UID);
    for (let i = 0; i < slim.length; i += VERSION_LOOKUP) {
      const part = slim.slice(i, i + VERSION_LOOKUP);
      const versions = (await inCallersTransaction(strapi, (knex) =>
        knex(versionTable)
          .select('item_id', 'state_revision', 'seq_from', ...columns)
          .whereIn(
            'item_id',
            part.map((row) => String(row.item_id)),
          ),
      )) as Row[];
      const made = new Map<string, Row>();
      for (const version of versions) {
        const key = `${String(version.item_id)}\0${Number(version.state_revision)}`;
        const seen = made.get(key);
        if (!seen || Number(version.seq_from) > Number(seen.seq_from)) made.set(key, version);
      }
      for (const row of part)
        takeFromVersion(row, made.get(`${String(row.item_id)}\0${Number(row.revision)}`), columns);
    }
  }

  /**
   * The state rows of these documents, each with its pending row's columns (PENDING_ITEM, null
   * when it has none) and, when it takes FROM_VERSION from its version, those filled in: one
   * statement of the states joined with their pending rows, and one of the versions of the states
   * that take their fields from them (by item id, a bounded list at a time), its rows as the
   * database gives them (toState reads any driver's booleans, numbers and JSON). Through the
   * entity manager that was a query of the states, one of their pending rows and one of their
   * versions per 200 items, each row converted column by column: a re-compare of every document of
   * a 10k site spent 2 s of its main thread there. The versions are joined in the same statement
   * on SQLite only: PostgreSQL planned that join for a batch of 100 documents as a scan of the
   * whole versions table (or a parallel plan whose workers took 80 ms to start), 90 ms a statement
   * and 9 of the 13 s of that re-compare; SQLite looks each version up by the item id index either
   * way, and the join spares it the second statement's list of 1,400 ids to bind and parse (a
   * 10k site's keys read by batches of 100 documents, in better-sqlite3 alone: 1.0–1.1 s in two
   * statements a batch, 0.72–0.74 s joined). Only the columns a state is read with are selected (each
   * value of each row becomes a property of an object in JavaScript: 26 columns, not the 40 of
   * both rows).
   */
  async function statesOfDocuments(
    uid: string,
    documentIds: readonly string[],
    columns: { own: readonly string[]; fromVersion: readonly string[] } = {
      own: OWN_COLUMNS,
      fromVersion: FROM_VERSION,
    },
  ): Promise<Row[]> {
    const stateTable = tableOf(FRAGMENT_STATE_UID);
    const pendingTable = tableOf(PENDING_STATE_UID);
    const versionTable = tableOf(ITEM_VERSION_UID);
    const joined = strapi.db.dialect.client === 'sqlite';
    const rows = (await inCallersTransaction(strapi, (knex) => {
      const query = knex(stateTable)
        .leftJoin(pendingTable, `${pendingTable}.item_id`, `${stateTable}.item_id`)
        .select(
          ...[...columns.own, ...columns.fromVersion].map((column) => `${stateTable}.${column}`),
          `${pendingTable}.item_id as ${PENDING_ITEM}`,
          `${pendingTable}.policy_print as ${PENDING_PRINT}`,
        )
        .where(`${stateTable}.source_uid`, uid)
        .whereIn(`${stateTable}.source_document`, [...documentIds]);
      if (!joined) return query;
      // (a state that holds its fields joins no version: only a slim one, at its revision)
      return query
        .leftJoin(versionTable, function joinVersion() {
          this.on(`${versionTable}.item_id`, '=', `${stateTable}.item_id`)
            .andOn(`${versionTable}.state_revision`, '=', `${stateTable}.revision`)
            .andOnNull(`${stateTable}.checksum`);
        })
        .select(
          `${versionTable}.seq_from as ${VERSION_SEQ}`,
          ...columns.fromVersion.map(
            (column) => `${versionTable}.${column} as ${VERSION_PREFIX}${column}`,
          ),
        );
    })) as Row[];
    if (!joined) {
      await fromVersions(rows, columns.fromVersion);
      return rows;
    }
    return fromJoinedVersions(rows, columns.fromVersion);
  }

  /**
   * The rows of statesOfDocuments' joined read, one per state: a slim state's FROM_VERSION
   * columns (`columns` of them) filled in from its version's, those of the newest if several were
   * made at its revision, as fromVersions fills them; its version's columns left in the row under
   * their prefixed names (read by nothing).
   */
  function fromJoinedVersions(rows: Row[], columns: readonly string[]): Row[] {
    const states: Row[] = [];
    const at = new Map<unknown, number>();
    for (const row of rows) {
      const seen = at.get(row.item_id);
      if (seen === undefined) {
        at.set(row.item_id, states.push(row) - 1);
        continue;
      }
      if (Number(row[VERSION_SEQ]) > Number(states[seen]![VERSION_SEQ])) states[seen] = row;
    }
    for (const row of states) {
      if (!takesFromVersion(row)) continue;
      const joined = row[VERSION_SEQ] === null || row[VERSION_SEQ] === undefined ? undefined : row;
      takeFromVersion(row, joined, columns, VERSION_PREFIX);
    }
    return states;
  }

  /** Delete the changelog rows whose ids `select` finds, a bounded batch at a time; returns how many went. */
  async function deleteInBatches(select: () => Promise<{ id: number }[]>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = (await select()).map((row) => Number(row.id));
      if (ids.length === 0) return deleted;
      await changelog().deleteMany({ where: { id: { $in: ids } } });
      deleted += ids.length;
      await turnEventLoop();
    }
  }
  return {
    /** Where states reference stored texts (what text collection must keep). */
    references(): { table: string; columns: readonly string[] } {
      return {
        table: tableOf(FRAGMENT_STATE_UID),
        columns: ['data_ref', 'content_ref'],
      };
    },

    /** Follow the alias map from an old id to the newest id (null when `id` is not an alias). */
    async resolveAlias(id: string): Promise<string | null> {
      let current = id;
      for (let hop = 0; hop < MAX_ALIAS_HOPS; hop += 1) {
        const row = (await aliases().findOne({
          where: { old_id: current },
          select: ['new_id'],
        })) as Row | null;
        if (!row) break;
        current = String(row.new_id);
      }
      return current === id ? null : current;
    },

    /**
     * The states of these documents' items. With `texts: 'later'` their data and canonical text
     * are not read yet: `readTexts` reads them for the states that need them, and reading either
     * from a state before that throws.
     */
    async forDocuments(
      uid: string,
      documentIds: readonly string[],
      { texts = 'now' }: { texts?: 'now' | 'later' } = {},
    ): Promise<StoredTrackedState[]> {
      const result: StoredTrackedState[] = [];
      for (let i = 0; i < documentIds.length; i += WRITE_BATCH) {
        const rows = await statesOfDocuments(uid, documentIds.slice(i, i + WRITE_BATCH));
        const pending = new Map<string, Waiting>();
        for (const row of rows) {
          const waiting = joinedWaiting(row);
          if (waiting) pending.set(String(row.item_id), waiting);
        }
        result.push(...(await withTexts(rows, texts === 'now' ? 'all' : 'later', pending)));
      }
      return result;
    },

    /**
     * The keys of these documents' states (StateKeyRow): read per batch of documents as
     * forDocuments reads them (statesOfDocuments), 9 of its 26 columns and nothing decoded. A
     * re-compare of every document of a 10k site that finds nothing changed read each state whole
     * (1.5 s of its main thread for 140k states) only to compare two hashes.
     */
    async keysForDocuments(uid: string, documentIds: readonly string[]): Promise<StateKeyRow[]> {
      const result: StateKeyRow[] = [];
      for (let i = 0; i < documentIds.length; i += WRITE_BATCH) {
        const rows = await statesOfDocuments(
          uid,
          documentIds.slice(i, i + WRITE_BATCH),
          KEY_COLUMNS,
        );
        for (const row of rows) {
          const waiting = joinedWaiting(row);
          result.push({
            itemId: String(row.item_id),
            type: String(row.item_type) as StateKeyRow['type'],
            lang: String(row.lang),
            sourceDocument: String(row.source_document),
            removed: removedOf(row),
            checksum: checksumOf(row.checksum),
            metaHash: metaHashOf(row.meta_hash),
            pending: waiting !== undefined,
            policyPrint: waiting?.print,
          });
        }
      }
      return result;
    },

    /**
     * Read the stored texts of states read without them (forDocuments' `texts: 'later'`), in
     * place: each then reads its data and canonical text as if read with them. Others are left
     * as they are. (A state another instance has moved since it was read may find its old texts
     * collected: whatever is compared with it, its write fails on the revision it expects.)
     */
    async readTexts(list: readonly StoredTrackedState[]): Promise<void> {
      const unread = list.filter((state) => (state as LazyState)[LAZY]?.load === 'later');
      if (unread.length === 0) return;
      const bodies = await blobs.getEncoded(
        unread.flatMap((state) => [state.dataRef, state.contentRef]),
      );
      for (const state of unread) {
        const lazy = (state as LazyState)[LAZY];
        lazy.dataBody = state.dataRef ? bodies.get(state.dataRef) : undefined;
        lazy.contentBody = state.contentRef ? bodies.get(state.contentRef) : undefined;
        lazy.load = 'all';
      }
    },

    /** The hashes these documents' states were last compared with (absent: none recorded). */
    async comparedHashes(
      uid: string,
      documentIds: readonly string[],
    ): Promise<Map<string, string>> {
      const result = new Map<string, string>();
      for (let i = 0; i < documentIds.length; i += WRITE_BATCH) {
        const rows = (await sourceHashes().findMany({
          select: ['source_document', 'hash'],
          where: {
            source_uid: uid,
            source_document: { $in: documentIds.slice(i, i + WRITE_BATCH) },
          },
        })) as Row[];
        for (const row of rows) result.set(String(row.source_document), String(row.hash));
      }
      return result;
    },

    /**
     * Documents with live (not removed) states, per content type, a keyset page at a time in
     * (type, document id) order: one row per document, not per state, and never the whole site's
     * at once (a re-compare of 100k documents held 100k of them at its end).
     *
     * Each type in turn, the next one found by a seek on the states' source index, then its
     * documents a page at a time. A page's condition names both columns of that index as one range
     * (`uid = ? and document > ?`), which every database reads from where the last page ended. The
     * same keyset written as one condition (`uid > ? or (uid = ? and document > ?)`) is no range:
     * PostgreSQL and SQLite read the index from its start for each page, filtering, so listing the
     * documents of 100k took time in the square of the site's size (a page halfway through 1.4M
     * states: 110 ms on PostgreSQL, 62 ms on SQLite, against 2.6 and 2.0 ms now).
     */
    async *liveDocuments(): AsyncGenerator<{ uid: string; documentId: string }> {
      const knex = strapi.db.connection;
      const table = tableOf(FRAGMENT_STATE_UID);
      let uid: string | null = null;
      for (;;) {
        const next = knex(table).min({ uid: 'source_uid' });
        if (uid !== null) next.where('source_uid', '>', uid);
        const [found] = (await next) as Row[];
        if (found?.uid === null || found?.uid === undefined) return;
        const type = String(found.uid);
        uid = type;
        let after: string | null = null;
        for (;;) {
          const page = knex(table)
            .distinct('source_document')
            .where('source_uid', type)
            .andWhere('removed', false);
          if (after !== null) page.andWhere('source_document', '>', after);
          const rows = (await page.orderBy('source_document', 'asc').limit(LIVE_PAGE)) as Row[];
          for (const row of rows) {
            after = String(row.source_document);
            yield { uid: type, documentId: after };
          }
          if (rows.length < LIVE_PAGE) break;
        }
      }
    },

    /**
     * States changed since the last snapshot, in item-id order after `after`, with their data
     * decoded on each use and not kept (read it once); their canonical text is not read: the
     * builder publishes it by its key.
     */
    async pending(limit: number, after = ''): Promise<StoredTrackedState[]> {
      const waiting = new Map(
        (
          (await pendingStates().findMany({
            select: ['item_id', 'policy_print'],
            where: after ? { item_id: { $gt: after } } : {},
            orderBy: { item_id: 'asc' },
            limit,
          })) as Row[]
        ).map((row) => [String(row.item_id), toWaiting(row)]),
      );
      if (waiting.size === 0) return [];
      const rows = (await states().findMany({
        where: { item_id: { $in: [...waiting.keys()] } },
        orderBy: { item_id: 'asc' },
      })) as Row[];
      return withTexts(rows, 'publish', waiting);
    },

    /** Documents with pending states computed under another policy than `print` (or an unknown one). */
    async stalePendingDocuments(print: string): Promise<{ uid: string; documentId: string }[]> {
      const pendingTable = tableOf(PENDING_STATE_UID);
      const rows = (await strapi.db
        .connection(tableOf(FRAGMENT_STATE_UID))
        .distinct('source_uid', 'source_document')
        .whereExists(
          pendingRowOfState().andWhere((where) =>
            where
              .whereNull(`${pendingTable}.policy_print`)
              .orWhereNot(`${pendingTable}.policy_print`, print),
          ),
        )) as Row[];
      return rows.map((row) => ({
        uid: String(row.source_uid),
        documentId: String(row.source_document),
      }));
    },

    /**
     * Forget what these states' metadata was (their hash), so that the next comparison with
     * their document writes them again: for states the policy check refused.
     */
    async invalidate(itemIds: readonly string[]): Promise<void> {
      for (let i = 0; i < itemIds.length; i += WRITE_BATCH) {
        await states().updateMany({
          where: { item_id: { $in: itemIds.slice(i, i + WRITE_BATCH) } },
          data: { meta_hash: 'refused-by-policy-check' },
        });
      }
    },

    async countPending(): Promise<number> {
      return Number(await pendingStates().count({}));
    },

    /** The earliest `modified_at` of the states changed since the last snapshot (null when none is pending). */
    async oldestPendingModified(): Promise<string | null> {
      const stateTable = tableOf(FRAGMENT_STATE_UID);
      const pendingTable = tableOf(PENDING_STATE_UID);
      const row = (await strapi.db
        .connection(pendingTable)
        .join(stateTable, `${stateTable}.item_id`, `${pendingTable}.item_id`)
        .min({ oldest: `${stateTable}.modified_at` })
        .first()) as { oldest?: unknown } | undefined;
      return row?.oldest ? String(row.oldest) : null;
    },

    /**
     * Move the pending marks of releases before pending states had a table of their own (a flag on
     * the state) into that table, once per database; nothing is published twice or left unbuilt.
     * The policy those states were computed under was a column of the states, gone with the schema
     * sync: they move without one, and the next build computes them again before publishing them.
     */
    async movePendingMarks(): Promise<void> {
      const store = createPluginStoreRepository({ strapi });
      if (await store.get<boolean>(PENDING_MOVED_KEY)) return;
      try {
        await strapi.db.transaction(async ({ trx }) => {
          const stateTable = tableOf(FRAGMENT_STATE_UID);
          const marked = (await trx(stateTable)
            .select('item_id', 'revision')
            .where('pending', true)) as Row[];
          // An instance starting at the same moment may have moved them first: its rows stay.
          await insertRows(
            trx,
            strapi.db.dialect.client,
            tableOf(PENDING_STATE_UID),
            ['item_id', 'revision'],
            marked.map((row) => [String(row.item_id), Number(row.revision)]),
            { on: 'item_id' },
          );
          await trx(stateTable).where('pending', true).update({ pending: false });
          if (marked.length > 0)
            strapi.log.info(
              `[sitemap-ai] ${marked.length} states waiting for the next build moved to their own table`,
            );
        });
        await store.set(PENDING_MOVED_KEY, true);
      } catch (error) {
        // Strapi starts all the same; the marks stay where they are until the next start moves them.
        strapi.log.error(
          `[sitemap-ai] states an earlier release left waiting for a build were not moved to their own table, tried again at the next start: ${messageOf(error)}`,
        );
      }
    },

    /** Forget that states still at the revision the builder published wait for a build. */
    async settle(published: readonly { itemId: string; revision: number }[]): Promise<void> {
      const byRevision = new Map<number, string[]>();
      for (const { itemId, revision } of published) {
        const ids = byRevision.get(revision);
        if (ids) ids.push(itemId);
        else byRevision.set(revision, [itemId]);
      }
      for (const [revision, ids] of byRevision) {
        for (let i = 0; i < ids.length; i += WRITE_BATCH) {
          await pendingStates().deleteMany({
            where: { item_id: { $in: ids.slice(i, i + WRITE_BATCH) }, revision },
          });
        }
      }
    },

    /**
     * Settle the states snapshot `seq` published as new versions, where the state is still at the
     * revision its version was made from: one statement however many there are.
     */
    async settleVersioned(seq: number): Promise<void> {
      const knex = strapi.db.connection;
      const pendingTable = tableOf(PENDING_STATE_UID);
      const versionTable = tableOf(ITEM_VERSION_UID);
      await knex(pendingTable)
        .whereExists(
          knex(versionTable)
            .select(knex.raw('1'))
            .whereRaw('??.?? = ??.??', [versionTable, 'item_id', pendingTable, 'item_id'])
            .andWhere(`${versionTable}.seq_from`, seq)
            .andWhereRaw('??.?? = ??.??', [
              versionTable,
              'state_revision',
              pendingTable,
              'revision',
            ]),
        )
        .delete();
    },

    /**
     * Before the versions of snapshot `seq` and later are discarded (a build that was not
     * published): the states that take their fields from one of them (a first build's, see
     * FROM_VERSION) are given those fields, so that none is left without them. Returns how many.
     */
    async keepFieldsOfVersionsFrom(seq: number): Promise<number> {
      const knex = strapi.db.connection;
      const stateTable = tableOf(FRAGMENT_STATE_UID);
      const versionTable = tableOf(ITEM_VERSION_UID);
      let kept = 0;
      for (;;) {
        const ids = (
          (await knex(stateTable)
            .join(versionTable, function joined() {
              this.on(`${versionTable}.item_id`, '=', `${stateTable}.item_id`).andOn(
                `${versionTable}.state_revision`,
                '=',
                `${stateTable}.revision`,
              );
            })
            .whereNull(`${stateTable}.checksum`)
            .andWhere(`${versionTable}.seq_from`, '>=', seq)
            .select(`${stateTable}.id`)
            .limit(WRITE_BATCH)) as { id: number }[]
        ).map((row) => Number(row.id));
        if (ids.length === 0) return kept;
        const rows = (await states().findMany({
          where: { id: { $in: ids }, checksum: { $null: true } },
        })) as Row[];
        // (none left: another instance gave them their fields meanwhile; the next read says so)
        if (rows.length === 0) continue;
        await fromVersions(rows);
        await strapi.db.transaction(async ({ trx }) => {
          for (const row of rows) {
            const data: Row = {};
            for (const column of FROM_VERSION) data[column] = row[column];
            // The data and text kept in the row as bytes, written as they are (the entity
            // manager would write them as JSON), while the state still takes its fields from its
            // version.
            const { data_body: dataBody, content_body: contentBody, ...rest } = data;
            const bytes: Row = {};
            if (dataBody !== null && dataBody !== undefined) bytes.data_body = dataBody;
            if (contentBody !== null && contentBody !== undefined) bytes.content_body = contentBody;
            if (Object.keys(bytes).length > 0)
              await trx(stateTable).where('id', Number(row.id)).whereNull('checksum').update(bytes);
            await states().updateMany({
              where: { id: row.id, checksum: { $null: true } },
              data: rest,
            });
          }
        });
        kept += rows.length;
        await turnEventLoop();
      }
    },

    /** Whether any state is recorded (none is before a site's first build). */
    async anyState(): Promise<boolean> {
      return (await states().findOne({ select: ['id'] })) !== null;
    },

    /**
     * Before the first snapshot every state waits for a build: the states without a pending row
     * (what a first build that published as it tracked wrote before it was interrupted) wait
     * again, under no known policy, so that the next build computes them again before it
     * publishes them. One statement.
     */
    async pendAllUnpublished(): Promise<void> {
      const knex = strapi.db.connection;
      const pendingTable = tableOf(PENDING_STATE_UID);
      await knex
        .into(knex.raw('?? (??, ??)', [pendingTable, 'item_id', 'revision']))
        .insert(
          knex(tableOf(FRAGMENT_STATE_UID))
            .select('item_id', 'revision')
            .whereNotExists(pendingRowOfState()),
        );
    },

    /** Whether any alias is recorded. */
    async anyAlias(): Promise<boolean> {
      return (await aliases().findOne({ select: ['id'] })) !== null;
    },

    /**
     * Whether the changelog table holds any row. (The entries states imply, see
     * `TrackedState.addedAt`, are of items that have a state.)
     */
    async anyChangelog(): Promise<boolean> {
      return (await changelog().findOne({ select: ['id'] })) !== null;
    },

    /** Recent changelog per item, newest first, at most `perItem` each. */
    async recentChangelog(
      itemIds: readonly string[],
      since: string,
      perItem: number,
    ): Promise<Map<string, ChangelogEntry[]>> {
      const result = new Map<string, ChangelogEntry[]>();
      for (let i = 0; i < itemIds.length; i += WRITE_BATCH) {
        const rows = (await changelog().findMany({
          where: { item_id: { $in: itemIds.slice(i, i + WRITE_BATCH) }, at: { $gte: since } },
          orderBy: [{ at: 'desc' }, { id: 'desc' }],
        })) as Row[];
        for (const row of rows) {
          const list = result.get(String(row.item_id)) ?? [];
          if (list.length < perItem)
            list.push({
              date: String(row.at),
              version: String(row.version),
              desc: String(row.desc ?? ''),
            });
          result.set(String(row.item_id), list);
        }
      }
      return result;
    },

    /**
     * Storage hygiene (README "Storage"): delete changelog entries written before `before` (ISO
     * time), except the latest `keepPerItem` of each item served in snapshot `latest`; the history
     * of an item no longer served goes whole. Returns how many entries went.
     */
    async collectChangelog(before: string, keepPerItem: number, latest: number): Promise<number> {
      const knex = strapi.db.connection;
      const log = tableOf(CHANGELOG_UID);
      const items = tableOf(ITEM_VERSION_UID);
      const stateTable = tableOf(FRAGMENT_STATE_UID);
      const BATCH = 2_000;
      // The entries states imply (TrackedState.addedAt) go by the same rules, first: each is its
      // item's oldest, so it is beyond the latest `keepPerItem` when the item has that many rows.
      const served = knex(items)
        .select(knex.raw('1'))
        .whereRaw('??.?? = ??.??', [items, 'item_id', stateTable, 'item_id'])
        .andWhere('seq_to', '>', latest);
      const rowsOfItem = knex(log)
        .count('*')
        .whereRaw('??.?? = ??.??', [log, 'item_id', stateTable, 'item_id']);
      const impliedGone = Number(
        await knex(stateTable)
          .whereNotNull('added_at')
          .andWhere('added_at', '<', Date.parse(before))
          .andWhere((old) =>
            old.whereNotExists(served).orWhere(knex.raw('(?) >= ?', [rowsOfItem, keepPerItem])),
          )
          .update({ added_at: null }),
      );
      // Items gone from the site: their history is not served (404), so none of it is kept.
      let deleted = await deleteInBatches(
        async () =>
          (await knex(log)
            .select('id')
            .where('at', '<', before)
            .whereNotExists(
              knex(items)
                .select(knex.raw('1'))
                .whereRaw('??.?? = ??.??', [items, 'item_id', log, 'item_id'])
                .andWhere('seq_to', '>', latest),
            )
            .limit(BATCH)) as { id: number }[],
      );
      // Served items: all but the latest `keepPerItem` of the old entries.
      deleted += await deleteInBatches(
        async () =>
          (await knex
            .select('id')
            .from(
              knex(log)
                .select(
                  'id',
                  'at',
                  knex.raw('ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ?? DESC) AS ??', [
                    'item_id',
                    'id',
                    'recency',
                  ]),
                )
                .as('ranked'),
            )
            .where('recency', '>', keepPerItem)
            .andWhere('at', '<', before)
            .limit(BATCH)) as { id: number }[],
      );
      return deleted + impliedGone;
    },

    /**
     * Storage hygiene: forget the states of items removed before `before` (ISO time) and not
     * waiting for a build; an item published again after that starts a new history at v1.0.
     */
    async collectRemovedStates(before: string): Promise<number> {
      const deleted = await strapi.db
        .connection(tableOf(FRAGMENT_STATE_UID))
        .where('removed', true)
        .andWhere('modified_at', '<', before)
        .whereNotExists(pendingRowOfState())
        .delete();
      return Number(deleted);
    },

    /**
     * Full history of one item, newest first, keyset-paged by row id; the entry its state stands
     * for (TrackedState.addedAt) comes last, as row 0.
     */
    async changelogPage(
      itemId: string,
      beforeRowId: number | null,
      limit: number,
    ): Promise<{ rowId: number; record: StoredChangelogEntry }[]> {
      const where: Row = { item_id: itemId };
      if (beforeRowId !== null) where.id = { $lt: beforeRowId };
      const rows = (await changelog().findMany({ where, orderBy: { id: 'desc' }, limit })) as Row[];
      const page = rows.map((row) => ({ rowId: Number(row.id), record: toChangelogEntry(row) }));
      // The entry the item's state implies is its oldest (any change since wrote it out), after
      // every row: row id 0.
      if (page.length < limit && (beforeRowId === null || beforeRowId > 0)) {
        const implying = (await states().findMany({
          where: { item_id: itemId, added_at: { $notNull: true } },
        })) as Row[];
        for (const state of await withTexts(implying, 'data', new Map()))
          page.push({
            rowId: 0,
            record: impliedAddedEntry(state as StoredTrackedState & { addedAt: string }),
          });
      }
      return page;
    },

    /**
     * Write states and changelog entries in one transaction; any state that is
     * not at its expected revision (or already exists when it should not)
     * aborts the whole write with StateConflictError.
     */
    async write(
      writes: readonly StateWrite[],
      entries: readonly ChangelogRecord[],
      renames: readonly AliasRecord[] = [],
      compared: readonly ComparedSource[] = [],
      {
        noAliases = false,
        published,
        encoded,
        encodedData,
      }: {
        /**
         * Canonical texts keyed and encoded already, by item id (a first build's, by the thread
         * that drafted them): used for a state of that item whose text is the same.
         */
        encoded?: ReadonlyMap<string, EncodedContent>;
        /**
         * Item data encoded already, by item id (a first build's fresh states', by the thread that
         * compared them): used for a state published now that holds that very object.
         */
        encodedData?: ReadonlyMap<string, { data: object; body: Buffer }>;
        /**
         * None of the states written existed and the aliases were empty when their comparison
         * began: an alias is made of a renamed item's id, whose state exists, so none of theirs
         * can be one (a first build writes no alias deletes).
         */
        noAliases?: boolean;
        /**
         * A first build publishing as it tracks: these states are made versions by `insert`, in
         * the same transaction, given the stored bodies of their data and canonical texts to keep
         * in the version's row, and wait for no build.
         */
        published?: {
          itemIds: ReadonlySet<string>;
          insert(
            refs: ReadonlyMap<string, { dataBody: Buffer; contentBody: Buffer }>,
          ): Promise<void>;
        };
      } = {},
    ): Promise<void> {
      if (writes.length === 0 && entries.length === 0 && compared.length === 0) return;
      // The texts' keys now; their bodies are encoded while the rows that need only the keys
      // are written, and stored last (rolled back with the states if these conflict).
      // Each state's data and canonical text, the text's key and body given when the thread made
      // them for this very text. The data of a state published now is kept in its version's row
      // instead (README "Storage"): no two versions of a first build share one, and as a stored
      // text each was a row and a random entry of the texts' key index more, and a hash.
      // The canonical text of a state published now is kept in its version's row too, as the
      // thread encoded it when it did (no key, no upsert, no entry of the texts' key index).
      const written: string[] = [];
      const given: (EncodedContent | undefined)[] = [];
      const inRow: string[] = [];
      /**
       * Per write: where its data's key (`data`) or body (`inRow`) comes; its text's key
       * (`content`), or its body: given (`contentBody`) or encoded with the data (`contentInRow`).
       */
      const places: {
        data: number;
        inRow: number;
        dataBody?: Buffer;
        content: number;
        contentInRow: number;
        contentBody?: Buffer;
      }[] = [];
      const place = (text: string, made?: EncodedContent) => {
        given.push(made);
        return written.push(text) - 1;
      };
      for (const { state } of writes) {
        const made = encoded?.get(state.itemId);
        const madeHere = made?.text === state.content ? made : undefined;
        const madeData = encodedData?.get(state.itemId);
        const dataBody = madeData?.data === state.data ? madeData.body : undefined;
        if (published?.itemIds.has(state.itemId) === true)
          places.push({
            data: -1,
            inRow: dataBody ? -1 : inRow.push(JSON.stringify(state.data)) - 1,
            dataBody,
            content: -1,
            contentInRow: madeHere ? -1 : inRow.push(state.content) - 1,
            contentBody: madeHere?.body,
          });
        else
          places.push({
            data: place(JSON.stringify(state.data)),
            inRow: -1,
            content: place(state.content, madeHere),
            contentInRow: -1,
          });
      }
      const texts = blobs.prepare(written, given);
      const bodiesInRow = blobs.inline(inRow);
      const keys = texts.keys;
      await strapi.db.transaction(async () => {
        // What the documents were compared with, replaced with the states written from it: a hash
        // is never left beside states another comparison wrote.
        const byUid = new Map<string, string[]>();
        for (const { uid, documentId } of compared) {
          const list = byUid.get(uid);
          if (list) list.push(documentId);
          else byUid.set(uid, [documentId]);
        }
        for (const [uid, documentIds] of byUid)
          for (let i = 0; i < documentIds.length; i += WRITE_BATCH)
            await sourceHashes().deleteMany({
              where: {
                source_uid: uid,
                source_document: { $in: documentIds.slice(i, i + WRITE_BATCH) },
              },
            });
        await bulkInsert(
          strapi,
          SOURCE_HASH_UID,
          compared.flatMap(({ uid, documentId, hash }) =>
            hash === null ? [] : [{ source_uid: uid, source_document: documentId, hash }],
          ),
        );
        const refsOf = (i: number) => {
          const { data, content } = places[i]!;
          if (data < 0) throw new Error('the data of a state published now is kept in its version');
          return { data: keys[data]!, content: keys[content]! };
        };
        // An id that is live again is no longer an alias; a renamed one becomes one.
        const live = writes.filter((w) => !w.state.removed).map((w) => w.state.itemId);
        const replaced = [...(noAliases ? [] : live), ...renames.map((r) => r.oldId)];
        for (let i = 0; i < replaced.length; i += WRITE_BATCH) {
          await aliases().deleteMany({
            where: { old_id: { $in: replaced.slice(i, i + WRITE_BATCH) } },
          });
        }
        for (const rename of renames) {
          await aliases().create({
            data: { old_id: rename.oldId, new_id: rename.newId, created: rename.at },
          });
        }
        // New states in multi-row inserts: the unique item id refuses one another tracker wrote first.
        // A state published in this transaction leaves to its version what they hold alike.
        const created = writes.flatMap((w, i) =>
          w.expectedRevision !== null
            ? []
            : [toRow(w.state, published?.itemIds.has(w.state.itemId) ? null : refsOf(i))],
        );
        if (created.length > 0) {
          try {
            await bulkInsert(strapi, FRAGMENT_STATE_UID, created);
          } catch {
            throw new StateConflictError(String(created[0]!.item_id));
          }
        }
        for (const [i, { state, expectedRevision }] of writes.entries()) {
          if (expectedRevision === null) continue;
          else {
            const result = (await states().updateMany({
              where: { item_id: state.itemId, revision: expectedRevision },
              data: toRow(state, refsOf(i)),
            })) as { count: number };
            if (Number(result.count) !== 1) throw new StateConflictError(state.itemId);
          }
        }
        // Each state written waits for the next build at its new revision (one published now, no build).
        const rewritten = writes.flatMap((w) =>
          w.expectedRevision === null ? [] : [w.state.itemId],
        );
        for (let i = 0; i < rewritten.length; i += WRITE_BATCH)
          await pendingStates().deleteMany({
            where: { item_id: { $in: rewritten.slice(i, i + WRITE_BATCH) } },
          });
        await bulkInsert(
          strapi,
          PENDING_STATE_UID,
          writes.flatMap(({ state }) =>
            published?.itemIds.has(state.itemId)
              ? []
              : [
                  {
                    item_id: state.itemId,
                    revision: state.revision,
                    policy_print: state.policyPrint ?? null,
                  },
                ],
          ),
        );
        await bulkInsert(strapi, CHANGELOG_UID, entries.map(toChangelogRow));
        // (last, as their data encoded meanwhile)
        if (published) {
          const made = await bodiesInRow;
          const refs = new Map<string, { dataBody: Buffer; contentBody: Buffer }>();
          writes.forEach(({ state }, i) => {
            const place = places[i]!;
            if (place.data < 0)
              refs.set(state.itemId, {
                dataBody: place.dataBody ?? made[place.inRow]!,
                contentBody: place.contentBody ?? made[place.contentInRow]!,
              });
          });
          await published.insert(refs);
        }
        await blobs.store(texts);
      });
    },
  };
};

export type StateRepository = ReturnType<typeof createStateRepository>;
