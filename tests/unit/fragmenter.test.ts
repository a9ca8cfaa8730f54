import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { checksumOf } from '../../server/src/core/canonical';
import { FRAGMENT_TYPES, type FragmentType } from '../../shared/constants';
import { InvalidRichTextError } from '../../server/src/core/errors';
import {
  columnFromHeader,
  fragmentEntry,
  lexMarkdown,
  type FragmentOptions,
} from '../../server/src/core/fragmenter';
import type { EntrySource, Fragment } from '../../server/src/core/types';

const FIXTURES = join(__dirname, 'fixtures');
const ARTICLE_MD = readFileSync(join(FIXTURES, 'geo-article.md'), 'utf8');
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'geo-article.expected.json'), 'utf8')) as {
  article: { checksum: string; links: string[] };
  fragments: (Record<string, unknown> & { key: string; lines: string })[];
};

const ALL_TYPES: ReadonlySet<FragmentType> = new Set(FRAGMENT_TYPES);
const OPTIONS: FragmentOptions = {
  chunk: 'by_h2',
  granularity: ALL_TYPES,
  mediaBaseUrl: 'https://cms.example.com',
};

function entryWith(overrides: Partial<EntrySource> = {}): EntrySource {
  return {
    uid: 'api::article.article',
    typeKey: 'article',
    documentId: 'k8v2q0m3x1c9d7e5f4a6b2n1',
    lang: 'en',
    slug: 'geo-index',
    title: 'A sitemap for AI',
    createdAt: '2025-09-01T08:00:00.000Z',
    updatedAt: '2025-10-22T09:00:00.000Z',
    publishedAt: '2025-10-22T09:00:00.000Z',
    bodies: [{ field: 'body', format: 'markdown', value: ARTICLE_MD }],
    media: [],
    faq: [],
    tables: [],
    datasets: [],
    authors: [],
    metadata: {},
    pathValues: { slug: 'geo-index' },
    ...overrides,
  };
}

