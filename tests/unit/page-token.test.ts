import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAGE_TOKEN_MAX_LENGTH } from '../../shared/constants';
import { InvalidPageTokenError } from '../../server/src/core/errors';
import {
  changelogPosition,
  decodePageToken,
  encodePageToken,
  snapshotBuilt,
  tokenSnapshotMatches,
  type PagePosition,
} from '../../server/src/core/page-token';

const SECRET = 'f3c1e9a7b5d2084e6c1a9f7e3d5b2c8a'; // 32 characters, as the config requires
const OTHER_SECRET = '0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d';
const POSITION: PagePosition = {
  snapshot: 42,
  built: Date.parse('2026-12-03T16:28:09.353Z'),
  after: 'article:geo-index:en:results-table-1',
  filters: 'lang=en&type=section',
  feed: 'manifest',
};

/** A token signed with SECRET around an arbitrary payload, as only a key holder could make it. */
function forge(payload: unknown, secret = SECRET): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

const positionArb = fc.record({
  snapshot: fc.integer({ min: 1, max: 2_000_000_000 }),
  built: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  after: fc.stringMatching(/^[a-z0-9][a-z0-9:-]{0,120}$/),
  filters: fc.constantFrom('', 'lang=en', 'type=table', 'lang=sk&type=faq'),
  feed: fc.constantFrom('manifest', 'delta:41'),
});

