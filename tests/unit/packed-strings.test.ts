import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackedStringSet } from '../../server/src/core/packed-strings';

/** Strings that sort in tricky ways: prefixes of one another, NUL, surrogates, the empty string. */
const member = fc.oneof(
  fc.string({
    unit: fc.constantFrom('a', 'b', '\u0000', 'é', '\uD83D', '\uDE00', 'Z'),
    maxLength: 6,
  }),
  fc.string({ maxLength: 30 }),
);

describe('PackedStringSet: a set of strings kept sorted in one string', () => {
  it('Given strings added one by one (merged a thousand at a time), Then it holds exactly what a Set holds, in sort order', () => {
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 3000 }),
        fc.array(member, { maxLength: 200 }),
        (added, others) => {
          const set = new PackedStringSet();
          const expected = new Set<string>();
          for (const value of added) {
            expect(set.has(value)).toBe(expected.has(value));
            set.add(value);
            expected.add(value);
            expect(set.has(value)).toBe(true);
          }
          expect(set.size).toBe(expected.size);
          for (const value of others) expect(set.has(value)).toBe(expected.has(value));
          const sorted = [...expected].sort();
          expect(Array.from({ length: set.size }, (_, i) => set.at(i))).toEqual(sorted);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('Given a list packed at once, Then its members come back in sort order, each once', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 500 }), (list) => {
        const set = PackedStringSet.of(list);
        const sorted = [...new Set(list)].sort();
        expect(set.size).toBe(sorted.length);
        expect(Array.from({ length: set.size }, (_, i) => set.at(i))).toEqual(sorted);
        for (const value of list) expect(set.has(value)).toBe(true);
        set.add('\uFFFF-added');
        expect(set.has('\uFFFF-added')).toBe(true);
        expect(set.at(set.size - 1)).toBe(
          [...new Set([...list, '\uFFFF-added'])].sort()[sorted.length],
        );
      }),
    );
  });

  it('Given the 100k document ids of a site, Then each is a member after its add and none before', () => {
    const ids = Array.from(
      { length: 100_000 },
      (_, i) => `d${((i * 7919) % 100_000).toString(36).padStart(8, '0')}x`,
    );
    const set = new PackedStringSet();
    for (const id of ids.slice(0, 50_000)) set.add(id);
    for (const id of ids.slice(0, 50_000)) expect(set.has(id)).toBe(true);
    for (const id of ids.slice(50_000)) expect(set.has(id)).toBe(false);
    for (const id of ids) set.add(id);
    expect(set.size).toBe(100_000);
    expect(set.at(0) < set.at(1)).toBe(true);
  });

  it('Given an index outside the set, Then at() refuses it instead of reading another member', () => {
    const set = PackedStringSet.of(['a', 'b']);
    expect(() => set.at(2)).toThrow(RangeError);
    expect(() => set.at(-1)).toThrow(RangeError);
    expect(() => set.at(0.5)).toThrow(RangeError);
    expect(new PackedStringSet().size).toBe(0);
  });
});
