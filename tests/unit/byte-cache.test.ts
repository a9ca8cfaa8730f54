import { describe, expect, it } from 'vitest';
import { ByteCache } from '../../server/src/core/byte-cache';

const value = (text: string) => ({ text, size: text.length });

describe('ByteCache', () => {
  it('keeps what fits its budget and evicts the least recently used first', () => {
    const cache = new ByteCache<{ text: string; size: number }>(10);
    cache.set('a', value('aaaa'));
    cache.set('b', value('bbbb'));
    expect(cache.get('a')?.text).toBe('aaaa'); // a is now the most recently used
    cache.set('c', value('cccc'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.text).toBe('aaaa');
    expect(cache.get('c')?.text).toBe('cccc');
    expect(cache.size).toBe(8);
  });

  it('never holds a value larger than the whole budget, and replaces a key in place', () => {
    const cache = new ByteCache<{ text: string; size: number }>(5);
    cache.set('big', value('x'.repeat(6)));
    expect(cache.get('big')).toBeUndefined();
    cache.set('k', value('12'));
    cache.set('k', value('123'));
    expect(cache.get('k')?.text).toBe('123');
    expect(cache.size).toBe(3);
  });
});
