import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extend } from '../../server/src/core/objects';

describe('extend', () => {
  it('Given two records, When extended, Then the result is the spread of both: same keys in the same order, same values, inputs untouched (property)', () => {
    const record = fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      fc.anything({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(record, record, (base, fields) => {
        const before = { base: { ...base }, fields: { ...fields } };
        const result = extend(base, fields);
        const spread = { ...base, ...fields };
        expect(Object.keys(result)).toEqual(Object.keys(spread));
        for (const key of Object.keys(spread))
          expect(Object.is((result as Record<string, unknown>)[key], spread[key])).toBe(true);
        expect(result).not.toBe(base);
        expect(base).toEqual(before.base);
        expect(fields).toEqual(before.fields);
      }),
      { numRuns: 500 },
    );
  });

  it('Given a base whose members are getters (a stored state reading its texts lazily), When extended, Then the result holds their values as plain members', () => {
    let reads = 0;
    const base = Object.defineProperty({ itemId: 'a' }, 'content', {
      enumerable: true,
      get: () => {
        reads += 1;
        return 'text';
      },
    });
    const result = extend(base, { revision: 2 });
    expect(reads).toBe(1);
    expect(Object.getOwnPropertyDescriptor(result, 'content')).toMatchObject({ value: 'text' });
    expect(result).toEqual({ itemId: 'a', content: 'text', revision: 2 });
  });
});
