import type { StoredItemState } from '../core/types';
import { parseJson } from './json';

type Row = Record<string, unknown>;

/**
 * The version columns that item versions and tracked fragment states both
 * store (checksum, versions, dates, change history): one mapping for both tables.
 */
export function storedStateOf(row: Row): StoredItemState {
  return {
    checksum: String(row.checksum),
    metaHash: String(row.meta_hash),
    contentVersion: Number(row.content_version),
    metaVersion: Number(row.meta_version),
    modified: String(row.modified_at),
    firstPublished: String(row.first_published ?? row.modified_at),
    history: parseJson<string[]>(row.history, []),
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
    history: state.history,
  };
}
