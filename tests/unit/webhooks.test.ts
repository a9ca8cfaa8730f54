import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INDEXNOW_MAX_URLS,
  backoffDelay,
  indexNowBodies,
  manifestUpdatedEvent,
  pingEvent,
  signPayload,
  verifySignature,
} from '../../server/src/core';

const SECRET = 'whsec_test_4f1c9a27b3e8d605';
/** 2025-03-01T12:00:00Z */
const T = 1_740_830_400;
const BODY =
  '{"event":"manifest.updated","snapshot":{"id":"42","created_at":"2025-03-01T12:00:00.000Z"},"since":"41",' +
  '"counts":{"added":1,"changed":2,"removed":0},"delta_url":"https://cms.example.com/api/sitemap-ai/delta?since=41"}';
/**
 * Computed independently of the code under test:
 * printf '%s' "1740830400.$BODY" | openssl dgst -sha256 -hmac 'whsec_test_4f1c9a27b3e8d605'
 */
const GOLDEN = 't=1740830400,v1=bbe608f12ce2b1daa7e85757cffb16ee2e68b79b929cd65975c1dc02ec7e8ca7';
/** printf '%s' '1700000000.{"event":"ping"}' | openssl dgst -sha256 -hmac 'whsec_test_4f1c9a27b3e8d605' */
const GOLDEN_PING =
  't=1700000000,v1=f8a794c2dbc73b9bd6d690944701df3b114b4aa63501eb0709a23f1cd62c1d7a';

const NOW = new Date(T * 1000);

describe('manifestUpdatedEvent (docs/protocol.md §8 events body)', () => {
  it('Given a published snapshot with changes, When its event is built, Then it has exactly the public fields in the protocol order', () => {
    // Given
    const input = {
      snapshot: { id: 42, created_at: '2025-03-01T12:00:00.000Z' },
      since: '41',
      counts: { added: 1, changed: 2, removed: 0 },
      deltaUrl: 'https://cms.example.com/api/sitemap-ai/delta?since=41',
    };
    const copy = structuredClone(input);

    // When
    const event = manifestUpdatedEvent(input);

    // Then
    expect(event).toEqual({
      event: 'manifest.updated',
      snapshot: { id: '42', created_at: '2025-03-01T12:00:00.000Z' },
      since: '41',
      counts: { added: 1, changed: 2, removed: 0 },
      delta_url: 'https://cms.example.com/api/sitemap-ai/delta?since=41',
    });
    expect(JSON.stringify(event)).toBe(BODY);
    expect(input).toEqual(copy);
    expect(event.snapshot).not.toBe(input.snapshot);
  });

  it('Given the first snapshot, When its event is built, Then since is null', () => {
    const event = manifestUpdatedEvent({
      snapshot: { id: '1', created_at: '2025-03-01T12:00:00.000Z' },
      since: null,
      counts: { added: 12, changed: 0, removed: 0 },
      deltaUrl: 'https://cms.example.com/api/sitemap-ai/manifest',
    });
    expect(event.since).toBeNull();
    expect(Object.keys(event)).toEqual(['event', 'snapshot', 'since', 'counts', 'delta_url']);
  });

  it('Given a test event, When serialised, Then it is {"event":"ping"}', () => {
    expect(JSON.stringify(pingEvent())).toBe('{"event":"ping"}');
  });
});

describe('signPayload — golden signatures (openssl)', () => {
  it('Given a fixed secret, body and time, When signed, Then the header equals the one openssl computed', () => {
    expect(signPayload(SECRET, BODY, T)).toBe(GOLDEN);
    expect(signPayload(SECRET, '{"event":"ping"}', 1_700_000_000)).toBe(GOLDEN_PING);
  });

  it('Given the body as bytes, When signed, Then the signature is the same as for the string', () => {
    expect(signPayload(SECRET, Buffer.from(BODY, 'utf8'), T)).toBe(GOLDEN);
  });

  it('Given milliseconds or a negative time, When signed, Then it refuses (t is unix seconds)', () => {
    expect(() => signPayload(SECRET, BODY, T * 1000 + 0.5)).toThrow(RangeError);
    expect(() => signPayload(SECRET, BODY, -1)).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  it('Given the golden header, When verified at its time, Then it is accepted', () => {
    expect(verifySignature(GOLDEN, SECRET, BODY, NOW)).toBe(true);
    expect(verifySignature(GOLDEN, SECRET, Buffer.from(BODY), T)).toBe(true);
  });

  it('Given a body changed by one character, When verified, Then it is rejected', () => {
    expect(verifySignature(GOLDEN, SECRET, BODY.replace('"added":1', '"added":2'), NOW)).toBe(
      false,
    );
    expect(verifySignature(GOLDEN, SECRET, `${BODY} `, NOW)).toBe(false);
  });

  it('Given another secret, When verified, Then it is rejected', () => {
    expect(verifySignature(GOLDEN, 'another-secret-0123456789', BODY, NOW)).toBe(false);
    expect(verifySignature(GOLDEN, '', BODY, NOW)).toBe(false);
  });

  it('Given a signature older or newer than the tolerance, When verified, Then it is rejected; within it, accepted', () => {
    expect(verifySignature(GOLDEN, SECRET, BODY, T + 300)).toBe(true);
    expect(verifySignature(GOLDEN, SECRET, BODY, T + 301)).toBe(false);
    expect(verifySignature(GOLDEN, SECRET, BODY, T - 301)).toBe(false);
    expect(verifySignature(GOLDEN, SECRET, BODY, T + 3600, 3600)).toBe(true);
    expect(verifySignature(GOLDEN, SECRET, BODY, new Date((T + 86_400) * 1000))).toBe(false);
  });

  it('Given a replay with the timestamp moved forward, When verified, Then it is rejected (t is signed)', () => {
    const forged = GOLDEN.replace(`t=${T}`, `t=${T + 3600}`);
    expect(verifySignature(forged, SECRET, BODY, T + 3600)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['no t', 'v1=bbe608f12ce2b1daa7e85757cffb16ee2e68b79b929cd65975c1dc02ec7e8ca7'],
    ['no v1', `t=${T}`],
    ['short v1', `t=${T},v1=bbe608f12ce2b1da`],
    ['non-hex v1', `t=${T},v1=${'z'.repeat(64)}`],
    [
      't not a number',
      `t=${T}abc,v1=bbe608f12ce2b1daa7e85757cffb16ee2e68b79b929cd65975c1dc02ec7e8ca7`,
    ],
    ['two t', `t=${T},t=${T},v1=bbe608f12ce2b1daa7e85757cffb16ee2e68b79b929cd65975c1dc02ec7e8ca7`],
    ['no equals sign', `t${T},v1bbe608f12ce2b1daa7e85757cffb16ee2e68b79b929cd65975c1dc02ec7e8ca7`],
    ['huge', `${GOLDEN},${'x=y,'.repeat(400)}`],
  ])(
    'Given a malformed header (%s), When verified, Then it is rejected without throwing',
    (_name, header) => {
      expect(verifySignature(header as string | null | undefined, SECRET, BODY, NOW)).toBe(false);
    },
  );

  it('Given extra spaces, upper-case hex, an unknown scheme and a second v1, When verified, Then the valid v1 is found', () => {
    const v1 = GOLDEN.split('v1=')[1]!;
    expect(verifySignature(` t=${T} , v1=${v1.toUpperCase()} `, SECRET, BODY, NOW)).toBe(true);
    expect(verifySignature(`t=${T},v0=abc,v1=${'0'.repeat(64)},v1=${v1}`, SECRET, BODY, NOW)).toBe(
      true,
    );
  });

  it('Property: whatever the secret, body and time, a fresh signature verifies and a flipped body byte does not', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 16, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        (secret, body, t) => {
          const header = signPayload(secret, body, t);
          expect(verifySignature(header, secret, body, t)).toBe(true);
          const bytes = Buffer.from(body, 'utf8');
          bytes[0] = bytes[0]! ^ 1;
          expect(verifySignature(header, secret, bytes, t)).toBe(false);
        },
      ),
    );
  });
});

