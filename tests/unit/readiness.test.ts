import { describe, expect, it } from 'vitest';
import {
  CHANGELOG_WINDOW_DAYS,
  PagingCheck,
  deltaListingProblems,
  ReadinessTally,
  changelogProblem,
  contentManagerEditPath,
  embeddingHintProblem,
  hasEvidence,
  indexFreshnessHours,
  manifestValidators,
  missingRequiredFields,
  permalinkProblem,
  shareSummary,
} from '../../server/src/core/readiness';
import { MANIFEST_SCHEMA } from '../../server/src/core/schema';
import { SCHEMA_ID, SPEC_VERSION } from '../../shared/constants';
import type { ManifestItem } from '../../server/src/core/types';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY).toISOString();
const CHECKSUM = `sha256:${'a'.repeat(64)}`;

function page(key: string, extra: Partial<ManifestItem> = {}): ManifestItem {
  return {
    id: `article:${key}:en`,
    url: `https://example.com/en/articles/${key}`,
    type: 'article',
    lang: 'en',
    title: `Page ${key}`,
    license: 'https://example.com/license#tdm',
    usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
    checksum: CHECKSUM,
    version: 'v2.0',
    modified: daysAgo(3),
    embedding_hint: { chunk: 'by_h2', max_tokens: 800 },
    changelog: [{ date: daysAgo(3), version: 'v2.0', desc: 'Rewrote the intro' }],
    content_url: `https://cms.example.com/api/sitemap-ai/fragments/article:${key}:en/content`,
    ...extra,
  };
}

function section(key: string, anchor: string, extra: Partial<ManifestItem> = {}): ManifestItem {
  return {
    ...page(key),
    id: `article:${key}:en:${anchor}`,
    url: `https://example.com/en/articles/${key}#${anchor}`,
    type: 'section',
    parent: `article:${key}:en`,
    title: `Section ${anchor}`,
    changelog: undefined,
    evidence: [{ rel: 'standard', url: 'https://www.sitemaps.org/protocol.html' }],
    content_url: `https://cms.example.com/api/sitemap-ai/fragments/article:${key}:en:${anchor}/content`,
    ...extra,
  };
}

function itemValidator(): (item: ManifestItem) => string | null {
  return manifestValidators(MANIFEST_SCHEMA).item;
}

