import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import * as zlib from 'node:zlib';
import {
  DICTIONARY_V1,
  type DeflateModule,
  type InflateModule,
  blobKey,
  bodyDecoder,
  bodyEncoder,
  decodeBlob,
  encodeBlob,
  keptZlibCall,
} from '../../server/src/repositories/blob-codec';

describe('stored texts (blob codec)', () => {
  it('gives back every text it stored, in either format', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), (text) => {
        expect(decodeBlob(encodeBlob(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('stores a manifest item in a fraction of its JSON', () => {
    const item = JSON.stringify({
      id: 'article:geo-index:en:why-classic-sitemaps-fail',
      url: 'https://example.com/en/articles/geo-index#why-classic-sitemaps-fail',
      type: 'section',
      parent: 'article:geo-index:en',
      lang: 'en',
      title: 'Why classic sitemaps fail',
      license: 'https://creativecommons.org/licenses/by/4.0/',
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      checksum: 'sha256:7538188068fa7966f3ae265bbf743104f3009827df52477d80a362bce300021a',
      schema: ['WebPageElement'],
      version: 'v1.0',
    });
    const stored = encodeBlob(item);
    expect(stored.subarray(0, 1).toString()).toBe('z');
    expect(stored.length).toBeLessThan(item.length / 2);
  });

  it('keeps a text as it is when deflating would not make it smaller', () => {
    expect(encodeBlob('')).toEqual(Buffer.from('p'));
    expect(encodeBlob('x')).toEqual(Buffer.from('px'));
    expect(encodeBlob('€')).toEqual(Buffer.from('p€'));
    expect(decodeBlob(Buffer.from('p€'))).toBe('€');
  });

  it('reads the text bodies earlier releases stored, plain and base64-deflated', () => {
    const text = 'A section of plain words, plainly written. '.repeat(4);
    const bytes = encodeBlob(text);
    expect(bytes.subarray(0, 1).toString()).toBe('z');
    expect(decodeBlob(`z${bytes.subarray(1).toString('base64')}`)).toBe(text);
    expect(decodeBlob('px')).toBe('x');
  });

  it('reads a body deflated with the default window, as the first release of the format wrote it', () => {
    const text =
      '{"id":"article:geo-index:en:why","title":"Why classic sitemaps fail","usage":{"train":"deny","infer":"allow-with-citation","cache":"allow","redistribute":"deny"}}';
    expect(decodeBlob('zQ0ss6an5upl5KakVIPvKMyqRYjg8o1IhOSexuDgzWQHq1GKFtMTMHNrGYC0A')).toBe(text);
  });

  it('writes a long text in the same bytes as with 16 KB output chunks', () => {
    // 15.8 KB deflated: gathered from 16 chunks of 1 KB. The digest is of the body zlib wrote
    // with its default 16 KB chunk and the same dictionary, window and memory level.
    const words = ['fragment', 'licence', 'section', 'table', 'figure'];
    const more = ['dataset', 'agent', 'citation', 'checksum', 'version'];
    const all = [...words, ...more];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const parts: string[] = [];
    for (let i = 0; i < 8000; i += 1) parts.push(`${all[next() % all.length]}${next() % 97}`);
    const text = parts.join(' ');
    const stored = encodeBlob(text);
    expect(stored.length).toBe(15770);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(
      '440cfe180dd34116e8e989430567d049fd59e78b4322947c09e9638742ec0fd3',
    );
    expect(decodeBlob(stored)).toBe(text);
  });

  it('writes a text of at most 2 KB at level 1 with fixed codes, a longer one at the default level', () => {
    const options = { dictionary: DICTIONARY_V1, windowBits: 13, memLevel: 5 };
    const fixed = { ...options, level: 1, strategy: zlib.constants.Z_FIXED };
    const item = JSON.stringify({
      id: 'article:geo-index:en:why-classic-sitemaps-fail',
      title: 'Why classic sitemaps fail',
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
    });
    const short = `${item} ${'A section of plain words, plainly written. '.repeat(40)}`.slice(
      0,
      2048,
    );
    const long = `${short}${'And one word more. '.repeat(20)}`;
    for (const [text, settings] of [
      [item, fixed],
      [short, fixed],
      [long, options],
    ] as const) {
      const body = encodeBlob(text);
      expect(body.subarray(1)).toEqual(zlib.deflateRawSync(text, settings));
      expect(decodeBlob(body)).toBe(text);
    }
    // (the two settings write different bytes: the check above tells them apart)
    expect(zlib.deflateRawSync(short, fixed)).not.toEqual(zlib.deflateRawSync(short, options));
    expect(zlib.deflateRawSync(long, fixed)).not.toEqual(zlib.deflateRawSync(long, options));
  });

  describe('one deflate state for every text', () => {
    const texts = [
      '',
      'x',
      '{"id":"article::en:intro","title":"Intro","usage":{"train":"deny","infer":"allow"}}',
      '| a | b |\n| --- | --- |\n| 1 | 2 |\n'.repeat(40),
      'Zdravé čítanie, 🙂 '.repeat(300),
      'fragment licence section table figure '.repeat(2000),
    ];
    /** zlib, counting the texts deflated the one-shot way. */
    const counting = (createDeflateRaw?: DeflateModule['createDeflateRaw']) => {
      const counted = {
        oneShot: 0,
        deflateRawSync(data: string | Uint8Array, options: object) {
          counted.oneShot += 1;
          return zlib.deflateRawSync(data, options);
        },
        createDeflateRaw,
      };
      return counted;
    };

    it("writes every text in the bytes of zlib's one-shot deflate, without it", () => {
      const module = counting((options) => zlib.createDeflateRaw(options));
      const encode = bodyEncoder(module, DICTIONARY_V1, keptZlibCall);
      const probes = module.oneShot;
      const oneShot = bodyEncoder(counting(), DICTIONARY_V1, keptZlibCall);
      for (const text of [...texts, ...texts]) expect(encode(text)).toEqual(oneShot(text));
      expect(module.oneShot).toBe(probes);
    });

    it('keeps its state when rebuilt from its source alone, as the plugin thread rebuilds it', () => {
      // utils/plugin-thread.ts sends the encoder and keptZlibCall to the thread as source text: a
      // name either took from its module would be undefined there, the kept state given up at
      // its probe, and every text deflated the one-shot way — the same bytes, only slower.
      const rebuilt = new Function(
        'Buffer',
        `return [${bodyEncoder.toString()}, ${keptZlibCall.toString()}];`,
      )(Buffer) as [typeof bodyEncoder, typeof keptZlibCall];
      const [encoderFromSource, keptFromSource] = rebuilt;
      const module = counting((options) => zlib.createDeflateRaw(options));
      const encode = encoderFromSource(module, DICTIONARY_V1, keptFromSource);
      const probes = module.oneShot;
      expect(probes).toBeGreaterThan(0);
      const oneShot = bodyEncoder(counting(), DICTIONARY_V1, keptZlibCall);
      for (const text of texts) expect(encode(text)).toEqual(oneShot(text));
      expect(module.oneShot).toBe(probes);
    });

    it('deflates the one-shot way when the kept state writes other bytes than zlib', () => {
      // A deflate stream of another level: valid, but not the bytes of the settings stored.
      const module = counting((options) => zlib.createDeflateRaw({ ...options, level: 9 }));
      const encode = bodyEncoder(module, DICTIONARY_V1, keptZlibCall);
      const oneShot = bodyEncoder(counting(), DICTIONARY_V1, keptZlibCall);
      const before = module.oneShot;
      for (const text of texts) expect(encode(text)).toEqual(oneShot(text));
      expect(module.oneShot).toBe(before + texts.length);
    });

    it('gives a kept state up for good when a call leaves its output unfinished or its stream destroyed', () => {
      // Real streams (one for small texts, one for the others) whose handle, after its two
      // probes, writes nothing on its next call (and on another run, destroys its stream as a
      // zlib error does): that text and every later one of its kind are deflated the one-shot
      // way, in the same bytes.
      for (const fault of ['writes nothing', 'destroys its stream'] as const) {
        const calls: number[] = [];
        const module = counting((options) => {
          const stream = zlib.createDeflateRaw(options) as unknown as {
            _handle: { writeSync(...args: unknown[]): void };
            destroy(): void;
          };
          const real = stream._handle.writeSync.bind(stream._handle);
          const index = calls.push(0) - 1;
          stream._handle.writeSync = (...args: unknown[]) => {
            calls[index] = calls[index]! + 1;
            if (calls[index]! <= 2) return real(...args);
            if (fault === 'destroys its stream') {
              real(...args);
              stream.destroy();
            }
          };
          return stream;
        });
        const encode = bodyEncoder(module, DICTIONARY_V1, keptZlibCall);
        const oneShot = bodyEncoder(counting(), DICTIONARY_V1, keptZlibCall);
        const before = module.oneShot;
        for (const text of texts) expect(encode(text)).toEqual(oneShot(text));
        // (both kinds among the texts: each state met its fault once, and was not called again)
        expect(calls).toEqual([3, 3]);
        expect(module.oneShot - before).toBe(texts.length);
      }
    });

    it('deflates the one-shot way when the stream has no state to keep', () => {
      const module = counting(() => ({ on: () => undefined }));
      const encode = bodyEncoder(module, DICTIONARY_V1, keptZlibCall);
      for (const text of texts) expect(decodeBlob(encode(text))).toBe(text);
      expect(module.oneShot).toBe(texts.length);
    });
  });

  describe('one inflate state for every body', () => {
    const texts = [
      'x',
      '{"id":"article::en:intro","title":"Intro","usage":{"train":"deny","infer":"allow"}}',
      '| a | b |\n| --- | --- |\n| 1 | 2 |\n'.repeat(40),
      'Zdravé čítanie, 🙂 '.repeat(300),
      // (longer than the kept state's output buffer once inflated: read the one-shot way)
      'fragment licence section table figure '.repeat(4000),
    ];
    const dictionary = { dictionary: DICTIONARY_V1 };
    // Bodies as each release wrote them: the encoder's (small texts at level 1 with fixed codes),
    // and the default window and level of the format's first release.
    const bodies = texts.flatMap((text) => {
      const stored = encodeBlob(text);
      const oldest = zlib.deflateRawSync(text, dictionary);
      return stored[0] === 0x7a ? [stored.subarray(1), oldest] : [oldest];
    });
    const read = bodies.map((body) => zlib.inflateRawSync(body, dictionary).toString('utf8'));
    /** zlib, counting the bodies inflated the one-shot way. */
    const counting = (createInflateRaw?: InflateModule['createInflateRaw']) => {
      const counted = {
        oneShot: 0,
        inflateRawSync(data: Uint8Array, options: object) {
          counted.oneShot += 1;
          return zlib.inflateRawSync(data, options);
        },
        createInflateRaw,
      };
      return counted;
    };

    it("reads every body as zlib's one-shot inflate does, without it but for the longest", () => {
      const module = counting((options) => zlib.createInflateRaw(options));
      const decode = bodyDecoder(module, DICTIONARY_V1, keptZlibCall);
      const probes = module.oneShot;
      for (let round = 0; round < 2; round += 1)
        bodies.forEach((body, i) => expect(decode(body)).toBe(read[i]));
      // (the longest text's two bodies, in each round)
      expect(bodies.length).toBe(texts.length * 2 - 1);
      expect(module.oneShot - probes).toBe(4);
      expect(texts.map((text) => decodeBlob(encodeBlob(text)))).toEqual(texts);
    });

    it('reads a corrupt body as the one-shot inflate does (it throws), and every body after it', () => {
      const module = counting((options) => zlib.createInflateRaw(options));
      const decode = bodyDecoder(module, DICTIONARY_V1, keptZlibCall);
      const corrupt = Buffer.from(bodies[3]!);
      corrupt.fill(0xff, 2, 12);
      expect(() => zlib.inflateRawSync(corrupt, dictionary)).toThrow();
      expect(() => decode(corrupt)).toThrow();
      bodies.forEach((body, i) => expect(decode(body)).toBe(read[i]));
    });

    it('inflates the one-shot way when the kept state reads other text than zlib', () => {
      // An inflate state without the dictionary: it cannot read what refers back into it.
      const module = counting(() => zlib.createInflateRaw());
      const decode = bodyDecoder(module, DICTIONARY_V1, keptZlibCall);
      const before = module.oneShot;
      bodies.forEach((body, i) => expect(decode(body)).toBe(read[i]));
      expect(module.oneShot - before).toBe(bodies.length);
    });

    it('inflates the one-shot way when the stream has no state to keep', () => {
      const module = counting(() => ({ on: () => undefined }));
      const decode = bodyDecoder(module, DICTIONARY_V1, keptZlibCall);
      bodies.forEach((body, i) => expect(decode(body)).toBe(read[i]));
      expect(module.oneShot).toBe(bodies.length);
    });
  });

  it('refuses a body of an unknown format instead of guessing', () => {
    expect(() => decodeBlob('qabc')).toThrow(/unknown format "q"/);
    expect(() => decodeBlob(Buffer.from('qabc'))).toThrow(/unknown format "q"/);
  });

  it('keys a text by its bytes: same text, same key; any change, another key', () => {
    expect(blobKey('a text')).toBe(blobKey('a text'));
    expect(blobKey('a text')).not.toBe(blobKey('a text.'));
    expect(blobKey('a text')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("is the first 128 bits of the text's SHA-256, base64url (golden values from sha256sum)", () => {
    // printf '<text>' | sha256sum | cut -c1-32 | xxd -r -p | base64 | tr '+/' '-_' | tr -d '='
    expect(blobKey('a text')).toBe('c0GU7eWwY-ZU1jy5WmgsoQ');
    expect(blobKey('Zdravé čítanie')).toBe('QmI7mTCH5qz1zCeuBAduxw');
  });
});
