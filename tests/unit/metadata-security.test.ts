import { describe, expect, it } from 'vitest';
import { readEntryMetadata } from '../../server/src/core/metadata';

const VALID = {
  license: 'https://creativecommons.org/licenses/by/4.0/',
  usage: { train: 'deny', infer: 'allow-with-citation' },
  evidence: [
    {
      rel: 'standard',
      url: 'https://www.rfc-editor.org/rfc/rfc9309',
      title: 'Robots Exclusion Protocol',
    },
    { rel: 'dataset', url: 'https://data.europa.eu/88u/dataset/crawl-2025' },
  ],
  topics: ['GEO', '  LLM  '],
  entity_ids: ['Q2013', 'wd:Q42', 'orcid:0000-0002-1825-0097'],
  related: ['article:llms-txt:en:intro'],
  stability_pin: 0.85,
  citation: { apa: 'Nováková, J. (2025). A sitemap for AI. Example News.' },
  schema: ['Article', 'FAQPage'],
  alt_of: 'article:geo-index:en',
  exclude: false,
  sensitive: false,
  reason: 'Added the October measurements.',
  fragments: {
    'article:geo-index:en:results': {
      license: 'https://example.com/license#data',
      usage: { redistribute: 'allow' },
    },
    'results-table-1': { exclude: true },
  },
};

describe('readEntryMetadata — valid values', () => {
  it('Given valid editor metadata, When read, Then every value is kept and there are no problems', () => {
    const { metadata, problems } = readEntryMetadata(VALID);
    expect(problems).toEqual([]);
    expect(metadata).toEqual({ ...VALID, topics: ['GEO', 'LLM'] });
  });

  it.each([null, undefined])(
    'Given %s (no metadata yet), When read, Then it is empty without problems',
    (raw) => {
      expect(readEntryMetadata(raw)).toEqual({ metadata: {}, problems: [] });
    },
  );
});