describe('readiness checks of one item (README › Observability checklist)', () => {
  it('names the required fields an item lacks or leaves empty', () => {
    expect(missingRequiredFields(page('a'))).toEqual([]);
    const { license: _l, ...noLicense } = page('a');
    expect(
      missingRequiredFields({
        ...noLicense,
        checksum: '  ',
        version: undefined,
      } as Partial<ManifestItem>),
    ).toEqual(['license', 'version', 'checksum']);
  });

  it('wants a fragment permalink to be its page URL plus a published #anchor', () => {
    const s = section('a', 'why-sitemaps-fail');
    expect(permalinkProblem(s, 'https://example.com/en/articles/a')).toBeNull();
    expect(permalinkProblem(page('a'))).toBeNull();
    expect(permalinkProblem({ ...s, url: 'https://example.com/en/articles/a' })).toMatch(
      /has no #anchor/,
    );
    expect(permalinkProblem({ ...s, url: 'https://example.com/en/articles/a#' })).toMatch(
      /has no #anchor/,
    );
    expect(
      permalinkProblem({ ...s, url: 'https://example.com/en/articles/a#Why Sitemaps' }),
    ).toMatch(/not a published anchor/);
    expect(permalinkProblem(s, 'https://example.com/en/articles/b')).toMatch(/is not on its page/);
  });

  it(`wants a page changed in the last ${CHANGELOG_WINDOW_DAYS} days to list that change (its current version) in its changelog`, () => {
    expect(changelogProblem(page('a'), NOW)).toBeNull();
    expect(changelogProblem(page('a', { changelog: [] }), NOW)).toMatch(
      /no changelog entry in the last 90 days/,
    );
    expect(
      changelogProblem(
        page('a', { changelog: [{ date: daysAgo(3), version: 'v1.0', desc: 'x' }] }),
        NOW,
      ),
    ).toMatch(/does not mention the current version v2.0/);
    expect(
      changelogProblem(
        page('a', {
          changelog: [{ date: daysAgo(120), version: 'v2.0', desc: 'x' }],
          modified: daysAgo(5),
        }),
        NOW,
      ),
    ).toMatch(/no changelog entry/);
    // Unchanged for longer than the window: nothing to report.
    expect(changelogProblem(page('a', { modified: daysAgo(91), changelog: [] }), NOW)).toBeNull();
    // Fragments are covered by their page's changelog.
    expect(changelogProblem(section('a', 'x', { changelog: [] }), NOW)).toBeNull();
  });

  it('counts evidence only when a link has a URL', () => {
    expect(hasEvidence(section('a', 'x'))).toBe(true);
    expect(hasEvidence({ evidence: [] })).toBe(false);
    expect(hasEvidence({ evidence: [{ rel: 'cites', url: '' }] })).toBe(false);
    expect(hasEvidence({})).toBe(false);
  });

  it('checks the embedding hint', () => {
    expect(embeddingHintProblem(page('a'))).toBeNull();
    expect(embeddingHintProblem({})).toBe('no embedding_hint');
    expect(
      embeddingHintProblem({ embedding_hint: { chunk: 'by_h4' as never, max_tokens: 800 } }),
    ).toMatch(/chunk must be one of by_h2, by_h3, whole/);
    expect(embeddingHintProblem({ embedding_hint: { chunk: 'by_h2', max_tokens: 0 } })).toMatch(
      /max_tokens/,
    );
  });

  it('links an entry to its Content Manager edit view', () => {
    expect(
      contentManagerEditPath({ uid: 'api::article.article', documentId: 'abc123', locale: 'sk' }),
    ).toBe(
      '/content-manager/collection-types/api::article.article/abc123?plugins[i18n][locale]=sk',
    );
    expect(
      contentManagerEditPath({ uid: 'api::guide.guide', documentId: 'g1', locale: null }),
    ).toBe('/content-manager/collection-types/api::guide.guide/g1');
    expect(
      contentManagerEditPath({
        uid: 'api::home.home',
        documentId: 'h',
        locale: 'en',
        singleType: true,
      }),
    ).toBe('/content-manager/single-types/api::home.home?plugins[i18n][locale]=en');
  });

  it('summarises a share', () => {
    expect(shareSummary(142, 153, 'items')).toBe('142 of 153 items (92 %)');
    expect(shareSummary(0, 0, 'fragments')).toBe('no fragments');
  });
});

