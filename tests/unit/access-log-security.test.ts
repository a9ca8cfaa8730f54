import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  detectDrift,
  ingestType,
  isSuccessfulStatus,
  loggableItemId,
  parseClientValidators,
  pseudonymiseClient,
  utcDay,
} from '../../server/src/core/access-log';

const SALT = 'a'.repeat(64);
const HEX = 'f'.repeat(64);

describe('the access log stores a pseudonym, never an address (README › Observability)', () => {
  it('Given an IP and the day’s salt, Then the pseudonym is a 64-hex HMAC that does not contain the address', () => {
    const pseudonym = pseudonymiseClient('203.0.113.7', SALT);
    expect(pseudonym).toMatch(/^[0-9a-f]{64}$/);
    expect(pseudonym).not.toContain('203.0.113.7');
    // Golden value: HMAC-SHA256 of the address with the salt as key.
    expect(pseudonym).toBe('1edce7c2d44782032e010391d15b8d059e9d7137cf66ac22de27466ce148e222');
  });

  it('Given the same client on the same day, Then the pseudonym is the same; another day’s salt gives an unrelated one', () => {
    expect(pseudonymiseClient('2001:db8::1', SALT)).toBe(pseudonymiseClient('2001:DB8::1 ', SALT));
    expect(pseudonymiseClient('2001:db8::1', SALT)).not.toBe(
      pseudonymiseClient('2001:db8::1', 'b'.repeat(64)),
    );
    expect(pseudonymiseClient('203.0.113.7', SALT)).not.toBe(
      pseudonymiseClient('203.0.113.8', SALT),
    );
  });

  it('Given any address, Then the pseudonym never contains it (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.string({ minLength: 16, maxLength: 64 }), (ip, salt) => {
        const pseudonym = pseudonymiseClient(ip, salt);
        expect(pseudonym).toMatch(/^[0-9a-f]{64}$/);
        expect(pseudonym.includes(ip)).toBe(false);
      }),
    );
  });

  it('Given a time, Then its UTC day names the salt', () => {
    expect(utcDay('2026-11-30T23:59:59.999Z')).toBe('2026-11-30');
    expect(utcDay('2026-12-01T00:30:00+01:00')).toBe('2026-11-30');
    expect(utcDay(0)).toBe('1970-01-01');
  });
});

describe('hostile request values are bounded', () => {
  it.each([
    ['article:geo-index:en:intro', 'article:geo-index:en:intro'],
    ['ARTICLE:X', null],
    ['../../etc/passwd', null],
    ['a'.repeat(256), null],
    ['', null],
    [42, null],
    [['a', 'b'], null],
  ])('Given the path id %j, Then the logged id is %j', (raw, expected) => {
    expect(loggableItemId(raw)).toBe(expected);
  });

  it('Given If-None-Match values, Then versions of fragment ETags and checksums of content ETags are read', () => {
    expect(parseClientValidators('"s12-0123456789abcdef-v2.1"')).toEqual({
      versions: ['v2.1'],
      checksums: [],
    });
    expect(parseClientValidators(`W/"s3-aa-v1.0", "${HEX}"`)).toEqual({
      versions: ['v1.0'],
      checksums: [`sha256:${HEX}`],
    });
    expect(parseClientValidators('*')).toEqual({ versions: [], checksums: [] });
    expect(parseClientValidators(undefined)).toEqual({ versions: [], checksums: [] });
    expect(parseClientValidators('"s1-x-v99999999999.1"')).toEqual({ versions: [], checksums: [] });
  });

  it('Given a huge If-None-Match, Then at most 8 tags of its first 1024 characters are read, quickly', () => {
    const started = performance.now();
    const header = Array.from({ length: 100_000 }, (_, i) => `"s1-x-v${i}.0"`).join(', ');
    const parsed = parseClientValidators(header);
    expect(parsed.versions.length).toBeLessThanOrEqual(8);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('drift (README › Observability): the agent held an older version than the current one', () => {
  const served = { version: 'v3.1', checksum: `sha256:${HEX}` };
  const none = { versions: [], checksums: [] };

  it('orders versions by content, then metadata', () => {
    expect(compareVersions('v1.9', 'v2.0')).toBeLessThan(0);
    expect(compareVersions('v2.10', 'v2.9')).toBeGreaterThan(0);
    expect(compareVersions('v2.0', 'v2.0')).toBe(0);
    expect(compareVersions('junk', 'v2.0')).toBe(0);
  });

  it('Given a fragment ETag of an older version answered with 200, Then it is drift and names the version held', () => {
    expect(
      detectDrift({
        kind: 'fragment',
        status: 200,
        validators: { versions: ['v2.4', 'v3.0'], checksums: [] },
        served,
      }),
    ).toEqual({
      drift: true,
      clientVersion: 'v3.0',
    });
  });

  it('Given the current version, a 304, an error or no validator, Then it is not drift', () => {
    expect(
      detectDrift({
        kind: 'fragment',
        status: 200,
        validators: { versions: ['v3.1'], checksums: [] },
        served,
      }).drift,
    ).toBe(false);
    expect(
      detectDrift({
        kind: 'fragment',
        status: 304,
        validators: { versions: ['v1.0'], checksums: [] },
        served,
      }).drift,
    ).toBe(false);
    expect(
      detectDrift({
        kind: 'fragment',
        status: 404,
        validators: { versions: ['v1.0'], checksums: [] },
        served: null,
      }).drift,
    ).toBe(false);
    expect(detectDrift({ kind: 'fragment', status: 200, validators: none, served }).drift).toBe(
      false,
    );
    expect(
      detectDrift({
        kind: 'manifest',
        status: 200,
        validators: { versions: ['v1.0'], checksums: [] },
        served,
      }).drift,
    ).toBe(false);
  });

  it('Given a content ETag of another checksum answered with 200, Then it is drift', () => {
    expect(
      detectDrift({
        kind: 'content',
        status: 200,
        validators: { versions: [], checksums: [`sha256:${'0'.repeat(64)}`] },
        served,
      }),
    ).toEqual({
      drift: true,
      clientVersion: null,
    });
    expect(
      detectDrift({
        kind: 'content',
        status: 200,
        validators: { versions: [], checksums: [served.checksum] },
        served,
      }).drift,
    ).toBe(false);
  });

  it('groups ingest by the item type for fragments and content, else by route', () => {
    expect(ingestType('fragment', 'section')).toBe('section');
    expect(ingestType('content', 'figure')).toBe('figure');
    expect(ingestType('fragment', null)).toBe('fragment');
    expect(ingestType('changelog', 'section')).toBe('changelog');
    expect(ingestType('manifest', undefined)).toBe('manifest');
  });

  it('counts 2xx and 304 as successful fetches', () => {
    expect([200, 204, 304].every(isSuccessfulStatus)).toBe(true);
    expect([301, 400, 404, 410, 429, 500].some(isSuccessfulStatus)).toBe(false);
  });
});