describe('readEntryMetadata — hostile values', () => {
  it.each([
    ['a string', 'sensitive'],
    ['a number', 42],
    ['a boolean', true],
    ['an array', [{ license: 'https://x.org' }]],
  ])(
    'Given %s instead of an object, When read, Then it is empty and the root is reported',
    (_, raw) => {
      expect(readEntryMetadata(raw)).toEqual({
        metadata: {},
        problems: [{ key: '(root)', message: 'must be an object' }],
      });
    },
  );

  it.each([
    ['javascript:alert(document.cookie)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['file:///etc/passwd'],
    ['//evil.example/x'],
    ['/relative/path'],
    ['https://'],
    [`https://example.com/${'a'.repeat(2100)}`],
  ])('Given the evidence URL %j, When read, Then the evidence is dropped and reported', (url) => {
    const { metadata, problems } = readEntryMetadata({
      topics: ['GEO'],
      evidence: [{ rel: 'source', url }],
    });
    expect(metadata).toEqual({ topics: ['GEO'] });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.key).toBe('evidence');
  });

  it.each(['javascript:alert(1)', 'CC BY 4.0', 'urn:x'])(
    'Given the licence %j, When read, Then it is dropped and reported',
    (license) => {
      const { metadata, problems } = readEntryMetadata({ license, topics: ['GEO'] });
      expect(metadata).toEqual({ topics: ['GEO'] });
      expect(problems).toEqual([{ key: 'license', message: 'must be an absolute http(s) URI' }]);
    },
  );

  it.each([['Q0'], ['q2013'], ['Q-1'], ['Q12 '], ['2013'], ['wd: Q2013'], ['<script>']])(
    'Given the entity id %j, When read, Then the entity ids are dropped and reported',
    (qid) => {
      const { metadata, problems } = readEntryMetadata({ entity_ids: ['Q2013', qid] });
      expect(metadata.entity_ids).toBeUndefined();
      expect(problems).toEqual([
        { key: 'entity_ids', message: 'must be a Wikidata QID (Q2013) or a prefixed id' },
      ]);
    },
  );

  it('Given unknown keys, When read, Then they are dropped, reported, and the valid keys are kept', () => {
    const { metadata, problems } = readEntryMetadata({
      topics: ['GEO'],
      internalNote: 'do not publish',
      password: 'hunter2',
    });
    expect(metadata).toEqual({ topics: ['GEO'] });
    expect(problems).toEqual([
      { key: 'internalNote', message: 'unknown key' },
      { key: 'password', message: 'unknown key' },
    ]);
  });

  it('Given keys named after Object.prototype members, When read, Then they are unknown keys and nothing crashes', () => {
    const raw = JSON.parse(
      '{"constructor":{"prototype":{"polluted":true}},"__proto__":{"polluted":true},"toString":1,"hasOwnProperty":2,"topics":["GEO"]}',
    );
    const { metadata, problems } = readEntryMetadata(raw);
    expect(metadata).toEqual({ topics: ['GEO'] });
    expect(problems.map((p) => p.key).sort()).toEqual([
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'toString',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('Given a fragment override keyed "__proto__", When read, Then it is an own entry and the prototype is untouched', () => {
    const raw = JSON.parse(
      '{"fragments":{"__proto__":{"exclude":true},"intro":{"topics":["Lead"]}}}',
    );
    const { metadata } = readEntryMetadata(raw);
    const fragments = metadata.fragments!;
    expect(Object.getPrototypeOf(fragments)).toBe(Object.prototype);
    expect(Object.keys(fragments).sort()).toEqual(['__proto__', 'intro']);
    expect((fragments as Record<string, { exclude?: boolean }>).results?.exclude).toBeUndefined();
  });

  it('Given bad values inside fragment overrides, When read, Then problems name the fragment and the good overrides stay', () => {
    const { metadata, problems } = readEntryMetadata({
      fragments: {
        intro: { usage: { train: 'sure' }, topics: ['Lead'] },
        'results-table-1': 'exclude',
        cover: { license: 'https://photos.example.org/licence', sensitive: true },
      },
    });
    expect(metadata.fragments).toEqual({
      intro: { topics: ['Lead'] },
      'results-table-1': {},
      cover: { license: 'https://photos.example.org/licence' },
    });
    expect(problems.map((p) => p.key)).toEqual([
      'fragments["intro"].usage',
      'fragments["results-table-1"].',
      'fragments["cover"].sensitive',
    ]);
  });

  it.each([
    ['fragments as an array', { fragments: [{ exclude: true }] }, 'fragments'],
    ['fragments as a string', { fragments: 'all' }, 'fragments'],
    ['sensitive as a string', { sensitive: 'yes' }, 'sensitive'],
    ['a stability pin above 1', { stability_pin: 1.5 }, 'stability_pin'],
    ['a stability pin as text', { stability_pin: '0.9' }, 'stability_pin'],
    ['an unknown usage kind', { usage: { scrape: 'allow' } }, 'usage'],
    ['an unknown usage value', { usage: { train: 'maybe' } }, 'usage'],
    [
      'an evidence relation with spaces',
      { evidence: [{ rel: 'primary source', url: 'https://example.org' }] },
      'evidence',
    ],
    [
      'an evidence entry with extra keys',
      { evidence: [{ rel: 'source', url: 'https://example.org', onclick: 'x' }] },
      'evidence',
    ],
    [
      '60 evidence links',
      {
        evidence: Array.from({ length: 60 }, (_, i) => ({
          rel: 'source',
          url: `https://example.org/${i}`,
        })),
      },
      'evidence',
    ],
    ['an empty topic', { topics: ['GEO', '   '] }, 'topics'],
    ['a 500-character topic', { topics: ['x'.repeat(500)] }, 'topics'],
    ['a related id with uppercase', { related: ['Article:X'] }, 'related'],
    ['a lowercase schema type', { schema: ['article'] }, 'schema'],
    ['an alt_of with a path', { alt_of: '../article' }, 'alt_of'],
    ['exclude as a string', { exclude: 'true' }, 'exclude'],
    ['a citation with unknown keys', { citation: { apa: 'x', mla: 'y' } }, 'citation'],
    ['a huge APA citation', { citation: { apa: 'x'.repeat(5000) } }, 'citation'],
  ])('Given %s, When read, Then that key is reported and left out', (_, raw, key) => {
    const { metadata, problems } = readEntryMetadata({
      ...raw,
      topics: key === 'topics' ? (raw as { topics: string[] }).topics : ['GEO'],
    });
    expect(problems.map((p) => p.key)).toEqual([key]);
    expect(metadata).not.toHaveProperty(key);
  });

  it('Given a very long reason, When read, Then it is cut to 2000 characters', () => {
    expect(readEntryMetadata({ reason: 'r'.repeat(10_000) }).metadata.reason).toHaveLength(2000);
  });

  it('Given hostile metadata, When read, Then the input object is not mutated', () => {
    const raw = { topics: ['  GEO  '], fragments: { intro: { topics: ['  Lead '] } }, bogus: 1 };
    const copy = structuredClone(raw);
    readEntryMetadata(raw);
    expect(raw).toEqual(copy);
  });
});

describe('figure resolution and regions in a fragment override', () => {
  it('Given valid dpi and boxes, When read, Then they are kept; Given hostile ones, Then they are left out and reported', () => {
    const { metadata, problems } = readEntryMetadata({
      fragments: {
        cover: { dpi: 300, bounding_boxes: [{ x: 0, y: 0, width: 10, height: 10, label: 'Logo' }] },
        chart: {
          dpi: -5,
          bounding_boxes: [{ x: 1, y: 1, width: 1, height: 1, onclick: 'alert(1)' }],
        },
        huge: {
          bounding_boxes: Array.from({ length: 101 }, () => ({ x: 0, y: 0, width: 1, height: 1 })),
        },
      },
    });
    expect(metadata.fragments?.cover).toEqual({
      dpi: 300,
      bounding_boxes: [{ x: 0, y: 0, width: 10, height: 10, label: 'Logo' }],
    });
    expect(metadata.fragments?.chart).toEqual({});
    expect(metadata.fragments?.huge).toEqual({});
    expect(problems.map((p) => p.key).sort()).toEqual([
      'fragments["chart"].bounding_boxes',
      'fragments["chart"].dpi',
      'fragments["huge"].bounding_boxes',
    ]);
  });
});