describe('ReadinessTally: every check over a stream of items', () => {
  it('Given a clean manifest, Then every item check passes', () => {
    const tally = new ReadinessTally({ now: NOW, validateItem: itemValidator() });
    for (const item of [
      page('a'),
      section('a', 'intro'),
      section('a', 'goals'),
      page('b'),
      section('b', 'intro'),
    ])
      tally.add(item);
    const results = tally.finish();
    expect(results.map((r) => [r.id, r.ok, r.failureCount])).toEqual([
      ['required-fields', true, 0],
      ['permalinks', true, 0],
      ['changelog-90-days', true, 0],
      ['evidence', true, 0],
      ['embedding-hints', true, 0],
      ['schema-valid', true, 0],
    ]);
    expect(results.find((r) => r.id === 'permalinks')!.summary).toBe(
      '3 of 3 fragments (100 %) have a unique #anchor permalink on their page',
    );
    expect(tally.evidenceCoverage()).toBe(1);
    expect(tally.itemCount()).toBe(5);
  });

  it('Given broken items, Then each check names the items that fail it', () => {
    const tally = new ReadinessTally({ now: NOW, validateItem: itemValidator() });
    const { license: _license, ...noLicense } = section('a', 'no-licence');
    tally.add(section('a', 'before-its-page')); // read before its page: checked at the end
    tally.add(page('a'));
    tally.add(noLicense as ManifestItem);
    tally.add(section('a', 'dup'));
    tally.add(section('a', 'dup-2', { url: 'https://example.com/en/articles/a#dup' }));
    tally.add(section('a', 'elsewhere', { url: 'https://example.com/en/articles/b#elsewhere' }));
    tally.add(section('gone', 'orphan'));
    tally.add(section('a', 'no-hint', { embedding_hint: undefined, evidence: undefined }));
    tally.add(page('c', { changelog: [] }));
    const byId = Object.fromEntries(tally.finish().map((r) => [r.id, r]));

    expect(byId['required-fields']!.failures).toEqual([
      { itemId: 'article:a:en:no-licence', title: 'Section no-licence', detail: 'missing license' },
    ]);
    expect(byId.permalinks!.failures.map((f) => [f.itemId, f.detail])).toEqual([
      [
        'article:a:en:dup-2',
        'url https://example.com/en/articles/a#dup is also the permalink of another fragment',
      ],
      [
        'article:a:en:elsewhere',
        'url https://example.com/en/articles/b#elsewhere is not on its page https://example.com/en/articles/a',
      ],
      ['article:gone:en:orphan', 'its page article:gone:en is not in the manifest'],
    ]);
    expect(byId['changelog-90-days']!.failures.map((f) => f.itemId)).toEqual(['article:c:en']);
    expect(byId['embedding-hints']!.failures.map((f) => f.itemId)).toEqual([
      'article:a:en:no-hint',
    ]);
    // embedding_hint is optional in schema.json: only the missing licence makes an item invalid.
    expect(byId['schema-valid']!.failures.map((f) => f.itemId)).toEqual([
      'article:a:en:no-licence',
    ]);
    // 6 of 7 fragments have evidence: 86 % < 90 %.
    expect(byId.evidence!.ok).toBe(false);
    expect(byId.evidence!.summary).toBe(
      '6 of 7 fragments (85 %) have an evidence link; target ≥ 90 %',
    );
    expect(tally.evidenceCoverage()).toBeCloseTo(6 / 7);
  });

  it('Given exactly 90 % of fragments with evidence, Then the evidence check passes and still lists the others', () => {
    const tally = new ReadinessTally({ now: NOW });
    tally.add(page('a'));
    for (let i = 0; i < 10; i += 1)
      tally.add(section('a', `s${i}`, i === 0 ? { evidence: [] } : {}));
    const evidence = tally.finish().find((r) => r.id === 'evidence')!;
    expect(evidence.ok).toBe(true);
    expect(evidence.failureCount).toBe(1);
  });

  it('Given many failures, Then at most 50 are kept per check and all are counted', () => {
    const tally = new ReadinessTally({ now: NOW });
    tally.add(page('a'));
    for (let i = 0; i < 120; i += 1)
      tally.add(section('a', `s${i}`, { embedding_hint: undefined }));
    const hints = tally.finish().find((r) => r.id === 'embedding-hints')!;
    expect(hints.failureCount).toBe(120);
    expect(hints.failures).toHaveLength(50);
  });

  it('Given no schema validator, Then the schema check is reported as not checked (never a silent pass)', () => {
    const tally = new ReadinessTally({ now: NOW });
    tally.add(page('a'));
    expect(tally.finish().find((r) => r.id === 'schema-valid')).toMatchObject({
      ok: false,
      summary: 'not checked',
    });
  });
});

describe('index freshness (README › Observability: target < 24 h)', () => {
  const now = new Date('2026-11-30T12:00:00Z');
  it('is 0 when nothing waits for a snapshot', () => {
    expect(
      indexFreshnessHours({
        oldestPending: null,
        latestSnapshot: '2026-11-30T10:00:00Z',
        oldestDirty: null,
        now,
      }),
    ).toBe(0);
  });
  it('counts from the oldest pending change, but not from before the newest snapshot', () => {
    expect(
      indexFreshnessHours({
        oldestPending: '2026-11-30T09:00:00Z',
        latestSnapshot: '2026-11-29T12:00:00Z',
        oldestDirty: null,
        now,
      }),
    ).toBe(3);
    expect(
      indexFreshnessHours({
        oldestPending: '2026-10-01T00:00:00Z',
        latestSnapshot: '2026-11-30T10:30:00Z',
        oldestDirty: null,
        now,
      }),
    ).toBe(1.5);
  });
  it('counts an entry marked dirty from when it was marked', () => {
    expect(
      indexFreshnessHours({
        oldestPending: null,
        latestSnapshot: '2026-11-30T11:00:00Z',
        oldestDirty: '2026-11-29T12:00:00Z',
        now,
      }),
    ).toBe(24);
  });
});