/** What the golden fixture records of a fragment (text as checksum). */
function summary(fragment: Fragment): Record<string, unknown> {
  const { text, ...rest } = fragment;
  return Object.fromEntries(
    Object.entries({ ...rest, checksum: checksumOf(text) }).filter(([, v]) => v !== undefined),
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

describe('fragmentEntry — golden article', () => {
  const result = fragmentEntry(entryWith(), OPTIONS);

  it('Given the GEO article, When fragmented by H2, Then keys, types, titles, sections and checksums match the fixture', () => {
    const expected = EXPECTED.fragments.map(({ lines: _lines, ...rest }) => rest);
    expect(result.fragments.map(summary)).toEqual(expected);
  });

  it('Given the fixture line ranges, When each fragment text is compared with those lines, Then it is exactly that Markdown', () => {
    const lines = ARTICLE_MD.split('\n');
    for (const [index, fragment] of result.fragments.entries()) {
      const [from, to] = EXPECTED.fragments[index]!.lines.split('-').map(Number) as [
        number,
        number,
      ];
      expect(fragment.text, fragment.key).toBe(lines.slice(from - 1, to).join('\n'));
    }
  });

  it('Given the article, When fragmented, Then the page text is the title heading plus the body and collects every external link', () => {
    expect(result.text.startsWith('# A sitemap for AI\n\nClassic XML sitemaps')).toBe(true);
    expect(checksumOf(result.text)).toBe(EXPECTED.article.checksum);
    expect(result.links).toEqual(EXPECTED.article.links);
  });

  it('Given an H2 inside a fenced code block, When fragmented, Then it does not start a section', () => {
    expect(result.fragments.some((f) => f.key.startsWith('this-heading'))).toBe(false);
    expect(result.fragments.find((f) => f.key === 'implementation')!.text).toContain(
      '## This heading is an example inside a code block',
    );
  });

  it('Given a summary, When fragmented, Then it follows the title in the page text but is not a fragment', () => {
    const withSummary = fragmentEntry(
      entryWith({ summary: '  Why AI agents need fragment pointers.  ' }),
      OPTIONS,
    );
    expect(
      withSummary.text.startsWith(
        '# A sitemap for AI\n\nWhy AI agents need fragment pointers.\n\nClassic',
      ),
    ).toBe(true);
    expect(withSummary.fragments.map((f) => f.key)).toEqual(result.fragments.map((f) => f.key));
  });
});

describe('columnFromHeader', () => {
  it.each([
    ['Share (%)', { name: 'Share', unit: '%' }],
    ['Median size [kB]', { name: 'Median size', unit: 'kB' }],
    ['Temperature ( °C )', { name: 'Temperature', unit: '°C' }],
    ['Requests per day', { name: 'Requests per day' }],
    ['(%)', { name: '(%)' }],
  ])('Given the header %j, When parsed, Then it gives %j', (header, column) => {
    expect(columnFromHeader(header)).toEqual(column);
  });
});

describe('fragmentEntry — chunk rules', () => {
  it('Given by_h3, When fragmented, Then H3s start sections and FAQ pairs are still faq fragments', () => {
    const result = fragmentEntry(entryWith(), { ...OPTIONS, chunk: 'by_h3' });
    expect(result.fragments.map((f) => `${f.type}:${f.key}`)).toEqual([
      'section:intro',
      'section:why-classic-sitemaps-fail',
      'figure:why-classic-sitemaps-fail-figure-1',
      'section:measuring-adoption',
      'table:measuring-adoption-table-1',
      'table:measuring-adoption-table-2',
      'section:implementation',
      'figure:implementation-figure-1',
      'section:measuring-adoption-2',
      'section:faq',
      'faq:faq-does-a-sitemap-for-ai-replace-sitemap-xml',
      'faq:faq-which-licence-applies-to-a-fragment',
      'section:does-a-sitemap-for-ai-replace-sitemap-xml',
      'section:which-licence-applies-to-a-fragment',
    ]);
    expect(result.fragments.find((f) => f.key === 'faq')!.text).toBe('## FAQ');
    const faq = result.fragments.filter((f) => f.type === 'faq');
    expect(faq.map((f) => checksumOf(f.text))).toEqual([
      'sha256:dda97a4114760b908390161fe2b2a05a833bca6b9baf68ab9966887ddb585d88',
      'sha256:d1ce762c2acc08fe19de592ac3e2e19d23a24af9994091b17424b5dee5e6e640',
    ]);
  });

  it('Given by_h3, When a section has H3s, Then the H3 text is not part of the H2 section', () => {
    const markdown = '## Results\n\nOverall numbers.\n\n### By agent\n\nGPTBot leads.';
    const result = fragmentEntry(
      entryWith({ bodies: [{ field: 'body', format: 'markdown', value: markdown }] }),
      { ...OPTIONS, chunk: 'by_h3' },
    );
    expect(result.fragments.map((f) => [f.key, f.text])).toEqual([
      ['results', '## Results\n\nOverall numbers.'],
      ['by-agent', '### By agent\n\nGPTBot leads.'],
    ]);
  });

  it('Given whole, When fragmented, Then there are no sections and tables/figures are numbered across the page', () => {
    const result = fragmentEntry(entryWith(), { ...OPTIONS, chunk: 'whole' });
    expect(result.fragments.map((f) => `${f.type}:${f.key}`)).toEqual([
      'figure:figure-1',
      'table:table-1',
      'table:table-2',
      'figure:figure-2',
      'faq:faq-does-a-sitemap-for-ai-replace-sitemap-xml',
      'faq:faq-which-licence-applies-to-a-fragment',
    ]);
    expect(result.fragments.every((f) => f.section === undefined)).toBe(true);
    expect(result.fragments[1]!.title).toBe('Table 1');
  });
});

describe('fragmentEntry — granularity', () => {
  it('Given granularity without sections, When fragmented, Then sub-fragments keep the keys they have with sections', () => {
    const full = fragmentEntry(entryWith(), OPTIONS);
    const tablesOnly = fragmentEntry(entryWith(), {
      ...OPTIONS,
      granularity: new Set<FragmentType>(['table']),
    });
    expect(tablesOnly.fragments.map((f) => f.key)).toEqual([
      'measuring-adoption-table-1',
      'measuring-adoption-table-2',
    ]);
    expect(tablesOnly.fragments).toEqual(full.fragments.filter((f) => f.type === 'table'));
  });

  it('Given a filtered-out section whose slug equals a media field name, When fragmented, Then the media key still avoids it', () => {
    const markdown = '## Cover\n\nThe cover shows a crawler.';
    const entry = entryWith({
      bodies: [{ field: 'body', format: 'markdown', value: markdown }],
      media: [{ field: 'cover', url: '/uploads/cover.jpg', alt: 'Crawler robot' }],
    });
    const result = fragmentEntry(entry, {
      ...OPTIONS,
      granularity: new Set<FragmentType>(['figure']),
    });
    expect(result.fragments.map((f) => f.key)).toEqual(['cover-2']);
  });

  it('Given granularity faq only, When fragmented, Then only the FAQ pairs remain', () => {
    const result = fragmentEntry(entryWith(), {
      ...OPTIONS,
      granularity: new Set<FragmentType>(['faq']),
    });
    expect(result.fragments.map((f) => f.key)).toEqual([
      'faq-does-a-sitemap-for-ai-replace-sitemap-xml',
      'faq-which-licence-applies-to-a-fragment',
    ]);
  });

  it('Given custom FAQ headings, When the H2 matches case-insensitively, Then its H3s are faq fragments', () => {
    const markdown =
      '## Otázky a odpovede\n\n### Čo je sitemap-AI?\n\nIndex fragmentov pre AI agentov.';
    const entry = entryWith({
      lang: 'sk',
      bodies: [{ field: 'body', format: 'markdown', value: markdown }],
    });
    expect(fragmentEntry(entry, OPTIONS).fragments.map((f) => f.key)).toEqual([
      'otazky-a-odpovede',
      'faq-co-je-sitemap-ai',
    ]);
    expect(
      fragmentEntry(entry, { ...OPTIONS, faqHeadings: ['Q&A'] }).fragments.map((f) => f.key),
    ).toEqual(['otazky-a-odpovede']);
  });
});

describe('fragmentEntry — components and media', () => {
  it('Given media fields, When fragmented, Then each file is a figure with an absolute URL, numbered per multi-file field', () => {
    const entry = entryWith({
      bodies: [],
      media: [
        {
          field: 'cover',
          url: '/uploads/cover_robot.jpg',
          alt: 'Robot reading a map',
          caption: 'Agents read "manifests"',
        },
        { field: 'gallery', url: 'https://cdn.example.org/gallery/a.png', alt: 'Crawler log' },
        { field: 'gallery', url: 'uploads/b.png' },
      ],
    });
    const figures = fragmentEntry(entry, {
      ...OPTIONS,
      mediaBaseUrl: 'https://cms.example.com/',
    }).fragments;
    expect(figures.map(summary)).toEqual([
      {
        key: 'cover',
        type: 'figure',
        title: 'Agents read "manifests"',
        alt: 'Robot reading a map',
        caption: 'Agents read "manifests"',
        mediaUrl: 'https://cms.example.com/uploads/cover_robot.jpg',
        links: [],
        checksum: checksumOf(
          '![Robot reading a map](https://cms.example.com/uploads/cover_robot.jpg "Agents read \\"manifests\\"")',
        ),
      },
      {
        key: 'gallery-1',
        type: 'figure',
        title: 'Crawler log',
        alt: 'Crawler log',
        mediaUrl: 'https://cdn.example.org/gallery/a.png',
        links: [],
        checksum: checksumOf('![Crawler log](https://cdn.example.org/gallery/a.png)'),
      },
      {
        key: 'gallery-2',
        type: 'figure',
        mediaUrl: 'https://cms.example.com/uploads/b.png',
        links: [],
        checksum: checksumOf('![](https://cms.example.com/uploads/b.png)'),
      },
    ]);
  });

  it('Given an FAQ component, When fragmented, Then each non-empty question is a faq fragment with the answer and its links', () => {
    const entry = entryWith({
      bodies: [],
      faq: [
        {
          question: ' Is train denied by default? ',
          answer:
            'Yes, until the site owner allows it. See [docs/protocol.md §2](https://example.org/spec#usage).',
        },
        { question: '   ', answer: 'Ignored: no question.' },
      ],
    });
    const [faq, ...rest] = fragmentEntry(entry, OPTIONS).fragments;
    expect(rest).toEqual([]);
    expect(faq).toEqual({
      key: 'faq-is-train-denied-by-default',
      type: 'faq',
      title: 'Is train denied by default?',
      text: '### Is train denied by default?\n\nYes, until the site owner allows it. See [docs/protocol.md §2](https://example.org/spec#usage).',
      links: ['https://example.org/spec#usage'],
    });
  });

  it('Given a table component, When fragmented, Then it becomes a pipe table with units in the header and escaped cells', () => {
    const entry = entryWith({
      bodies: [],
      tables: [
        {
          field: 'stats',
          caption: 'Crawler traffic',
          columns: [{ name: 'Agent' }, { name: 'Requests', unit: 'per day' }],
          rows: [['GPTBot', 14200], ['Claude|Bot', 'about\n9870'], ['PerplexityBot']],
          sourceMethod: 'Server logs, September 2025',
          updateCycle: 'monthly',
        },
        { field: 'stats', columns: [{ name: 'Region' }], rows: [['EU']] },
      ],
    });
    const [traffic, second] = fragmentEntry(entry, OPTIONS).fragments;
    expect(traffic).toEqual({
      key: 'table-crawler-traffic',
      type: 'table',
      title: 'Crawler traffic',
      text: [
        '**Crawler traffic**',
        '',
        '| Agent | Requests (per day) |',
        '| --- | --- |',
        '| GPTBot | 14200 |',
        '| Claude\\|Bot | about 9870 |',
        '| PerplexityBot |  |',
        '',
        'Source: Server logs, September 2025',
      ].join('\n'),
      columns: [{ name: 'Agent' }, { name: 'Requests', unit: 'per day' }],
      units: ['', 'per day'],
      sourceMethod: 'Server logs, September 2025',
      updateCycle: 'monthly',
      links: [],
    });
    expect(second).toMatchObject({
      key: 'stats-2',
      title: 'Table 2',
      text: '| Region |\n| --- |\n| EU |',
      units: undefined,
    });
  });

  it('Given a dataset component with a relative file, When fragmented, Then the file URL is absolute and its checksum is in the text', () => {
    const fileChecksum = `sha256:${'3f'.repeat(32)}`;
    const entry = entryWith({
      bodies: [],
      datasets: [
        {
          field: 'data',
          title: 'Adoption survey 2025',
          description: 'Crawl of 1,200 news sites.',
          fileUrl: '/uploads/adoption_2025.csv',
          fileChecksum,
          columns: [
            { name: 'site', datatype: 'string' },
            { name: 'share', unit: '%', datatype: 'number', description: 'Share of sites' },
          ],
          sourceMethod: 'HTTP crawl',
          updateCycle: 'yearly',
        },
        { field: 'data', columns: [] },
      ],
    });
    const [survey, untitled] = fragmentEntry(entry, OPTIONS).fragments;
    expect(survey).toMatchObject({
      key: 'dataset-adoption-survey-2025',
      type: 'dataset',
      title: 'Adoption survey 2025',
      fileUrl: 'https://cms.example.com/uploads/adoption_2025.csv',
      fileChecksum,
      units: ['', '%'],
      sourceMethod: 'HTTP crawl',
      updateCycle: 'yearly',
    });
    expect(survey!.text).toBe(
      [
        '### Adoption survey 2025',
        '',
        'Crawl of 1,200 news sites.',
        '',
        'File: <https://cms.example.com/uploads/adoption_2025.csv>',
        '',
        `File checksum: ${fileChecksum}`,
        '',
        '| column | unit | type | description |',
        '| --- | --- | --- | --- |',
        '| site |  | string |  |',
        '| share | % | number | Share of sites |',
        '',
        'Source method: HTTP crawl',
        '',
        'Update cycle: yearly',
      ].join('\n'),
    );
    expect(untitled).toMatchObject({
      key: 'dataset-2',
      title: 'A sitemap for AI',
      text: '### Dataset',
    });
  });

  it('Given HTML and Blocks bodies, When fragmented, Then they are converted and split like Markdown', () => {
    const entry = entryWith({
      bodies: [
        {
          field: 'lead',
          format: 'html',
          value: '<p>Lead paragraph.</p><h2>From HTML</h2><p>Converted by turndown.</p>',
        },
        {
          field: 'body',
          format: 'blocks',
          value: [{ type: 'heading', level: 2, children: [{ type: 'text', text: 'From Blocks' }] }],
        },
      ],
    });
    expect(fragmentEntry(entry, OPTIONS).fragments.map((f) => [f.key, f.text])).toEqual([
      ['intro', 'Lead paragraph.'],
      ['from-html', '## From HTML\n\nConverted by turndown.'],
      ['from-blocks', '## From Blocks'],
    ]);
  });

  it('Given an HTML body with a header-less table and an empty table, When fragmented, Then the real table is a table fragment', () => {
    const html =
      '<h2>Adoption</h2><p>Measured in September 2025.</p><table><tr><td>Format</td><td>Share (%)</td></tr><tr><td>llms.txt</td><td>7.0</td></tr></table><table></table>';
    const entry = entryWith({ bodies: [{ field: 'body', format: 'html', value: html }] });
    const fragments = fragmentEntry(entry, OPTIONS).fragments;
    expect(fragments.map((f) => f.key)).toEqual(['adoption', 'adoption-table-1']);
    expect(fragments[1]).toMatchObject({
      type: 'table',
      text: '| Format | Share (%) |\n| --- | --- |\n| llms.txt | 7.0 |',
      columns: [{ name: 'Format' }, { name: 'Share', unit: '%' }],
    });
  });

  it('Given malformed Blocks, When fragmented, Then InvalidRichTextError propagates', () => {
    const entry = entryWith({ bodies: [{ field: 'body', format: 'blocks', value: 'not blocks' }] });
    expect(() => fragmentEntry(entry, OPTIONS)).toThrow(InvalidRichTextError);
  });
});

describe('fragmentEntry — stability and purity', () => {
  const WORDS = [
    'Crawler',
    'Licence',
    'Manifest',
    'Delta',
    'Snapshot',
    'Checksum',
    'Agent',
    'Evidence',
    'Citation',
    'Usage',
    'Anchor',
    'Webhook',
  ];
  const sectionArb = fc.record({
    title: fc
      .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 })
      .chain((words) => fc.integer({ min: 0, max: 99 }).map((n) => `${words.join(' ')} ${n}`)),
    paragraphs: fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z ,.]{0,40}[a-z.]$/), {
      minLength: 0,
      maxLength: 2,
    }),
    table: fc.boolean(),
    image: fc.boolean(),
  });
  type SectionSpec = typeof sectionArb extends fc.Arbitrary<infer T> ? T : never;

  function sectionMarkdown(section: SectionSpec): string {
    const parts = [`## ${section.title}`, ...section.paragraphs];
    if (section.table)
      parts.push(`| Agent | Share (%) |\n| --- | ---: |\n| ${section.title} | 42 |`);
    if (section.image)
      parts.push(`![Chart of ${section.title}](/uploads/${section.title.replace(/ /g, '_')}.png)`);
    return parts.join('\n\n');
  }

  function fingerprint(sections: readonly SectionSpec[]): Map<string, string> {
    const markdown = ['Lead paragraph of the article.', ...sections.map(sectionMarkdown)].join(
      '\n\n',
    );
    const result = fragmentEntry(
      entryWith({ bodies: [{ field: 'body', format: 'markdown', value: markdown }] }),
      OPTIONS,
    );
    return new Map(result.fragments.map((f) => [f.key, checksumOf(f.text)]));
  }

  it('Given any list of H2 sections, When a new H2 section is inserted anywhere, Then no other fragment changes key or checksum (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(sectionArb, {
          minLength: 1,
          maxLength: 6,
          selector: (s) => s.title.toLowerCase(),
        }),
        sectionArb,
        fc.nat(),
        (sections, inserted, at) => {
          fc.pre(!sections.some((s) => s.title.toLowerCase() === inserted.title.toLowerCase()));
          const position = at % (sections.length + 1);
          const before = fingerprint(sections);
          const after = fingerprint([
            ...sections.slice(0, position),
            inserted,
            ...sections.slice(position),
          ]);
          const insertedKey = inserted.title.toLowerCase().replace(/ /g, '-');
          for (const [key, checksum] of before) {
            expect(after.get(key), key).toBe(checksum);
          }
          const added = [...after.keys()].filter((key) => !before.has(key));
          expect(
            added.every((key) => key === insertedKey || key.startsWith(`${insertedKey}-`)),
          ).toBe(true);
          expect(after.has(insertedKey)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('Given a deep-frozen entry, When fragmented, Then it succeeds and the entry is unchanged', () => {
    const entry = entryWith({
      media: [{ field: 'cover', url: '/uploads/cover.jpg', alt: 'Robot' }],
      faq: [{ question: 'Why?', answer: 'Because.' }],
      tables: [{ field: 'stats', columns: [{ name: 'Share', unit: '%' }], rows: [[1]] }],
      datasets: [
        { field: 'data', title: 'Survey', fileUrl: '/uploads/s.csv', columns: [{ name: 'site' }] },
      ],
      metadata: {
        topics: ['GEO'],
        fragments: { intro: { license: 'https://example.com/license' } },
      },
    });
    const snapshot = structuredClone(entry);
    deepFreeze(entry);
    const result = fragmentEntry(entry, OPTIONS);
    expect(result.fragments.length).toBeGreaterThan(10);
    expect(entry).toEqual(snapshot);
  });

  it('Given the same entry twice, When fragmented, Then the results are identical (determinism)', () => {
    expect(fragmentEntry(entryWith(), OPTIONS)).toEqual(fragmentEntry(entryWith(), OPTIONS));
  });

  it('Given a fragment result, When its fragments are mutated, Then a second run is not affected', () => {
    const first = fragmentEntry(entryWith(), OPTIONS);
    first.fragments[4]!.columns!.push({ name: 'Injected' });
    expect(fragmentEntry(entryWith(), OPTIONS).fragments[4]!.columns).toHaveLength(4);
  });
});