describe('backoffDelay', () => {
  it('Given base 30 s and max 3600 s, When attempts 1..9 fail, Then the delays double and are capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => backoffDelay(n, 30, 3600))).toEqual([
      30, 60, 120, 240, 480, 960, 1920, 3600, 3600,
    ]);
  });

  it('Given a huge attempt number, When computed, Then it stays at the cap (no overflow)', () => {
    expect(backoffDelay(5000, 30, 3600)).toBe(3600);
  });

  it('Given a random source, When computed, Then the delay is in [capped / 2, capped] and deterministic for that source', () => {
    expect(backoffDelay(3, 30, 3600, () => 0)).toBe(60);
    expect(backoffDelay(3, 30, 3600, () => 0.5)).toBe(90);
    expect(backoffDelay(3, 30, 3600, () => 0.999)).toBeLessThan(120);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r) => {
          const capped = backoffDelay(attempt, 30, 3600);
          const jittered = backoffDelay(attempt, 30, 3600, () => r);
          expect(jittered).toBeGreaterThanOrEqual(capped / 2);
          expect(jittered).toBeLessThanOrEqual(capped);
        },
      ),
    );
  });

  it('Given attempt 0 or a fraction, When computed, Then it throws a RangeError', () => {
    expect(() => backoffDelay(0, 30, 3600)).toThrow(RangeError);
    expect(() => backoffDelay(1.5, 30, 3600)).toThrow(RangeError);
    expect(() => backoffDelay(1, 0, 3600)).toThrow(RangeError);
  });
});

describe('indexNowBodies', () => {
  it('Given changed page URLs, When bodies are built, Then only the site host is kept, de-duplicated, with the key', () => {
    const bodies = indexNowBodies({
      siteUrl: 'https://www.example.com',
      key: 'a1b2c3d4e5f6',
      keyLocation: 'https://www.example.com/keys/a1b2c3d4e5f6.txt',
      urls: [
        'https://www.example.com/en/articles/geo',
        'https://www.example.com/en/articles/geo',
        'https://evil.example.net/en/articles/geo',
        'javascript:alert(1)',
        'https://www.example.com/sk/clanky/geo',
      ],
    });
    expect(bodies).toEqual([
      {
        host: 'www.example.com',
        key: 'a1b2c3d4e5f6',
        keyLocation: 'https://www.example.com/keys/a1b2c3d4e5f6.txt',
        urlList: [
          'https://www.example.com/en/articles/geo',
          'https://www.example.com/sk/clanky/geo',
        ],
      },
    ]);
  });

  it('Given more than 10,000 URLs, When bodies are built, Then each body holds at most 10,000', () => {
    const urls = Array.from(
      { length: INDEXNOW_MAX_URLS + 5 },
      (_, i) => `https://example.com/p/${i}`,
    );
    const bodies = indexNowBodies({ siteUrl: 'https://example.com', key: 'a1b2c3d4e5f6', urls });
    expect(bodies.map((b) => b.urlList.length)).toEqual([INDEXNOW_MAX_URLS, 5]);
    expect(bodies[0]).not.toHaveProperty('keyLocation');
  });

  it('Given no URL of the site, When bodies are built, Then there is nothing to send', () => {
    expect(
      indexNowBodies({
        siteUrl: 'https://example.com',
        key: 'a1b2c3d4e5f6',
        urls: ['https://other.org/x'],
      }),
    ).toEqual([]);
  });
});