describe('manifestValidators: the published schema, compiled strictly (docs/protocol.md §4.6)', () => {
  it('Given the published schema, When an item and a page are checked, Then a valid one passes and an invalid one is named', () => {
    const validators = manifestValidators(MANIFEST_SCHEMA);
    expect(validators.item(page('a'))).toBeNull();
    expect(validators.item({ ...page('a'), checksum: 'md5:x' })).toMatch(/^\/checksum /);
    const envelope = {
      spec: SPEC_VERSION,
      snapshot: { id: '7', created_at: NOW.toISOString() },
      items: [],
      next_page_token: null,
    };
    expect(validators.page(envelope)).toBeNull();
    expect(validators.page({ ...envelope, spec: undefined })).toMatch(
      /^\(page\) must have required property 'spec'/,
    );
  });

  it('Given a schema with an unknown keyword or without an item definition, When it is compiled, Then it throws instead of passing everything', () => {
    expect(() => manifestValidators({ ...MANIFEST_SCHEMA, maxItemz: 3 })).toThrow(/maxItemz/);
    expect(() => manifestValidators({ $id: `${SCHEMA_ID}:other`, type: 'object' })).toThrow(
      /\$defs\/item/,
    );
  });
});

describe('PagingCheck: one traversal of one snapshot (docs/protocol.md §4.1, §5)', () => {
  const manifestPage = (snapshot: string, ids: string[], next: string | null = null) => ({
    spec: SPEC_VERSION,
    snapshot: { id: snapshot, created_at: NOW.toISOString() },
    items: ids.map((id) => ({ id, version: 'v1.0' })),
    next_page_token: next,
  });

  it('Given pages of one snapshot, each item once and within the limit, Then there is no problem', () => {
    const paging = new PagingCheck({
      limit: 2,
      validatePage: manifestValidators(MANIFEST_SCHEMA).page,
    });
    expect(paging.add(manifestPage('7', ['a', 'b'], 'next'))).toBe(true);
    expect(paging.add(manifestPage('7', ['c']))).toBe(true);
    expect(paging.problems).toEqual([]);
    expect(paging.pageCount()).toBe(2);
  });

  it('Given a torn traversal, an item twice, a page over the limit and a broken envelope, Then each is named with its page', () => {
    const paging = new PagingCheck({
      limit: 2,
      validatePage: manifestValidators(MANIFEST_SCHEMA).page,
    });
    paging.add(manifestPage('7', ['a', 'b'], 'next'));
    paging.add(manifestPage('8', ['b', 'c', 'd'], 'next'));
    const answered = { ...manifestPage('7', ['e']), spec: 'sitemap-ai/0' };
    paging.add(manifestPage('7', ['e']), answered);
    expect(paging.problems).toEqual([
      'page 2 came from snapshot 8, not 7',
      'item b appears twice while paging',
      'page 2 holds 3 items, more than limit 2',
      expect.stringMatching(/^page 3: the envelope does not match schema\.json \(\/spec /),
    ]);
  });

  it('Given an empty page that names a next one, Then the traversal stops there', () => {
    const paging = new PagingCheck({ limit: 10, snapshot: '7' });
    expect(paging.add(manifestPage('7', [], 'next'))).toBe(false);
    expect(paging.problems).toEqual(['page 1 is empty but has a next_page_token']);
  });
});

describe('deltaListingProblems: a delta checked against the snapshot it leads to (docs/protocol.md §4.2)', () => {
  it('Given listings that agree with what paging found, Then there is no problem', () => {
    const found = new Map([
      ['a', 'v2.0'],
      ['b', 'v1.0'],
    ]);
    expect(
      deltaListingProblems(
        [
          { id: 'a', removed: false, version: 'v2.0' },
          { id: 'b', removed: false, version: 'v1.0' },
          { id: 'gone', removed: true },
        ],
        found,
        7,
      ),
    ).toEqual([]);
  });

  it('Given a tombstone for a served item, another version and an item not served, Then each is named in the order of the delta', () => {
    const found = new Map([
      ['kept', 'v1.0'],
      ['changed', 'v3.0'],
    ]);
    expect(
      deltaListingProblems(
        [
          { id: 'missing', removed: false, version: 'v1.0' },
          { id: 'kept', removed: true },
          { id: 'changed', removed: false, version: 'v2.0' },
        ],
        found,
        7,
      ),
    ).toEqual([
      'missing is listed at v1.0, snapshot 7 has no such item',
      'kept is listed as removed but is in snapshot 7',
      'changed is listed at v2.0, snapshot 7 has v3.0',
    ]);
  });
});
