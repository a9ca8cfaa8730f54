import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  absoluteUrl,
  fillPathPattern,
  isHttpUrl,
  isSameSite,
  patternPlaceholders,
} from '../../shared/urls';

describe('isHttpUrl', () => {
  it.each(['https://example.com', 'http://localhost:1337/uploads/a.png', 'https://例え.jp/パス'])(
    'Given %j, When checked, Then it is an http(s) URL',
    (url) => {
      expect(isHttpUrl(url)).toBe(true);
    },
  );

  it.each([
    'javascript:alert(1)',
    'ftp://example.com/file',
    'mailto:editor@example.com',
    '/uploads/a.png',
    '//cdn.example.org/a.png',
    'https://',
    'not a url',
    '',
  ])('Given %j, When checked, Then it is not', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });

  it("Given any string, When checked, Then the answer is the URL parser's (property)", () => {
    const parsed = (value: string) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    };
    const pieces = fc.constantFrom(
      'http',
      'HTTPS',
      ':',
      '//',
      '/',
      'a.b',
      ' ',
      '\t',
      'x',
      '@',
      '?',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces).map((p) => p.join('')),
        ),
        (value) => {
          expect(isHttpUrl(value)).toBe(parsed(value));
        },
      ),
    );
  });
});

describe('absoluteUrl', () => {
  it.each([
    ['https://cms.example.com', '/uploads/cover.jpg', 'https://cms.example.com/uploads/cover.jpg'],
    ['https://cms.example.com/', 'uploads/cover.jpg', 'https://cms.example.com/uploads/cover.jpg'],
    [
      'https://example.com/strapi/',
      '/uploads/cover.jpg',
      'https://example.com/strapi/uploads/cover.jpg',
    ],
    ['https://cms.example.com', 'https://cdn.example.org/a.png', 'https://cdn.example.org/a.png'],
    ['https://cms.example.com', '//cdn.example.org/img/a.png', 'https://cdn.example.org/img/a.png'],
    ['http://localhost:1337', '//cdn.example.org/img/a.png', 'http://cdn.example.org/img/a.png'],
  ])('Given base %j and %j, When made absolute, Then it is %j', (base, value, expected) => {
    expect(absoluteUrl(base, value)).toBe(expected);
  });

  it('Given any site-relative path, When made absolute, Then the result is an http(s) URL on the base host (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\/?[a-z0-9_-]{1,12}(\/[a-z0-9_.-]{1,12}){0,3}$/), (path) => {
        const url = absoluteUrl('https://cms.example.com', path);
        expect(isHttpUrl(url)).toBe(true);
        expect(new URL(url).host).toBe('cms.example.com');
      }),
    );
  });
});

describe('patternPlaceholders and fillPathPattern', () => {
  it('Given a path pattern, When its placeholders are listed, Then they come in order', () => {
    expect(patternPlaceholders('/{locale}/{category}/{slug}-{documentId}')).toEqual([
      'locale',
      'category',
      'slug',
      'documentId',
    ]);
    expect(patternPlaceholders('/articles/latest')).toEqual([]);
    expect(patternPlaceholders('/{1bad}/{ok_2}')).toEqual(['ok_2']);
  });

  it('Given all values, When filled, Then each is percent-encoded in place', () => {
    expect(
      fillPathPattern('/{locale}/clanky/{slug}', { locale: 'sk', slug: 'prečo sitemap/AI?' }),
    ).toBe('/sk/clanky/pre%C4%8Do%20sitemap%2FAI%3F');
  });

  it('Given a missing or empty value, When filled, Then there is no path', () => {
    expect(fillPathPattern('/{locale}/articles/{slug}', { locale: 'en' })).toBeNull();
    expect(fillPathPattern('/{locale}/articles/{slug}', { locale: 'en', slug: '' })).toBeNull();
  });

  it('Given a value that looks like a traversal, When filled, Then it stays inside its segment', () => {
    expect(fillPathPattern('/articles/{slug}', { slug: '../../admin' })).toBe(
      '/articles/..%2F..%2Fadmin',
    );
  });
});

describe('isSameSite', () => {
  it.each([
    ['https://example.com/en/glossary', 'https://example.com', true],
    ['http://example.com/x', 'https://example.com', true],
    ['https://example.com:8443/x', 'https://example.com', false],
    ['https://www.sitemaps.org/protocol.html', 'https://example.com', false],
    ['https://example.com.evil.test/x', 'https://example.com', false],
    ['not a url', 'https://example.com', false],
  ])('Given %j on site %j, When compared, Then same site is %s', (url, site, same) => {
    expect(isSameSite(url, site)).toBe(same);
  });

  it("Given two sites asked about in turn, When compared, Then each answer is its own site's", () => {
    for (let i = 0; i < 3; i += 1) {
      expect(isSameSite('https://a.example/x', 'https://a.example')).toBe(true);
      expect(isSameSite('https://a.example/x', 'https://b.example')).toBe(false);
      expect(isSameSite('https://b.example/y', 'https://b.example/')).toBe(true);
      expect(isSameSite('https://b.example/y', 'not a site')).toBe(false);
    }
  });
});
