import { describe, expect, it } from 'vitest';
import { withPageLinks } from '../../server/src/core/items';
import type { ManifestItem } from '../../server/src/core/types';

const page = {
  id: 'article:a:en',
  url: 'https://example.com/blog/a',
  type: 'article',
  lang: 'en',
  license: 'https://example.com/license',
  usage: { train: 'deny', infer: 'allow', cache: 'allow', redistribute: 'deny' },
  checksum: 'sha256:00',
  version: 'v1.0',
  modified: '2026-12-01T00:00:00.000Z',
  content_url: 'https://cms.example.com/api/sitemap-ai/fragments/article:a:en/content',
  columns: [],
} as ManifestItem;

describe('withPageLinks', () => {
  it('Given a page item, When served, Then its Markdown and JSON-LD addresses follow content_url on the same base', () => {
    const served = withPageLinks(page);
    expect(served.markdown_url).toBe(
      'https://cms.example.com/api/sitemap-ai/pages/article:a:en.md',
    );
    expect(served.jsonld_url).toBe(
      'https://cms.example.com/api/sitemap-ai/pages/article:a:en/jsonld',
    );
    expect(Object.keys(served).slice(-4)).toEqual([
      'content_url',
      'markdown_url',
      'jsonld_url',
      'columns',
    ]);
    expect(page.markdown_url).toBeUndefined();
  });

  it('Given a fragment item, When served, Then it gets no page links', () => {
    const fragment = { ...page, id: 'article:a:en:x', type: 'section' } as ManifestItem;
    expect(withPageLinks(fragment)).toBe(fragment);
  });
});
