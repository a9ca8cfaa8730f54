import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { SCHEMA_ID, SPEC_VERSION } from '../../shared/constants';
import {
  buildEntryItems,
  finalizeDraft,
  servedItem,
  storedItem,
  readStoredItem,
  nextState,
} from '../../server/src/core/items';
import { MANIFEST_SCHEMA } from '../../server/src/core/schema';
import type { ManifestItem } from '../../server/src/core/types';
import { ARTICLE_TYPE, SITE, geoEntry } from './fixtures/entries';

function compile() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(MANIFEST_SCHEMA);
}

const validate = compile();
const SNAPSHOT_TIME = new Date('2025-11-01T00:00:00.000Z');

function servedItems(): ManifestItem[] {
  const entry = geoEntry({
    faq: [
      {
        question: 'Is train denied by default?',
        answer: 'Yes. See [SPEC](https://example.org/spec#usage).',
      },
    ],
    tables: [
      {
        field: 'stats',
        caption: 'Crawler traffic',
        columns: [{ name: 'Agent' }, { name: 'Requests', unit: 'per day' }],
        rows: [['GPTBot', 14200]],
        sourceMethod: 'Server logs',
        updateCycle: 'monthly',
      },
    ],
    datasets: [
      {
        field: 'data',
        title: 'Adoption survey 2025',
        fileUrl: '/uploads/adoption.csv',
        fileChecksum: `sha256:${'3f'.repeat(32)}`,
        columns: [{ name: 'share', unit: '%', datatype: 'number' }],
      },
    ],
    metadata: {
      topics: ['GEO'],
      entity_ids: ['Q2013'],
      related: ['article:llms-txt:en'],
      stability_pin: 0.7,
      evidence: [{ rel: 'standard', url: 'https://www.rfc-editor.org/rfc/rfc9309' }],
    },
  });
  const drafts = buildEntryItems(entry, { ...ARTICLE_TYPE, stopSequences: ['\n## '] }, SITE)!.map(
    finalizeDraft,
  );
  return drafts.map((draft) => {
    const { state } = nextState(undefined, draft, SNAPSHOT_TIME.toISOString());
    return servedItem(
      readStoredItem(storedItem(draft, state), state.checksum),
      state.history,
      draft.stabilityPin,
      SNAPSHOT_TIME,
    );
  });
}

function page(items: unknown[]): unknown {
  return {
    spec: SPEC_VERSION,
    snapshot: { id: '17', created_at: '2025-11-01T00:00:00.000Z' },
    items,
    next_page_token: null,
  };
}

function errorsOf(data: unknown): string[] {
  validate(data);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('MANIFEST_SCHEMA', () => {
  it('Given ajv 2020 in strict mode, When the schema is compiled, Then it compiles and declares its id', () => {
    expect(() => compile()).not.toThrow();
    expect(MANIFEST_SCHEMA.$id).toBe(SCHEMA_ID);
    expect(MANIFEST_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('Given items built from a real entry (every fragment type), When a page of them is validated, Then it is valid', () => {
    const items = servedItems();
    expect(new Set(items.map((i) => i.type))).toEqual(
      new Set(['article', 'section', 'table', 'figure', 'faq', 'dataset']),
    );
    expect(errorsOf(page(items))).toEqual([]);
  });

  it('Given a page with a next_page_token, When validated, Then it is valid; a numeric token is not', () => {
    const valid = { ...(page([]) as object), next_page_token: 'eyJ2IjoxfQ.c2ln' };
    expect(errorsOf(valid)).toEqual([]);
    expect(errorsOf({ ...valid, next_page_token: 7 })).not.toEqual([]);
  });

  it.each([
    'id',
    'url',
    'type',
    'lang',
    'license',
    'usage',
    'version',
    'checksum',
    'modified',
    'content_url',
  ])('Given an item without %s, When validated, Then it fails on that field', (field) => {
    const [article] = servedItems();
    const broken = { ...article } as Record<string, unknown>;
    delete broken[field];
    expect(errorsOf(page([broken]))).toContain(`/items/0 must have required property '${field}'`);
  });

  it.each([
    ['sha256:ABC', 'not hex'],
    ['md5:d41d8cd98f00b204e9800998ecf8427e', 'wrong algorithm'],
    [`sha256:${'a'.repeat(63)}`, 'too short'],
    [`sha256:${'A'.repeat(64)}`, 'uppercase'],
  ])('Given the checksum %j (%s), When validated, Then it fails', (checksum) => {
    const [article] = servedItems();
    expect(errorsOf(page([{ ...article, checksum }]))).toContain(
      '/items/0/checksum must match pattern "^sha256:[0-9a-f]{64}$"',
    );
  });

  it('Given a fragment whose URL has no anchor, When validated, Then it fails', () => {
    const section = servedItems()[1]!;
    expect(
      errorsOf(page([{ ...section, url: 'https://example.com/en/articles/geo-index' }])),
    ).toContain('/items/0/url must match pattern "#[a-z0-9-]+$"');
  });

  it('Given a fragment without parent, When validated, Then it fails', () => {
    const { parent: _parent, ...orphan } = servedItems()[1]!;
    expect(errorsOf(page([orphan]))).toContain("/items/0 must have required property 'parent'");
  });

  it('Given an article with a parent, When validated, Then it fails', () => {
    const [article] = servedItems();
    expect(errorsOf(page([{ ...article, parent: 'article:other:en' }]))).not.toEqual([]);
  });

  it.each([
    ['an unknown field', { internal_id: 17 }],
    ['an unknown type', { type: 'video' }],
    [
      'an unknown usage value',
      { usage: { train: 'maybe', infer: 'allow', cache: 'allow', redistribute: 'deny' } },
    ],
    ['a missing usage kind', { usage: { train: 'deny', infer: 'allow', cache: 'allow' } }],
    ['a bad version', { version: '1.0' }],
    ['a non-http URL', { url: 'javascript:alert(1)' }],
    ['a stability score above 1', { stability_score: 1.2 }],
    ['a revisit interval in hours', { revisit_after: 'PT12H' }],
    ['an uppercase id', { id: 'Article:Geo-Index:EN' }],
    ['a bad ORCID', { signals: { author_id: 'ORCID:1234' } }],
    ['a relative content URL', { content_url: '/api/sitemap-ai/fragments/x/content' }],
    ['a bad modified time', { modified: 'yesterday' }],
    ['a zero max_tokens', { embedding_hint: { chunk: 'by_h2', max_tokens: 0 } }],
  ])('Given an article with %s, When validated, Then it fails', (_, patch) => {
    const [article] = servedItems();
    expect(errorsOf(page([{ ...article, ...patch }]))).not.toEqual([]);
  });

  it('Given an envelope with another spec or an extra field, When validated, Then it fails', () => {
    expect(errorsOf({ ...(page([]) as object), spec: 'sitemap-ai/2' })).not.toEqual([]);
    expect(errorsOf({ ...(page([]) as object), debug: true })).not.toEqual([]);
    expect(
      errorsOf({
        ...(page([]) as object),
        snapshot: { id: 17, created_at: '2025-11-01T00:00:00.000Z' },
      }),
    ).not.toEqual([]);
  });
});
