import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blobKey,
  blobKeyOfChecksum,
  canonicalText,
  checksumOf,
  sha256Bytes,
  sha256Hex,
  stableEqual,
  stableStringify,
  withoutMember,
} from '../../server/src/core/canonical';

/** Golden values computed outside the code under test: `printf '<bytes>' | sha256sum`. */
const CAFE_NFC = 'sha256:73473dcc12b763085904a5279d048c4d5b3b008c46f1f32443b99de04aa83a14'; // printf 'Caf\xc3\xa9'
const CAFE_NFD_RAW = 'c42cc7a1ca08364b6fd859fa50d2454730a8236290a423373cc630da77c6d711'; // printf 'Cafe\xcc\x81'
const SECTION_LF = 'sha256:d7825f7a993bf44495fdfb51f14c4ab73fee1d147f94f1007469c687e9d2d1b8';
const SLOVAK_HEADING = 'sha256:3b4b336c1c8596f9b813a1ba4fd795d0a19a9c075ee76125d6319decd6efd5c5';
const EMPTY = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('canonicalText', () => {
  it('Given a decomposed "Café" with a CRLF, When canonicalised, Then it equals the NFC text without the line ending', () => {
    const canonical = canonicalText('Cafe\u0301\r\n');
    expect(canonical).toBe('Caf\u00e9');
    expect(canonical).toHaveLength(4);
  });

  it('Given CRLF and lone CR line endings, When canonicalised, Then every line ends with LF', () => {
    expect(canonicalText('## Results\r\n\r\nLine one\rLine two\r\n')).toBe(
      '## Results\n\nLine one\nLine two',
    );
  });

  it('Given leading and trailing blank lines and spaces, When canonicalised, Then only the outer whitespace is removed', () => {
    expect(canonicalText('\n\n  \tIntro paragraph.\n\n    indented code\n  \n')).toBe(
      'Intro paragraph.\n\n    indented code',
    );
  });

  it('Given canonical text, When canonicalised again, Then it is unchanged (idempotent property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const once = canonicalText(text);
        expect(canonicalText(once)).toBe(once);
        expect(once).not.toMatch(/\r/);
        expect(once).toBe(once.trim());
      }),
    );
  });
});

describe('blobKeyOfChecksum', () => {
  it("Given any canonical text, When keyed from its checksum, Then the key is the text's own blobKey", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 500 }), (text) => {
        const canonical = canonicalText(text);
        expect(blobKeyOfChecksum(checksumOf(canonical))).toBe(blobKey(canonical));
      }),
      { numRuns: 300 },
    );
    expect(blobKeyOfChecksum(CAFE_NFC)).toBe(blobKey('Caf\u00e9'));
  });

  it('Given something that is not a checksum, When keyed, Then it throws instead of keying a wrong text', () => {
    expect(() => blobKeyOfChecksum('sha256:abc')).toThrow(/not a checksum/);
    expect(() => blobKeyOfChecksum(`sha256:${'g'.repeat(64)}`)).toThrow(/not a checksum/);
    expect(() => blobKeyOfChecksum(CAFE_NFC.replace('sha256:', 'md5:'))).toThrow(/not a checksum/);
  });
});

describe('checksumOf', () => {
  it('Given NFD input, When checksummed after canonicalisation, Then it equals the golden checksum of NFC "Café"', () => {
    expect(checksumOf(canonicalText('Cafe\u0301\r\n'))).toBe(CAFE_NFC);
    expect(checksumOf(canonicalText('Caf\u00e9'))).toBe(CAFE_NFC);
  });

  it('Given the raw NFD bytes, When hashed without canonicalisation, Then the checksum differs (NFC matters)', () => {
    expect(sha256Hex('Cafe\u0301')).toBe(CAFE_NFD_RAW);
    expect(`sha256:${CAFE_NFD_RAW}`).not.toBe(CAFE_NFC);
  });

  it("Given the same text as UTF-8 bytes, When hashed, Then the digest is the string's", () => {
    expect(sha256Hex(Buffer.from('Cafe\u0301', 'utf8'))).toBe(CAFE_NFD_RAW);
    expect(sha256Hex(new Uint8Array(Buffer.from('Caf\u00e9', 'utf8')))).toBe(
      CAFE_NFC.slice('sha256:'.length),
    );
    expect(sha256Bytes('Caf\u00e9').toString('hex')).toBe(CAFE_NFC.slice('sha256:'.length));
  });

  it('Given a section written with CRLF, When canonicalised and checksummed, Then it matches the LF golden value', () => {
    const crlf =
      '## Why classic sitemaps fail\r\n\r\nA sitemap.xml entry carries four fields.\r\nLarge language models retrieve passages.\r\n';
    expect(checksumOf(canonicalText(crlf))).toBe(SECTION_LF);
  });

  it('Given Slovak text with diacritics, When checksummed, Then the UTF-8 bytes are hashed', () => {
    expect(checksumOf('Prečo je klasická sitemap nedostačujúca')).toBe(SLOVAK_HEADING);
  });

  it('Given empty text, When checksummed, Then it is the sha256 of zero bytes', () => {
    expect(checksumOf('')).toBe(EMPTY);
  });

  it('Given any text, When checksummed twice, Then the result is the same lowercase sha256 (determinism property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const a = checksumOf(canonicalText(text));
        expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(checksumOf(canonicalText(text))).toBe(a);
      }),
    );
  });

  it('Given two texts that differ after canonicalisation, When checksummed, Then the checksums differ (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 100 }), (a, b) => {
        fc.pre(canonicalText(a) !== canonicalText(b));
        expect(checksumOf(canonicalText(a))).not.toBe(checksumOf(canonicalText(b)));
      }),
    );
  });
});

