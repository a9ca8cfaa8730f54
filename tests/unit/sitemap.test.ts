import { describe, expect, it } from 'vitest';
import {
  SITEMAP_MAX_BYTES,
  SITEMAP_MAX_URLS,
  sitemapPartStarts,
  sitemapUrlBytes,
} from '../../server/src/core/sitemap';

describe('sitemapPartStarts', () => {
  it('Given fewer URLs than a file holds, When split, Then there is one file and no index', () => {
    expect(sitemapPartStarts([100, 100, 100], 5)).toEqual([0]);
  });

  it('Given more URLs than the per-file count, When split, Then each file holds at most that many', () => {
    expect(sitemapPartStarts(Array(12).fill(100), 5)).toEqual([0, 5, 10]);
  });

  it('Given URLs whose alternates make them large, When split by bytes, Then no file passes the byte limit', () => {
    const sizes = Array(10).fill(300);
    const starts = sitemapPartStarts(sizes, SITEMAP_MAX_URLS, 1_200);
    const files = starts.map((start, i) => sizes.slice(start, starts[i + 1] ?? sizes.length));
    expect(files.length).toBeGreaterThan(1);
    for (const file of files)
      expect(512 + file.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_200);
    expect(files.flat()).toHaveLength(10);
  });

  it('Given the standard limits, When 120,000 small URLs are split, Then three files of at most 50,000', () => {
    const starts = sitemapPartStarts(Array(120_000).fill(200));
    expect(starts).toEqual([0, 50_000, 100_000]);
    expect(SITEMAP_MAX_BYTES).toBe(50 * 1024 * 1024);
  });
});

describe('sitemapUrlBytes', () => {
  it('Given a URL with characters XML escapes, When measured, Then the escaped bytes count, never fewer than written', () => {
    const plain = sitemapUrlBytes('https://e.com/a', []);
    const escaped = sitemapUrlBytes('https://e.com/a?x=1&y=2', []);
    const xml = `<url><loc>https://e.com/a?x=1&amp;y=2</loc><lastmod>2026-12-01T00:00:00.000Z</lastmod></url>`;
    expect(escaped).toBeGreaterThanOrEqual(xml.length);
    expect(escaped - plain).toBe('?x=1&amp;y=2'.length);
    const alternate = `<xhtml:link rel="alternate" hreflang="sk" href="https://e.com/sk/a"/>`;
    expect(
      sitemapUrlBytes('https://e.com/a', ['https://e.com/sk/a']) - plain,
    ).toBeGreaterThanOrEqual(alternate.length);
  });
});
