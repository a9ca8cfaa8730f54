import { describe, expect, it } from 'vitest';
import {
  buildEntryItems,
  finalizeDraft,
  META_HASH_LENGTH,
  nextState,
} from '../../server/src/core/items';
import {
  checksumOf,
  historyOf,
  storedChecksum,
  storedStateColumns,
  storedStateOf,
} from '../../server/src/repositories/stored-state';
import type { StoredItemState } from '../../server/src/core/types';
import { ARTICLE_TYPE, SITE, geoEntry } from './fixtures/entries';

/** A row as the database gives it back: JSON columns as text. */
const asRead = (columns: Record<string, unknown>) => ({
  ...columns,
  history: columns.history === null ? null : JSON.stringify(columns.history),
});

const state = (modified: string, firstPublished: string): StoredItemState => ({
  checksum: `sha256:${'ab'.repeat(32)}`,
  metaHash: 'cd'.repeat(16),
  contentVersion: 2,
  metaVersion: 1,
  modified,
  firstPublished,
  history: ['2026-01-01T00:00:00.000Z', modified],
});

describe('stored version columns', () => {
  it('leaves the first-published time empty while it is the modification time, and reads it back', () => {
    const fresh = state('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z');
    const columns = storedStateColumns(fresh);
    expect(columns.first_published).toBeNull();
    expect(storedStateOf(asRead(columns))).toEqual(fresh);
  });

  it('keeps a first-published time older than the modification', () => {
    const edited = state('2026-03-01T10:00:00.000Z', '2026-01-01T00:00:00.000Z');
    const columns = storedStateColumns(edited);
    expect(columns.first_published).toBe('2026-01-01T00:00:00.000Z');
    expect(storedStateOf(asRead(columns))).toEqual(edited);
  });

  it('reads rows of earlier releases, which wrote the time even when it was the same', () => {
    const fresh = state('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z');
    const old = { ...asRead(storedStateColumns(fresh)), first_published: fresh.firstPublished };
    expect(storedStateOf(old)).toEqual(fresh);
  });

  it('leaves the history empty while it is the first publication alone, and reads it back', () => {
    const first: StoredItemState = {
      ...state('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z'),
      history: ['2026-03-01T10:00:00.000Z'],
    };
    const columns = storedStateColumns(first);
    expect(columns.history).toBeNull();
    expect(storedStateOf(asRead(columns))).toEqual(first);
    // a single change that is not the modification time (a metadata edit since) is kept
    const edited = { ...first, modified: '2026-04-01T10:00:00.000Z' };
    expect(storedStateColumns(edited).history).toEqual(['2026-03-01T10:00:00.000Z']);
    expect(storedStateOf(asRead(storedStateColumns(edited)))).toEqual(edited);
    expect(historyOf({ modified_at: '2026-03-01T10:00:00.000Z', history: '["a","b"]' })).toEqual([
      'a',
      'b',
    ]);
  });

  it("reads the whole-SHA-256 metadata hash of earlier releases as today's hash: an unchanged item stays unchanged", () => {
    const draft = finalizeDraft(
      (buildEntryItems(geoEntry(), ARTICLE_TYPE, SITE) ?? []).find((d) => d.type === 'article')!,
    );
    expect(draft.metaHash).toMatch(new RegExp(`^[0-9a-f]{${META_HASH_LENGTH}}$`));
    const current = nextState(undefined, draft, '2026-03-01T10:00:00.000Z').state;
    // an earlier release stored the 64 hex characters of the same SHA-256
    const old = {
      ...asRead(storedStateColumns(current)),
      meta_hash: `${draft.metaHash}${'9f'.repeat(16)}`,
    };
    const read = storedStateOf(old);
    expect(read.metaHash).toBe(draft.metaHash);
    expect(nextState(read, draft, '2026-04-01T00:00:00.000Z').change).toBe('none');
    // and the mark of a state the policy check refused is read as it is: it matches no hash
    const refused = storedStateOf({ ...old, meta_hash: 'refused-by-policy-check' });
    expect(nextState(refused, draft, '2026-04-01T00:00:00.000Z').change).toBe('metadata');
  });

  it('stores a checksum as the 43 base64url characters of its bytes and reads back its public form', () => {
    const checksum = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const stored = storedChecksum(checksum);
    expect(stored).toHaveLength(43);
    expect(stored).toBe(Buffer.from('0123456789abcdef'.repeat(4), 'hex').toString('base64url'));
    expect(checksumOf(stored)).toBe(checksum);
    // rows of earlier releases hold the public form, read as it is
    expect(checksumOf(checksum)).toBe(checksum);
    // and through a whole row
    const current = state('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z');
    const columns = storedStateColumns(current);
    expect(columns.checksum).toBe(storedChecksum(current.checksum));
    expect(storedStateOf(asRead(columns)).checksum).toBe(current.checksum);
    // anything that is not a SHA-256 checksum is stored and read unchanged
    for (const other of ['sha256:ABC', 'md5:0f', '']) {
      expect(storedChecksum(other)).toBe(other);
      expect(checksumOf(storedChecksum(other))).toBe(other);
    }
  });
});
