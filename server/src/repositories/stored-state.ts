import { META_HASH_LENGTH } from '../core/items';
import type { StoredItemState } from '../core/types';
import { parseJson } from './json';

type Row = Record<string, unknown>;

/**
 * A row's change history. Left empty while it is the one change that first published the item (a
 * history of its modification time alone: every item of a first build), and read back as that.
 */
export function historyOf(row: Row): string[] {
  return row.history === null || row.history === undefined
    ? [String(row.modified_at)]
    : parseJson<string[]>(row.history, []);
}

/**
 * The version columns that item versions and tracked fragment states both
 * store (checksum, versions, dates, change history): one mapping for both tables.
 */
export function storedStateOf(row: Row): StoredItemState {
  return {
    checksum: String(row.checksum),
    // Earlier releases stored the whole SHA-256 in hex: its first characters are today's hash.
    metaHash: String(row.meta_hash).slice(0, META_HASH_LENGTH),
    contentVersion: Number(row.content_version),
    metaVersion: Number(row.meta_version),
    modified: String(row.modified_at),
    firstPublished: String(row.first_published ?? row.modified_at),
    history: historyOf(row),
  };
}

export function storedStateColumns(state: StoredItemState): Row {
  return {
    checksum: state.checksum,
    meta_hash: state.metaHash,
    content_version: state.contentVersion,
    meta_version: state.metaVersion,
    modified_at: state.modified,
    // Left empty while it is the modification time (an item not changed since it was first
    // published: every item of a first build), as rows read it back: 24 characters less per row.
    first_published: state.firstPublished === state.modified ? null : state.firstPublished,
    history:
      state.history.length === 1 && state.history[0] === state.modified ? null : state.history,
  };
}
