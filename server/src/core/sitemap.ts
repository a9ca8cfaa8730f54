/**
 * Splitting a sitemap into files (sitemaps.org 0.9: at most 50,000 URLs and 50 MB uncompressed
 * per file; docs/protocol.md §9.3). Pure.
 */

export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Bytes of the urlset's own opening and closing tags, with room to spare. */
const URLSET_OVERHEAD_BYTES = 512;

/** An upper bound of the bytes one `<url>` takes: its address, `lastmod` and each alternate. */
export function sitemapUrlBytes(url: string, alternates: readonly string[]): number {
  // `<url><loc>` + `</loc><lastmod>` + a 24-character time + `</lastmod></url>`.
  let bytes = 70 + escapedBytes(url);
  for (const alternate of alternates) bytes += 60 + escapedBytes(alternate); // `<xhtml:link rel="alternate" hreflang="…" href="…"/>`
  return bytes;
}

/** UTF-8 bytes of a text once XML-escaped (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`). */
function escapedBytes(text: string): number {
  let bytes = new TextEncoder().encode(text).length;
  for (const ch of text) {
    if (ch === '&') bytes += 4;
    else if (ch === '<' || ch === '>') bytes += 3;
    else if (ch === '"' || ch === "'") bytes += 5;
  }
  return bytes;
}

/**
 * Where each sitemap file starts in a list of URLs of the given sizes: a new file begins when
 * the next URL would pass `maxUrls` or `maxBytes`. One start (`[0]`) means one file, no index.
 */
export function sitemapPartStarts(
  sizes: readonly number[],
  maxUrls: number = SITEMAP_MAX_URLS,
  maxBytes: number = SITEMAP_MAX_BYTES,
): number[] {
  const starts = [0];
  let count = 0;
  let bytes = URLSET_OVERHEAD_BYTES;
  sizes.forEach((size, index) => {
    if (count > 0 && (count + 1 > maxUrls || bytes + size > maxBytes)) {
      starts.push(index);
      count = 0;
      bytes = URLSET_OVERHEAD_BYTES;
    }
    count += 1;
    bytes += size;
  });
  return starts;
}