describe('stableStringify', () => {
  it('Given nested objects, When stringified, Then keys are sorted at every level and undefined members are dropped', () => {
    const value = {
      usage: { train: 'deny', infer: 'allow' },
      license: 'https://example.com/license',
      pin: undefined,
      topics: ['GEO', undefined],
    };
    expect(stableStringify(value)).toBe(
      '{"license":"https://example.com/license","topics":["GEO",null],"usage":{"infer":"allow","train":"deny"}}',
    );
  });

  it('Given the same object built with keys in another order, When stringified, Then the output is identical (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }),
        (record) => {
          const reversed = Object.fromEntries(Object.entries(record).reverse());
          expect(stableStringify(reversed)).toBe(stableStringify(record));
        },
      ),
    );
  });

  it('Given JSON values, When stringified, Then the output parses back to an equal value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(JSON.parse(stableStringify(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('Given any value, When stringified, Then the output is byte for byte that of the first implementation, on which stored hashes depend (property)', () => {
    // The first implementation, kept here as the definition of the format.
    const first = (value: unknown): string => {
      if (value === undefined) return 'null';
      if (value === null || typeof value !== 'object') return JSON.stringify(value);
      if (Array.isArray(value)) return `[${value.map(first).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${first(v)}`).join(',')}}`;
    };
    const outcome = (f: (value: unknown) => string, value: unknown) => {
      try {
        return { output: f(value) };
      } catch (error) {
        return { error: String(error) };
      }
    };
    fc.assert(
      fc.property(
        fc.anything({
          maxDepth: 4,
          withBigInt: true,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withNullPrototype: true,
          withObjectString: true,
          withSet: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        (value) => {
          expect(outcome(stableStringify, value)).toEqual(outcome(first, value));
        },
      ),
      { numRuns: 2000 },
    );
    const withFunctions = { a: () => 1, b: [() => 1, Symbol('s'), undefined], c: { d: undefined } };
    expect(stableStringify(withFunctions)).toBe(first(withFunctions));
    expect(stableStringify([, 1, , 2])).toBe(first([, 1, , 2])); // eslint-disable-line no-sparse-arrays
  });

  it('Given arrays, When stringified, Then their order is kept (arrays are not sorted)', () => {
    expect(stableStringify(['b', 'a'])).not.toBe(stableStringify(['a', 'b']));
  });

  it('Given a record without one member, When stringified, Then the output is that of a copy with the member deleted, and the record is unchanged (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
        fc.string(),
        fc.anything({ maxDepth: 2 }),
        (record, omitted, pin) => {
          const before = JSON.stringify(record);
          const { [omitted]: _gone, ...copy } = record;
          expect(stableStringify({ meta: withoutMember(record, omitted), pin })).toBe(
            stableStringify({ meta: copy, pin }),
          );
          expect(JSON.stringify(record)).toBe(before);
        },
      ),
      { numRuns: 1000 },
    );
    expect(stableStringify(withoutMember({ b: 1, a: 2, checksum: 'x' }, 'checksum'))).toBe(
      '{"a":2,"b":1}',
    );
  });
});

describe('stableEqual', () => {
  const usage = fc.dictionary(
    fc.constantFrom('train', 'infer', 'cache', 'redistribute', 'Train', 'train '),
    fc.oneof(
      fc.constantFrom('allow', 'deny', 'allow-with-citation', '', null, true, false, undefined),
      fc.integer(),
      fc.constant(Number.NaN),
      fc.constant({ nested: 'x' }),
    ),
  );

  it('Given two values, When compared, Then they are equal exactly when stableStringify writes them alike (property)', () => {
    fc.assert(
      fc.property(usage, usage, (a, b) => {
        expect(stableEqual(a, b)).toBe(stableStringify(a) === stableStringify(b));
        expect(stableEqual(a, { ...a })).toBe(true);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.anything({ maxDepth: 2 }), fc.anything({ maxDepth: 2 }), (a, b) => {
        expect(stableEqual(a, b)).toBe(stableStringify(a) === stableStringify(b));
      }),
      { numRuns: 1000 },
    );
  });

  it('Given usages that differ in one value, a missing member or an undefined one, When compared, Then only the undefined member is ignored', () => {
    const allow = { train: 'deny', infer: 'allow' };
    expect(stableEqual(allow, { infer: 'allow', train: 'deny' })).toBe(true);
    expect(stableEqual(allow, { train: 'deny', infer: 'allow', cache: undefined })).toBe(true);
    expect(stableEqual(allow, { train: 'allow', infer: 'allow' })).toBe(false);
    expect(stableEqual(allow, { train: 'deny' })).toBe(false);
    expect(stableEqual(allow, { train: 'deny', infer: 'allow', cache: null })).toBe(false);
  });
});
