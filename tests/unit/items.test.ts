import { describe, expect, it } from 'vitest';
import { checksumOf } from '../../server/src/core/canonical';
import { buildCitation } from '../../server/src/core/citation';
import {
  CHECKSUM_OF_ROW,
  CITATION_FROM,
  articleId,
  buildEntryItems,
  contentUrl,
  documentDrafts,
  entryKey,
  finalizeDraft,
  fragmentId,
  linkTranslations,
  servedItem,
  storedItem,
  nextState,
  readStoredItem,
  versionString,
} from '../../server/src/core/items';
import type { ItemDraft, ManifestItem, StoredItemState } from '../../server/src/core/types';
import { ARTICLE_TYPE, GEO_BODY, SITE, geoEntry } from './fixtures/entries';

const PARENT = 'article:geo-index:en';

function build(...args: Parameters<typeof geoEntry>): ItemDraft[] {
  const drafts = buildEntryItems(geoEntry(...args), ARTICLE_TYPE, SITE);
  if (drafts === null) throw new Error('expected items');
  return drafts;
}

function byId(drafts: readonly ItemDraft[], id: string): ItemDraft {
  const draft = drafts.find((d) => d.id === id);
  if (!draft) throw new Error(`no draft ${id}; have ${drafts.map((d) => d.id).join(', ')}`);
  return draft;
}

describe('entry keys and ids', () => {
  it('Given a slug, When keyed, Then the slug is used; without one the documentId is', () => {
    expect(entryKey({ slug: 'GEO Index 2025', documentId: 'abc' })).toBe('geo-index-2025');
    expect(entryKey({ slug: '  ', documentId: 'k8v2q0m3x1c9d7e5f4a6b2n1' })).toBe(
      'k8v2q0m3x1c9d7e5f4a6b2n1',
    );
    expect(entryKey({ documentId: 'K8V2Q0' })).toBe('k8v2q0');
  });

  it('Given type, key and locale, When an article id is made, Then it is type:key:lang in lowercase', () => {
    expect(articleId('article', 'geo-index', 'en-GB')).toBe('article:geo-index:en-gb');
    expect(articleId('Blog Post', 'geo-index', 'sk')).toBe('blog-post:geo-index:sk');
    expect(fragmentId('article:geo-index:sk', 'preco-su-klasicke-sitemapy-nedostatocne')).toBe(
      'article:geo-index:sk:preco-su-klasicke-sitemapy-nedostatocne',
    );
  });

  it('Given an API URL with a trailing slash, When a content URL is made, Then it points at the fragment content route', () => {
    expect(contentUrl({ ...SITE, apiUrl: 'https://cms.example.com/' }, `${PARENT}:intro`)).toBe(
      'https://cms.example.com/api/sitemap-ai/fragments/article:geo-index:en:intro/content',
    );
  });
});