describe('encodePageToken / decodePageToken', () => {
  it('Given a position, When encoded and decoded, Then the same position comes back', () => {
    expect(decodePageToken(encodePageToken(POSITION, SECRET), SECRET)).toEqual(POSITION);
  });

  it('Given the same position twice, When encoded, Then the tokens are identical and URL-safe', () => {
    const token = encodePageToken(POSITION, SECRET);
    expect(encodePageToken({ ...POSITION }, SECRET)).toBe(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('Given different positions, When encoded, Then the tokens differ', () => {
    const token = encodePageToken(POSITION, SECRET);
    expect(encodePageToken({ ...POSITION, snapshot: 43 }, SECRET)).not.toBe(token);
    expect(encodePageToken({ ...POSITION, built: POSITION.built! + 1 }, SECRET)).not.toBe(token);
    expect(
      encodePageToken({ ...POSITION, after: 'article:geo-index:en:results' }, SECRET),
    ).not.toBe(token);
    expect(encodePageToken({ ...POSITION, filters: 'lang=en' }, SECRET)).not.toBe(token);
    expect(encodePageToken({ ...POSITION, feed: 'delta:41' }, SECRET)).not.toBe(token);
    expect(encodePageToken(POSITION, OTHER_SECRET)).not.toBe(token);
  });

  it('Given any position, When round-tripped, Then it is unchanged (property)', () => {
    fc.assert(
      fc.property(positionArb, (position) => {
        const token = encodePageToken(position, SECRET);
        expect(token.length).toBeLessThanOrEqual(PAGE_TOKEN_MAX_LENGTH);
        expect(decodePageToken(token, SECRET)).toEqual(position);
      }),
    );
  });
});

describe('decodePageToken — rejected tokens', () => {
  const token = encodePageToken(POSITION, SECRET);
  const [payload, signature] = token.split('.') as [string, string];

  function rejects(candidate: string, message?: RegExp): void {
    expect(() => decodePageToken(candidate, SECRET)).toThrow(InvalidPageTokenError);
    if (message) expect(() => decodePageToken(candidate, SECRET)).toThrow(message);
  }

  it('Given a payload changed to another snapshot, When decoded, Then the signature does not match', () => {
    const tampered = Buffer.from(
      JSON.stringify([2, 1, POSITION.built, POSITION.after, POSITION.filters, POSITION.feed]),
    ).toString('base64url');
    rejects(`${tampered}.${signature}`, /signature does not match/);
  });

  it('Given a changed signature, When decoded, Then it is refused', () => {
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    rejects(`${payload}.${flipped}`, /signature does not match/);
  });

  it('Given every other character in the last place of the signature, When decoded, Then each is refused (no base64 malleability)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const c of alphabet) {
      if (c === signature[signature.length - 1]) continue;
      rejects(`${payload}.${signature.slice(0, -1)}${c}`);
    }
  });

  it('Given a token of another site (other secret), When decoded, Then it is refused', () => {
    expect(() => decodePageToken(encodePageToken(POSITION, OTHER_SECRET), SECRET)).toThrow(
      /issued by another site/,
    );
  });

  it.each([
    ['empty', ''],
    ['only the payload', payload],
    ['truncated signature', token.slice(0, -5)],
    ['truncated payload', token.slice(3)],
    ['three parts', `${token}.AAAA`],
    ['empty signature', `${payload}.`],
    ['padding', `${token}=`],
    ['standard base64 characters', `${payload.slice(0, -1)}+.${signature}`],
    ['spaces', ` ${token}`],
    ['garbage', 'not-a-token'],
    ['non-base64', '💥💥💥.💥💥💥'],
    ['SQL', "1' OR '1'='1.AAAA"],
  ])('Given a token with %s, When decoded, Then InvalidPageTokenError', (_, candidate) => {
    rejects(candidate);
  });

  it('Given a huge token, When decoded, Then it is refused before any hashing', () => {
    rejects('A'.repeat(PAGE_TOKEN_MAX_LENGTH + 1), /too long/);
    rejects(`${'A'.repeat(10_000)}.${signature}`, /too long/);
  });

  it('Given a non-string, When decoded, Then it is refused', () => {
    expect(() => decodePageToken(undefined as unknown as string, SECRET)).toThrow(
      InvalidPageTokenError,
    );
    expect(() => decodePageToken(['a.b'] as unknown as string, SECRET)).toThrow(
      InvalidPageTokenError,
    );
  });

  it.each([
    ['another version', [3, 42, 0, 'article:x:en', '', 'manifest']],
    ['version as a string', ['2', 42, 0, 'article:x:en', '', 'manifest']],
    ['snapshot 0', [2, 0, 0, 'article:x:en', '', 'manifest']],
    ['fractional snapshot', [2, 4.5, 0, 'article:x:en', '', 'manifest']],
    ['snapshot as string', [2, '42', 0, 'article:x:en', '', 'manifest']],
    ['too few fields', [2, 42, 0, 'article:x:en', '']],
    ['version 1 fields under version 2', [2, 42, 'article:x:en', '', 'manifest']],
    ['version 2 fields under version 1', [1, 42, 0, 'article:x:en', '', 'manifest']],
    ['no build time', [2, 42, null, 'article:x:en', '', 'manifest']],
    ['a negative build time', [2, 42, -1, 'article:x:en', '', 'manifest']],
    ['a fractional build time', [2, 42, 1.5, 'article:x:en', '', 'manifest']],
    ['a build time past any date', [2, 42, 8.64e15 + 1, 'article:x:en', '', 'manifest']],
    ['a build time as a string', [2, 42, '2026-12-03', 'article:x:en', '', 'manifest']],
    ['an object', { v: 2, snapshot: 42 }],
    ['an over-long id', [2, 42, 0, 'a'.repeat(256), '', 'manifest']],
    ['non-string filters', [2, 42, 0, 'article:x:en', null, 'manifest']],
    ['version 1 with an over-long id', [1, 42, 'a'.repeat(256), '', 'manifest']],
  ])(
    'Given a correctly signed payload with %s, When decoded, Then it is refused as unsupported',
    (_, decoded) => {
      rejects(forge(decoded), /unsupported token version or contents/);
    },
  );

  it('Given a correctly signed payload that is not JSON, When decoded, Then it is refused as malformed', () => {
    const body = Buffer.from('{not json', 'utf8').toString('base64url');
    rejects(
      `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`,
      /malformed/,
    );
  });

  it('Given a well-formed forged payload signed with the right secret, When decoded, Then it is accepted (the forge helper is faithful)', () => {
    expect(decodePageToken(forge([2, 7, 1234, 'article:x:en', '', 'manifest']), SECRET)).toEqual({
      snapshot: 7,
      built: 1234,
      after: 'article:x:en',
      filters: '',
      feed: 'manifest',
    });
  });

  it('Given a token of version 1 (no build time), When decoded, Then its position comes back without one and it names no snapshot', () => {
    const position = decodePageToken(forge([1, 7, 'article:x:en', '', 'manifest']), SECRET);
    expect(position).toEqual({
      snapshot: 7,
      built: null,
      after: 'article:x:en',
      filters: '',
      feed: 'manifest',
    });
    expect(tokenSnapshotMatches(position, { seq: 7, builtAt: new Date(0).toISOString() })).toBe(
      false,
    );
  });
});

describe('tokenSnapshotMatches', () => {
  const snapshot = { seq: 42, builtAt: '2026-12-03T16:28:09.353Z' };

  it('Given the token of a page of a snapshot, When compared with that snapshot, Then it matches', () => {
    const position = decodePageToken(
      encodePageToken({ ...POSITION, built: snapshotBuilt(snapshot) }, SECRET),
      SECRET,
    );
    expect(tokenSnapshotMatches(position, snapshot)).toBe(true);
  });

  it('Given a snapshot of the same number built at another time (the site built anew), When compared, Then it does not match', () => {
    const position = { ...POSITION, built: snapshotBuilt(snapshot) };
    expect(
      tokenSnapshotMatches(position, { ...snapshot, builtAt: '2026-12-03T16:28:09.354Z' }),
    ).toBe(false);
    expect(tokenSnapshotMatches(position, { ...snapshot, seq: 43 })).toBe(false);
  });

  it('Given any single-character change of a valid token, When decoded, Then it is refused (property)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    fc.assert(
      fc.property(
        positionArb,
        fc.nat(),
        fc.constantFrom(...alphabet),
        (position, at, replacement) => {
          const valid = encodePageToken(position, SECRET);
          const index = at % valid.length;
          fc.pre(valid[index] !== replacement);
          const mutated = valid.slice(0, index) + replacement + valid.slice(index + 1);
          expect(() => decodePageToken(mutated, SECRET)).toThrow(InvalidPageTokenError);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('Given any insertion or deletion in a valid token, When decoded, Then it is refused (property)', () => {
    fc.assert(
      fc.property(
        positionArb,
        fc.nat(),
        fc.boolean(),
        fc.constantFrom('A', '-', '_', '.', '0'),
        (position, at, remove, inserted) => {
          const valid = encodePageToken(position, SECRET);
          const index = at % valid.length;
          const mutated = remove
            ? valid.slice(0, index) + valid.slice(index + 1)
            : valid.slice(0, index) + inserted + valid.slice(index);
          expect(() => decodePageToken(mutated, SECRET)).toThrow(InvalidPageTokenError);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('positions a signed token may carry', () => {
  it('Given a signed token whose snapshot does not fit a 32-bit column, When decoded, Then it is refused', () => {
    for (const snapshot of [2 ** 31, 2 ** 53 - 1]) {
      const token = encodePageToken({ ...POSITION, snapshot }, SECRET);
      expect(() => decodePageToken(token, SECRET)).toThrow(InvalidPageTokenError);
    }
    const largest = encodePageToken({ ...POSITION, snapshot: 2 ** 31 - 1 }, SECRET);
    expect(decodePageToken(largest, SECRET).snapshot).toBe(2 ** 31 - 1);
  });

  it('Given changelog positions, When read, Then only plain positive 32-bit integers pass', () => {
    expect(changelogPosition('1')).toBe(1);
    expect(changelogPosition('2147483647')).toBe(2147483647);
    for (const bad of [
      'abc',
      '1e400',
      '-5',
      '0',
      '01',
      '1.5',
      ' 1',
      '',
      '2147483648',
      'Infinity',
    ]) {
      expect(() => changelogPosition(bad), bad).toThrow(InvalidPageTokenError);
    }
  });
});
