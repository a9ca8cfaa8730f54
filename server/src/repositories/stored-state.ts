import { CHECKSUM_PREFIX } from '../../../shared/constants';
import { PUBLIC_CHECKSUM } from '../core/canonical';
import { META_HASH_LENGTH } from '../core/items';
import type { StoredItemState } from '../core/types';
import { parseJson } from './json';

type Row = Record<string, unknown>;

const STORED_CHECKSUM = /^[A-Za-z0-9_-]{43}$/;

/**
 * A checksum as the plugin's tables store it: the 32 bytes of the SHA-256 in base64url (43
 * characters) instead of its public form, `sha256:` and 64 hex digits (71). An item's checksum is
 * stored in its state, each of its versions and its changelog entries.
 */
export function storedChecksum(checksum: string): string {
  return PUBLIC_CHECKSUM.test(checksum)
    ? Buffer.from(checksum.slice(CHECKSUM_PREFIX.length), 'hex').toString('base64url')
    : checksum;
}

/** The public form of a stored checksum; rows of earlier releases hold the public form already. */
export function checksumOf(value: unknown): string {
  const stored = String(value);
  return STORED_CHECKSUM.test(stored)
    ? CHECKSUM_PREFIX + Buffer.from(stored, 'base64url').toString('hex')
    : stored;
}

/**
 * A stored metadata hash as compared: earlier releases stored the whole SHA-256 in hex, whose
 * first characters are today's hash.
 */
export function metaHashOf(value: unknown): string {
  return String(value).slice(0, META_HASH_LENGTH);
}

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
    checksum: checksumOf(row.checksum),
    metaHash: metaHashOf(row.meta_hash),
    contentVersion: Number(row.content_version),
    metaVersion: Number(row.meta_version),
    modified: String(row.modified_at),
    firstPublished: String(row.first_published ?? row.modified_at),
    history: historyOf(row),
  };
}

export function storedStateColumns(state: StoredItemState): Row {
  return {
    checksum: storedChecksum(state.checksum),
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