describe('buildEntryItems', () => {
  const drafts = build();

  it('Given the GEO entry, When items are built, Then the article comes first and fragments follow in document order', () => {
    expect(drafts.map((d) => [d.id, d.type])).toEqual([
      [PARENT, 'article'],
      [`${PARENT}:intro`, 'section'],
      [`${PARENT}:why-classic-sitemaps-fail`, 'section'],
      [`${PARENT}:results`, 'section'],
      [`${PARENT}:results-table-1`, 'table'],
      [`${PARENT}:cover`, 'figure'],
    ]);
  });

  it('Given the GEO entry, When items are built, Then fragment URLs are the page permalink plus the fragment anchor', () => {
    expect(drafts.map((d) => d.item.url)).toEqual([
      'https://example.com/en/articles/geo-index',
      'https://example.com/en/articles/geo-index#intro',
      'https://example.com/en/articles/geo-index#why-classic-sitemaps-fail',
      'https://example.com/en/articles/geo-index#results',
      'https://example.com/en/articles/geo-index#results-table-1',
      'https://example.com/en/articles/geo-index#cover',
    ]);
  });

  it('Given the GEO entry, When items are built, Then only fragments have a parent, and every item has its content URL', () => {
    const article = drafts[0]!;
    expect(article.item).not.toHaveProperty('parent');
    expect(article.parent).toBeUndefined();
    for (const draft of drafts.slice(1)) {
      expect(draft.item.parent).toBe(PARENT);
      expect(draft.parent).toBe(PARENT);
    }
    for (const draft of drafts) {
      expect(draft.item.content_url).toBe(
        `https://cms.example.com/api/sitemap-ai/fragments/${draft.id}/content`,
      );
    }
  });

  it('Given the GEO entry, When items are built, Then each checksum is the sha256 of the canonical content', () => {
    for (const draft of drafts) {
      expect(draft.item.checksum).toBe(checksumOf(draft.content));
      expect(draft.checksum).toBe(draft.item.checksum);
    }
    expect(byId(drafts, `${PARENT}:results-table-1`).content).toBe(
      GEO_BODY.split('\n').slice(8).join('\n'),
    );
    expect(
      drafts[0]!.content.startsWith(
        '# A sitemap for AI\n\nWhy AI agents need fragment pointers.\n\nSitemaps were built',
      ),
    ).toBe(true);
  });

  it('Given links in the text, When items are built, Then evidence cites external hosts only, after the editor evidence', () => {
    const section = byId(drafts, `${PARENT}:why-classic-sitemaps-fail`);
    expect(section.item.evidence).toEqual([
      {
        rel: 'standard',
        url: 'https://www.rfc-editor.org/rfc/rfc9309',
        title: 'Robots Exclusion Protocol',
      },
      { rel: 'cites', url: 'https://www.sitemaps.org/protocol.html' },
    ]);
    expect(JSON.stringify(drafts.map((d) => d.item.evidence))).not.toContain(
      'example.com/en/glossary',
    );
  });

  it('Given site defaults and an author with ORCID, When items are built, Then policy, signals and type data are set', () => {
    const table = byId(drafts, `${PARENT}:results-table-1`);
    expect(table.item).toMatchObject({
      lang: 'en',
      title: 'Results — table 1',
      license: 'https://example.com/license#tdm',
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      topics: ['GEO', 'LLM'],
      entity_ids: ['Q2013'],
      schema: ['Table'],
      embedding_hint: { chunk: 'by_h2', max_tokens: 800 },
      columns: [{ name: 'Agent' }, { name: 'Share', unit: '%' }],
      units: ['', '%'],
      signals: {
        canonical: 'https://example.com/en/articles/geo-index',
        author_id: 'ORCID:0000-0002-1825-0097',
        author: 'Jana Nováková',
      },
    });
    expect(byId(drafts, `${PARENT}:cover`).item).toMatchObject({
      alt: 'Robot reading a map',
      caption: 'Agents read manifests',
      media_url: 'https://cms.example.com/uploads/cover_robot.jpg',
      schema: ['ImageObject'],
    });
    expect(drafts[0]!.item.schema).toEqual(['Article']);
  });

  it('Given a sensitive entry, When items are built, Then nothing is published', () => {
    expect(
      buildEntryItems(
        geoEntry({ metadata: { sensitive: true, topics: ['GEO'] } }),
        ARTICLE_TYPE,
        SITE,
      ),
    ).toEqual([]);
  });

  it('Given a path pattern the entry cannot fill, When items are built, Then the result is null', () => {
    expect(
      buildEntryItems(geoEntry({ pathValues: { locale: 'en' } }), ARTICLE_TYPE, SITE),
    ).toBeNull();
    expect(
      buildEntryItems(geoEntry({ pathValues: { locale: 'en', slug: '' } }), ARTICLE_TYPE, SITE),
    ).toBeNull();
  });

  it('Given path values with reserved characters, When the URL is made, Then they are percent-encoded', () => {
    const [article] = build({ pathValues: { locale: 'en', slug: 'geo index/2025?' } });
    expect(article!.item.url).toBe('https://example.com/en/articles/geo%20index%2F2025%3F');
  });

  it('Given a fragment excluded by its id, When items are built, Then only that fragment is missing', () => {
    const excluded = build({
      metadata: { fragments: { [`${PARENT}:results`]: { exclude: true } } },
    });
    expect(excluded.map((d) => d.id)).toEqual(
      drafts.map((d) => d.id).filter((id) => id !== `${PARENT}:results`),
    );
  });

  it('Given an excluded section, When items are built, Then its text is in no public content, the page content included', () => {
    const results = byId(drafts, `${PARENT}:results`);
    const items = build({ metadata: { fragments: { [`${PARENT}:results`]: { exclude: true } } } });
    expect(byId(drafts, PARENT).content).toContain(results.content);
    for (const item of items) {
      expect(item.content, item.id).not.toContain(results.content);
      expect(item.item.checksum, item.id).toBe(checksumOf(item.content));
    }
    // Only the excluded text is gone from the page: the other sections are still in it.
    const page = byId(items, PARENT).content;
    for (const item of items.filter((i) => i.type === 'section')) {
      expect(page, item.id).toContain(item.content);
    }
  });

  it('Given an excluded table, When items are built, Then neither its section nor the page carries its text', () => {
    const table = drafts.find((d) => d.type === 'table');
    if (!table) throw new Error('the fixture has a table');
    const key = table.id.slice(PARENT.length + 1);
    const items = build({ metadata: { fragments: { [key]: { exclude: true } } } });
    expect(items.map((i) => i.id)).not.toContain(table.id);
    for (const item of items) expect(item.content, item.id).not.toContain(table.content);
    const sectionId = `${PARENT}:${key.replace(/-table-\d+$/, '')}`;
    expect(byId(drafts, sectionId).content).toContain(table.content);
    expect(byId(items, sectionId).content).not.toContain(table.content);
  });

  it('Given overrides by fragment id and by fragment key, When items are built, Then both apply and the id wins over the key', () => {
    const items = build({
      metadata: {
        usage: { train: 'allow' },
        fragments: {
          'results-table-1': {
            license: 'https://creativecommons.org/licenses/by/4.0/',
            usage: { redistribute: 'allow' },
            topics: ['Crawlers'],
          },
          cover: { license: 'https://photos.example.org/licence/editorial' },
          [`${PARENT}:cover`]: {
            license: 'https://creativecommons.org/licenses/by-nd/4.0/',
            usage: { train: 'deny' },
          },
        },
      },
    });
    const table = byId(items, `${PARENT}:results-table-1`).item;
    expect(table.license).toBe('https://creativecommons.org/licenses/by/4.0/');
    expect(table.usage).toEqual({
      train: 'allow',
      infer: 'allow-with-citation',
      cache: 'allow',
      redistribute: 'allow',
    });
    expect(table.topics).toEqual(['Crawlers']);
    const cover = byId(items, `${PARENT}:cover`).item;
    expect(cover.license).toBe('https://creativecommons.org/licenses/by-nd/4.0/');
    expect(cover.usage.train).toBe('deny');
    expect(byId(items, `${PARENT}:results`).item.license).toBe('https://example.com/license#tdm');
    expect(byId(items, `${PARENT}:results`).item.usage.train).toBe('allow');
  });

  it('Given dpi and bounding boxes on a figure override, When items are built, Then only that figure carries them', () => {
    const boxes = [{ x: 10, y: 20, width: 300, height: 120, label: 'Manifest' }];
    const items = build({
      metadata: {
        fragments: {
          [`${PARENT}:cover`]: { dpi: 300, bounding_boxes: boxes },
          [`${PARENT}:results`]: { dpi: 150 },
        },
      },
    });
    const cover = byId(items, `${PARENT}:cover`).item;
    expect(cover.dpi).toBe(300);
    expect(cover.bounding_boxes).toEqual(boxes);
    expect(cover.bounding_boxes).not.toBe(boxes);
    const section = byId(items, `${PARENT}:results`).item;
    expect(section.dpi).toBeUndefined();
    expect(byId(drafts, `${PARENT}:cover`).item.dpi).toBeUndefined();
  });

  it('Given a type licence and an entry licence, When items are built, Then the entry wins over the type', () => {
    const type = {
      ...ARTICLE_TYPE,
      license: 'https://creativecommons.org/licenses/by-nc/4.0/',
      usage: { cache: 'deny' as const },
    };
    const typed = buildEntryItems(geoEntry(), type, SITE)!;
    expect(typed[0]!.item.license).toBe('https://creativecommons.org/licenses/by-nc/4.0/');
    expect(typed[0]!.item.usage.cache).toBe('deny');
    const entryLicensed = buildEntryItems(
      geoEntry({ metadata: { license: 'https://creativecommons.org/licenses/by/4.0/' } }),
      type,
      SITE,
    )!;
    expect(
      entryLicensed.every((d) => d.item.license === 'https://creativecommons.org/licenses/by/4.0/'),
    ).toBe(true);
  });

  it('Given an entry without slug, When items are built, Then ids use the documentId', () => {
    expect(build({ slug: undefined })[0]!.id).toBe('article:k8v2q0m3x1c9d7e5f4a6b2n1:en');
  });

  it('Given an entry, When items are built, Then the entry is not mutated', () => {
    const entry = geoEntry({
      metadata: { topics: ['GEO'], fragments: { intro: { topics: ['Lead'] } } },
    });
    const before = structuredClone(entry);
    buildEntryItems(entry, ARTICLE_TYPE, SITE);
    expect(entry).toEqual(before);
  });
});