describe('lexMarkdown — the tokens marked gives', () => {
  // Pieces that make every kind of block and inline token, plain words between them, and the
  // near misses of the markup the plain-text shortcut looks for (an upper-case URL, a lone
  // space before a line break, punctuation that is not markup).
  const PIECES = [
    'plain words',
    ' ',
    '\n',
    '\n\n',
    '  \n',
    ' \n',
    '# ',
    '## ',
    '### ',
    '- ',
    '1. ',
    '> ',
    '| a | b (%) |\n| --- | --- |\n| 1 | 2 |\n',
    '```\ncode\n```\n',
    '    indented\n',
    '---\n',
    '[a link](https://example.com/x)',
    '[ref]',
    '[ref]: https://example.com/ref\n',
    '![alt](/uploads/a.png "title")',
    '<https://example.com/auto>',
    'https://example.com/bare',
    'HTTP://EXAMPLE.COM/UPPER',
    'www.example.com',
    'ftp://example.com/f',
    'someone@example.com',
    '*em*',
    '**strong**',
    '_under_',
    'snake_case',
    '`code`',
    '~~del~~',
    '~tilde',
    '\\*escaped\\*',
    '\\\n',
    '<b>tag</b>',
    '<pre>',
    '&amp; & "quotes" \'apostrophes\'',
    '(parens) {braces} ]bracket',
    'é ñ 中文 🙂',
    '\r\n',
    '\t',
  ];
  const markdown = fc
    .array(fc.constantFrom(...PIECES), { maxLength: 40, size: 'large' })
    .map((p) => p.join(''));

  it('lexes any text as marked.lexer does, token for token', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        expect(lexMarkdown(text)).toEqual(marked.lexer(text, { gfm: true }));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['the golden article', ARTICLE_MD],
    ['a line break of two spaces', 'plain words  \nplain words'],
    ['a line break of a backslash', 'plain words\\\nplain words'],
    ['a bare URL in capitals', 'see HTTP://EXAMPLE.COM/X now'],
    ['an e-mail address', 'write to someone@example.com'],
    ['an intraword underscore', 'snake_case words'],
    ['a heading of plain words', '## Plain   spaced\theading'],
  ])('lexes %s as marked.lexer does', (_, text) => {
    expect(lexMarkdown(text)).toEqual(marked.lexer(text, { gfm: true }));
  });
});
