import { describe, expect, it } from 'vitest';
import { FingerprintSet, fingerprint } from '../../server/src/core/fingerprint-set';

/** Ids shaped like a 100k-article site's: `article:<slug>:<lang>:<section>`. */
function siteIds(articles: number, sections: number): string[] {
  const ids: string[] = [];
  for (let a = 0; a < articles; a += 1) {
    const page = `article:bench-article-${a}:en`;
    ids.push(page);
    for (let s = 0; s < sections; s += 1) ids.push(`${page}:section-${s}`);
  }
  return ids;
}

describe('FingerprintSet: 8 bytes per member (the readiness checklist at 1.4M items)', () => {
  it('Given the 1.4M ids of a 100k-article site, Then every one is new once and known after', () => {
    const ids = siteIds(100_000, 13);
    const set = new FingerprintSet();
    let collisions = 0;
    for (const id of ids) if (!set.add(id)) collisions += 1;
    expect(collisions).toBe(0);
    expect(set.size).toBe(1_400_000);
    let forgotten = 0;
    for (const id of ids) if (set.add(id)) forgotten += 1;
    expect(forgotten).toBe(0);
    expect(set.size).toBe(1_400_000);
  });

  it('Given a set grown from 16 slots, Then it lost none of its members, and strings it never saw are new', () => {
    const set = new FingerprintSet(1);
    for (let i = 0; i < 5000; i += 1) expect(set.add(`url-${i}#a`)).toBe(true);
    for (let i = 0; i < 5000; i += 1) expect(set.add(`url-${i}#a`)).toBe(false);
    for (let i = 5000; i < 10_000; i += 1) expect(set.add(`url-${i}#a`)).toBe(true);
    expect(set.size).toBe(10_000);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
  });

  it('Given strings of the same characters in another order or of another length, Then their fingerprints differ', () => {
    const [ab, ba, a0] = [fingerprint('ab'), fingerprint('ba'), fingerprint('ab\u0000')];
    expect(ab).not.toEqual(ba);
    expect(ab).not.toEqual(a0);
    expect(fingerprint('ab')).toEqual(ab);
  });
});