/** A Slovak translation of the GEO entry with the same sequence of fragment types. */
const SLOVAK_SAME_SHAPE = {
  lang: 'sk',
  slug: 'geo-index',
  title: 'Sitemap pre AI',
  summary: undefined,
  bodies: [
    {
      field: 'body',
      format: 'markdown' as const,
      value:
        'Sitemapy vznikli pre stránky.\n\n## Prečo klasické sitemapy zlyhávajú\n\nUvádzajú len URL.\n\n## Výsledky\n\n| Agent | Podiel (%) |\n| --- | ---: |\n| GPTBot | 41 |',
    },
  ],
  pathValues: { locale: 'sk', slug: 'geo-index' },
};

describe('linkTranslations', () => {
  const english = build();
  const slovakSameShape = build(SLOVAK_SAME_SHAPE);

  it('Given a translation with the same fragment shape, When linked, Then every item points at the item in the same position', () => {
    const linked = linkTranslations(english, slovakSameShape);
    expect(linked.map((d) => d.item.alt_of)).toEqual(english.map((d) => d.id));
    expect(linked[2]!.id).toBe('article:geo-index:sk:preco-klasicke-sitemapy-zlyhavaju');
  });

  it('Given a translation with another shape, When linked, Then only the article is linked', () => {
    const slovakShorter = slovakSameShape.filter((d) => d.type !== 'table');
    const linked = linkTranslations(english, slovakShorter);
    expect(linked.map((d) => d.item.alt_of)).toEqual([
      PARENT,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('Given an editor alt_of, When linked, Then it is kept; and the inputs are not changed', () => {
    const withEditorLink = slovakSameShape.map((d, i) =>
      i === 1 ? { ...d, item: { ...d.item, alt_of: 'article:other:en:intro' } } : d,
    );
    const linked = linkTranslations(english, withEditorLink);
    expect(linked[1]!.item.alt_of).toBe('article:other:en:intro');
    expect(slovakSameShape[0]!.item.alt_of).toBeUndefined();
  });
});

describe('documentDrafts', () => {
  const english = geoEntry();
  const slovak = geoEntry(SLOVAK_SAME_SHAPE);

  it('Given a translation read before the default locale, When built, Then the default locale comes first and the translation points at it, as linkTranslations and finalizeDraft give', () => {
    const { drafts, unfilled } = documentDrafts([slovak, english], ARTICLE_TYPE, SITE);
    const reference = buildEntryItems(english, ARTICLE_TYPE, SITE)!;
    const expected = [
      ...reference,
      ...linkTranslations(reference, buildEntryItems(slovak, ARTICLE_TYPE, SITE)!),
    ].map(finalizeDraft);
    expect(drafts).toEqual(expected);
    expect(drafts[0]!.id).toBe(PARENT);
    expect(drafts.find((d) => d.id === 'article:geo-index:sk')!.item.alt_of).toBe(PARENT);
    expect(unfilled).toEqual([]);
  });

  it('Given a translation whose default locale is not published, When built, Then it stands alone, unlinked', () => {
    const { drafts } = documentDrafts([slovak], ARTICLE_TYPE, SITE);
    expect(drafts.length).toBeGreaterThan(1);
    expect(drafts.every((d) => d.lang === 'sk' && d.item.alt_of === undefined)).toBe(true);
  });

  it('Given an entry that cannot fill its path pattern, When built, Then it is reported as unfilled and publishes nothing; a sensitive one just publishes nothing', () => {
    const noSlug = geoEntry({ pathValues: { locale: 'en' } });
    const result = documentDrafts([noSlug, slovak], ARTICLE_TYPE, SITE);
    expect(result.unfilled).toEqual([noSlug]);
    expect(result.drafts.every((d) => d.lang === 'sk' && d.item.alt_of === undefined)).toBe(true);
    const sensitive = documentDrafts(
      [geoEntry({ metadata: { sensitive: true } })],
      ARTICLE_TYPE,
      SITE,
    );
    expect(sensitive).toEqual({ drafts: [], unfilled: [] });
  });

  it('Given entries, When built, Then they are not mutated', () => {
    const entries = [slovak, english];
    const before = structuredClone(entries);
    documentDrafts(entries, ARTICLE_TYPE, SITE);
    expect(entries).toEqual(before);
  });
});

describe('versioning', () => {
  const NOW = '2025-11-05T12:00:00.000Z';
  const [article] = build().map(finalizeDraft);

  it('Given a new item, When versioned, Then it is added as v1.0 dated by the entry', () => {
    const { change, state } = nextState(undefined, article!, NOW);
    expect(change).toBe('added');
    expect(versionString(state)).toBe('v1.0');
    expect(state).toMatchObject({
      checksum: article!.checksum,
      metaHash: article!.metaHash,
      modified: '2025-10-22T09:00:00.000Z',
    });
    expect(state.history).toEqual(['2025-10-22T09:00:00.000Z']);
  });

  it('Given changed content, When versioned, Then the content version goes up, metadata resets and the change is recorded', () => {
    const previous: StoredItemState = {
      checksum: `sha256:${'0'.repeat(64)}`,
      metaHash: 'old',
      contentVersion: 1,
      metaVersion: 3,
      modified: '2025-10-22T09:00:00.000Z',
      firstPublished: '2025-10-22T09:00:00.000Z',
      history: ['2025-10-22T09:00:00.000Z'],
    };
    const { change, state } = nextState(previous, article!, NOW);
    expect(change).toBe('content');
    expect(versionString(state)).toBe('v2.0');
    expect(state.modified).toBe(NOW);
    expect(state.history).toEqual(['2025-10-22T09:00:00.000Z', NOW]);
    expect(previous.history).toEqual(['2025-10-22T09:00:00.000Z']);
  });

  it('Given a long history, When content changes, Then the history keeps the 50 most recent changes', () => {
    const history = Array.from({ length: 50 }, (_, i) =>
      new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
    );
    const previous: StoredItemState = {
      checksum: 'sha256:old',
      metaHash: article!.metaHash,
      contentVersion: 50,
      metaVersion: 0,
      modified: history[49]!,
      firstPublished: history[0]!,
      history,
    };
    const { state } = nextState(previous, article!, NOW);
    expect(state.history).toHaveLength(50);
    expect(state.history[0]).toBe(history[1]);
    expect(state.history[49]).toBe(NOW);
    expect(versionString(state)).toBe('v51.0');
  });

  it('Given a licence change only, When versioned, Then it is a metadata change v1.1 and the history is untouched', () => {
    const { state: v10 } = nextState(undefined, article!, NOW);
    const relicensed = finalizeDraft(
      build({ metadata: { license: 'https://creativecommons.org/licenses/by/4.0/' } })[0]!,
    );
    expect(relicensed.checksum).toBe(article!.checksum);
    expect(relicensed.metaHash).not.toBe(article!.metaHash);
    const { change, state } = nextState(v10, relicensed, NOW);
    expect(change).toBe('metadata');
    expect(versionString(state)).toBe('v1.1');
    expect(state.modified).toBe(NOW);
    expect(state.history).toEqual(v10.history);
  });

  it('Given a revoked train permission, When versioned, Then it is a metadata change', () => {
    const { state: v10 } = nextState(
      undefined,
      finalizeDraft(build({ metadata: { usage: { train: 'allow' } } })[0]!),
      NOW,
    );
    expect(nextState(v10, article!, NOW).change).toBe('metadata');
  });

  it('Given an item that was removed and comes back, When versioned, Then it is added again with its content version bumped and its history kept', () => {
    const { state: v10 } = nextState(undefined, article!, NOW);
    const { change, state } = nextState(
      { ...v10, removed: true },
      article!,
      '2026-01-01T00:00:00.000Z',
    );
    expect(change).toBe('added');
    expect(versionString(state)).toBe('v2.0');
    expect(state.history).toEqual([...v10.history, '2026-01-01T00:00:00.000Z']);
  });

  it('Given a renamed item with the same content and metadata, When versioned, Then the rename is a metadata change', () => {
    const { state: v10 } = nextState(undefined, article!, NOW);
    const { change, state } = nextState(v10, article!, NOW, { renamed: true });
    expect(change).toBe('metadata');
    expect(versionString(state)).toBe('v1.1');
  });

  it('Given nothing changed, When versioned, Then the state is unchanged', () => {
    const { state: v10 } = nextState(undefined, article!, NOW);
    const again = finalizeDraft(build()[0]!);
    const { change, state } = nextState(v10, again, '2026-01-01T00:00:00.000Z');
    expect(change).toBe('none');
    expect(state).toEqual(v10);
  });

  it('Given the same entry re-published later, When finalised, Then the metadata hash does not change', () => {
    const republished = finalizeDraft(
      build({ publishedAt: '2025-12-01T10:00:00.000Z', updatedAt: '2025-12-01T10:00:00.000Z' })[0]!,
    );
    expect(republished.metaHash).toBe(article!.metaHash);
  });
});

describe('storedItem and servedItem', () => {
  const draft = finalizeDraft(build()[2]!);
  const state: StoredItemState = {
    checksum: draft.checksum,
    metaHash: draft.metaHash,
    contentVersion: 2,
    metaVersion: 1,
    modified: '2025-10-21T09:00:00.000Z',
    firstPublished: '2025-09-01T08:00:00.000Z',
    history: ['2025-09-01T08:00:00.000Z', '2025-10-21T09:00:00.000Z'],
  };
  const SNAPSHOT_TIME = new Date('2025-10-22T09:00:00.000Z');

  /** A stored item as a read gives it back: through its JSON, the citation built. */
  const reread = (item: ManifestItem) =>
    readStoredItem(JSON.parse(JSON.stringify(item)) as ManifestItem, state.checksum);

  it('Given a versioned draft, When stored and read back, Then it carries version, modified and a generated citation', () => {
    const stored = reread(storedItem(draft, state));
    expect(stored.version).toBe('v2.1');
    expect(stored.modified).toBe('2025-10-21T09:00:00.000Z');
    expect(stored.citation!.apa).toBe(
      'Nováková, J. (2025). Why classic sitemaps fail. In A sitemap for AI (v2.1). Example News. https://example.com/en/articles/geo-index#why-classic-sitemaps-fail',
    );
    expect(stored.citation!.bibtex).toContain('  version = {v2.1},');
    expect(stored.signals).toMatchObject({
      canonical: 'https://example.com/en/articles/geo-index',
      first_published: '2025-09-01T08:00:00.000Z',
    });
  });

  it('Given an editor citation override, When stored, Then it replaces the generated APA but keeps the BibTeX', () => {
    const overridden = finalizeDraft(
      build({
        metadata: {
          fragments: {
            'why-classic-sitemaps-fail': { citation: { apa: 'Nováková, J. (2025). Custom.' } },
          },
        },
      })[2]!,
    );
    const stored = reread(storedItem(overridden, state));
    expect(stored.citation!.apa).toBe('Nováková, J. (2025). Custom.');
    expect(stored.citation!.bibtex.startsWith('@online{')).toBe(true);
    expect(Object.keys(stored.citation!)).toEqual(['apa', 'bibtex']);
  });

  it('Given a stored item, When its stored form is read, Then it keeps what builds the citation instead of its text, and leaves its checksum to its row', () => {
    const json = JSON.stringify(storedItem(draft, state));
    expect(JSON.parse(json).checksum).toBe(CHECKSUM_OF_ROW);
    expect(json).not.toContain(draft.checksum);
    expect(JSON.parse(json).citation).toEqual({
      [CITATION_FROM]: {
        site: 'Example News',
        page: 'A sitemap for AI',
        authors: ['Jana Nováková'],
      },
    });
    expect(json).not.toContain('@online{');
  });

  it('Given a stored item, When read back, Then it is the item with the citation built from its own fields, keys in order', () => {
    const stored = storedItem(draft, state);
    const read = reread(stored);
    const citation = buildCitation(
      {
        title: draft.citationInput.title,
        pageTitle: draft.citationInput.pageTitle,
        authors: draft.citationInput.authors,
        siteName: draft.citationInput.siteName,
        url: draft.citationInput.url,
        lang: draft.citationInput.lang,
        date: state.modified,
      },
      'v2.1',
    );
    expect(read).toEqual({ ...stored, checksum: draft.checksum, citation });
    expect(Object.keys(read)).toEqual(Object.keys(stored));
    expect(read.citation!.bibtex).toContain('  date = {2025-10-21},');
  });

  it('Given both citation texts overridden, When read back, Then the editor texts are served in the generated order', () => {
    const overridden = finalizeDraft(
      build({
        metadata: {
          fragments: {
            'why-classic-sitemaps-fail': {
              citation: { bibtex: '@misc{own}', apa: 'Own, A. (2025). Own.' },
            },
          },
        },
      })[2]!,
    );
    const read = reread(storedItem(overridden, state));
    expect(read.citation).toEqual({ apa: 'Own, A. (2025). Own.', bibtex: '@misc{own}' });
    expect(Object.keys(read.citation!)).toEqual(['apa', 'bibtex']);
  });

  it('Given an item stored with its citation text and checksum (an earlier release), When read back, Then it is served as stored', () => {
    const earlier = {
      ...reread(storedItem(draft, state)),
      citation: { apa: 'Stored, A. (2024). Stored.', bibtex: '@online{stored}' },
    };
    const json = JSON.stringify(earlier);
    const other = `sha256:${'0'.repeat(64)}`;
    expect(JSON.stringify(readStoredItem(JSON.parse(json) as ManifestItem, other))).toBe(json);
  });

  it('Given a draft whose checksum is not its state one, When stored and read back, Then its own checksum is kept', () => {
    const other = `sha256:${'1'.repeat(64)}`;
    const stored = storedItem(draft, { ...state, checksum: other });
    expect(stored.checksum).toBe(draft.checksum);
    expect(readStoredItem(stored, other).checksum).toBe(draft.checksum);
  });

  it('Given a stored item read for its licence only, When read back without its citation, Then the citation is left as stored', () => {
    const read = readStoredItem(
      JSON.parse(JSON.stringify(storedItem(draft, state))) as ManifestItem,
      state.checksum,
      false,
    );
    expect(read.checksum).toBe(draft.checksum);
    expect(read.citation).toHaveProperty(CITATION_FROM);
  });

  it('Given a stored item and a one-day history, When served, Then stability_score and revisit_after follow modified', () => {
    const served = servedItem(
      storedItem(draft, state),
      ['2025-10-21T09:00:00.000Z'],
      undefined,
      SNAPSHOT_TIME,
    );
    const keys = Object.keys(served);
    expect(keys.slice(keys.indexOf('modified'), keys.indexOf('modified') + 3)).toEqual([
      'modified',
      'stability_score',
      'revisit_after',
    ]);
    expect(served.stability_score).toBe(0.03);
    expect(served.revisit_after).toBe('P1D');
  });

  it('Given a pinned stability, When served, Then the pin wins over the history', () => {
    // pin 0.8 → m = −30 · ln(0.2) = 48.28 days → revisit round(12.07) = 12 days
    const served = servedItem(
      storedItem(draft, state),
      ['2025-10-21T09:00:00.000Z'],
      0.8,
      SNAPSHOT_TIME,
    );
    expect(served.stability_score).toBe(0.8);
    expect(served.revisit_after).toBe('P12D');
  });

  it('Given an editor pin in the metadata, When items are built, Then the draft carries it for the article only unless overridden', () => {
    const items = build({
      metadata: { stability_pin: 0.9, fragments: { results: { stability_pin: 0.4 } } },
    });
    expect(items[0]!.stabilityPin).toBe(0.9);
    expect(byId(items, `${PARENT}:intro`).stabilityPin).toBeUndefined();
    expect(byId(items, `${PARENT}:results`).stabilityPin).toBe(0.4);
  });

  it('Given a stored item, When served, Then the stored item is not modified', () => {
    const stored = storedItem(draft, state);
    const copy = structuredClone(stored);
    servedItem(stored, state.history, undefined, SNAPSHOT_TIME);
    expect(stored).toEqual(copy);
    expect(stored).not.toHaveProperty('stability_score');
  });
});
