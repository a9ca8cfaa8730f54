import { describe, expect, it } from 'vitest';
import { storedStateColumns, storedStateOf } from '../../server/src/repositories/stored-state';
import type { StoredItemState } from '../../server/src/core/types';

/** A row as the database gives it back: JSON columns as text. */
const asRead = (columns: Record<string, unknown>) => ({
  ...columns,
  history: JSON.stringify(columns.history),
});

const state = (modified: string, firstPublished: string): StoredItemState => ({
  checksum: `sha256:${'ab'.repeat(32)}`,
  metaHash: 'cd'.repeat(32),
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
});
