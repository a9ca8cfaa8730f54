import fc from 'fast-check';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { MAX_RICH_TEXT_CHARS } from '../../shared/constants';
import { InvalidRichTextError } from '../../server/src/core/errors';
import {
  blocksToMarkdown,
  escapeMarkdown,
  htmlToMarkdown,
  richTextToMarkdown,
} from '../../server/src/core/rich-text';

const text = (value: string, marks: Record<string, boolean> = {}) => ({
  type: 'text',
  text: value,
  ...marks,
});
const paragraph = (...children: unknown[]) => ({ type: 'paragraph', children });
const heading = (level: number, value: string) => ({
  type: 'heading',
  level,
  children: [text(value)],
});
const item = (value: string) => ({ type: 'list-item', children: [text(value)] });

function blockTypes(markdown: string): string[] {
  return marked
    .lexer(markdown, { gfm: true })
    .filter((t) => t.type !== 'space')
    .map((t) => t.type);
}

describe('blocksToMarkdown', () => {
  it('Given a paragraph with bold, italic, code, strikethrough and a link, When rendered, Then each mark has its Markdown syntax', () => {
    const markdown = blocksToMarkdown('body', [
      paragraph(
        text('Crawlers need '),
        text('fragments', { bold: true }),
        text(', not '),
        text('pages', { italic: true }),
        text('. Keep '),
        text('sitemap.xml', { code: true }),
        text(' but drop '),
        text('priority', { strikethrough: true }),
        text('; read '),
        {
          type: 'link',
          url: 'https://www.sitemaps.org/protocol.html',
          children: [text('the protocol')],
        },
        text('.'),
      ),
    ]);
    expect(markdown).toBe(
      'Crawlers need **fragments**, not _pages_. Keep `sitemap.xml` but drop ~~priority~~; read [the protocol](https://www.sitemaps.org/protocol.html).',
    );
  });

  it('Given bold italic text, When rendered, Then both marks nest', () => {
    expect(
      blocksToMarkdown('body', [paragraph(text('Deny by default', { bold: true, italic: true }))]),
    ).toBe('_**Deny by default**_');
  });

  it.each([1, 2, 3, 4, 5, 6])(
    'Given a heading of level %i, When rendered, Then it is an ATX heading of that depth',
    (level) => {
      const markdown = blocksToMarkdown('body', [heading(level, 'Measuring adoption')]);
      expect(markdown).toBe(`${'#'.repeat(level)} Measuring adoption`);
      const [token] = marked.lexer(markdown) as Tokens.Heading[];
      expect(token).toMatchObject({ type: 'heading', depth: level, text: 'Measuring adoption' });
    },
  );

  it('Given a heading with an out-of-range level, When rendered, Then it falls back to H2', () => {
    expect(blocksToMarkdown('body', [heading(9, 'Results')])).toBe('## Results');
  });

  it('Given an unordered list with a nested ordered list, When rendered, Then Markdown parses back to the same nesting', () => {
    const markdown = blocksToMarkdown('body', [
      {
        type: 'list',
        format: 'unordered',
        children: [
          item('GPTBot'),
          item('ClaudeBot'),
          {
            type: 'list',
            format: 'ordered',
            children: [item('reads the manifest'), item('fetches fragments')],
          },
        ],
      },
    ]);
    expect(markdown).toBe('- GPTBot\n- ClaudeBot\n  1. reads the manifest\n  2. fetches fragments');
    const [list] = marked.lexer(markdown) as Tokens.List[];
    expect(list!.ordered).toBe(false);
    expect(list!.items).toHaveLength(2);
    const nested = list!.items[1]!.tokens.find((t) => t.type === 'list') as Tokens.List | undefined;
    expect(nested?.ordered).toBe(true);
    expect(nested?.items.map((i) => i.text)).toEqual(['reads the manifest', 'fetches fragments']);
  });

  it('Given an ordered list whose item holds a nested list, When rendered, Then the nested list is indented past "1. "', () => {
    const markdown = blocksToMarkdown('body', [
      {
        type: 'list',
        format: 'ordered',
        children: [
          {
            type: 'list-item',
            children: [
              text('Publish'),
              {
                type: 'list',
                format: 'unordered',
                children: [item('checksum'), item('changelog')],
              },
            ],
          },
          item('Rebuild'),
        ],
      },
    ]);
    expect(markdown).toBe('1. Publish\n   - checksum\n   - changelog\n2. Rebuild');
    const [list] = marked.lexer(markdown) as Tokens.List[];
    expect(list!.items).toHaveLength(2);
    expect(list!.items[0]!.tokens.some((t) => t.type === 'list')).toBe(true);
  });

  it('Given a quote, When rendered, Then it is a blockquote', () => {
    const markdown = blocksToMarkdown('body', [
      { type: 'quote', children: [text('Passages, not pages.')] },
    ]);
    expect(markdown).toBe('> Passages, not pages.');
    expect(blockTypes(markdown)).toEqual(['blockquote']);
  });

  it('Given a code block with a language, When rendered, Then it is a fenced block with that language and raw text', () => {
    const markdown = blocksToMarkdown('body', [
      { type: 'code', language: 'json', children: [text('{"chunk": "by_h2", "max_tokens": 800}')] },
    ]);
    expect(markdown).toBe('```json\n{"chunk": "by_h2", "max_tokens": 800}\n```');
    const [code] = marked.lexer(markdown) as Tokens.Code[];
    expect(code).toMatchObject({
      type: 'code',
      lang: 'json',
      text: '{"chunk": "by_h2", "max_tokens": 800}',
    });
  });

  it('Given code that itself contains a ``` fence, When rendered, Then a ~~~~ fence keeps it in one block', () => {
    const markdown = blocksToMarkdown('body', [
      { type: 'code', language: 'markdown', children: [text('```js\nx()\n```\n## Not a section')] },
    ]);
    expect(blockTypes(markdown)).toEqual(['code']);
  });

  it('Given an image with alt text and caption, When rendered, Then it is a Markdown image with the caption as title', () => {
    const markdown = blocksToMarkdown('body', [
      {
        type: 'image',
        image: {
          url: '/uploads/manifest pipeline.png',
          alternativeText: 'Manifest pipeline',
          caption: 'The "AI" pipeline',
        },
        children: [text('')],
      },
    ]);
    expect(markdown).toBe(
      '![Manifest pipeline](/uploads/manifest%20pipeline.png "The \\"AI\\" pipeline")',
    );
    const image = (marked.lexer(markdown)[0] as Tokens.Paragraph).tokens[0] as Tokens.Image;
    expect(image).toMatchObject({
      type: 'image',
      href: '/uploads/manifest%20pipeline.png',
      text: 'Manifest pipeline',
      title: 'The "AI" pipeline',
    });
  });

  it('Given blocks of several kinds, When rendered, Then they are separated by blank lines and empty paragraphs are dropped', () => {
    const markdown = blocksToMarkdown('body', [
      heading(2, 'FAQ'),
      paragraph(text('')),
      paragraph(text('Answer.')),
    ]);
    expect(markdown).toBe('## FAQ\n\nAnswer.');
  });

  it.each([
    ['## not a heading'],
    ['# Title in a paragraph'],
    ['Not a heading\n==='],
    ['Not a heading\n---'],
    ['~~~\nfenced?'],
    ['> not a quote'],
    ['- not a list'],
    ['1. not a list'],
    ['<div>not html</div>'],
    ['***'],
  ])('Given a text node %j, When rendered, Then it stays a single paragraph', (value) => {
    const markdown = blocksToMarkdown('body', [paragraph(text(value)), heading(2, 'Next section')]);
    expect(blockTypes(markdown)).toEqual(['paragraph', 'heading']);
  });

  it('Given any text node, When rendered and parsed back, Then it never produces a heading (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (value) => {
        const tokens: Token[] = [];
        const markdown = blocksToMarkdown('body', [paragraph(text(value))]);
        marked.walkTokens(marked.lexer(markdown), (t) => {
          tokens.push(t);
        });
        expect(tokens.filter((t) => t.type === 'heading')).toEqual([]);
      }),
    );
  });

  it.each([
    ['not an array', { type: 'paragraph', children: [] }, /must be an array/],
    ['a block without type', [{ children: [text('x')] }], /block 0 has no "type"/],
    ['a child without type', [paragraph({ text: 'orphan' })], /has no "type"/],
    [
      'children that are not an array',
      [{ type: 'paragraph', children: 'text' }],
      /is not an array/,
    ],
    ['an image block without image', [{ type: 'image', children: [] }], /has no "image"/],
    [
      'an image without url',
      [{ type: 'image', image: { alternativeText: 'Chart' }, children: [] }],
      /image\.url/,
    ],
  ])(
    'Given Blocks with %s, When rendered, Then InvalidRichTextError is thrown',
    (_, value, message) => {
      expect(() => blocksToMarkdown('body', value)).toThrow(InvalidRichTextError);
      expect(() => blocksToMarkdown('body', value)).toThrow(message);
    },
  );

  it('Given lists nested deeper than 32 levels, When rendered, Then InvalidRichTextError is thrown', () => {
    let list: Record<string, unknown> = {
      type: 'list',
      format: 'unordered',
      children: [item('leaf')],
    };
    for (let i = 0; i < 40; i += 1)
      list = { type: 'list', format: 'unordered', children: [item(`level ${i}`), list] };
    expect(() => blocksToMarkdown('body', [list])).toThrow(/nesting deeper than 32/);
  });

  it('Given links nested 40 deep, When rendered, Then InvalidRichTextError is thrown', () => {
    let node: Record<string, unknown> = text('deep');
    for (let i = 0; i < 40; i += 1)
      node = { type: 'link', url: 'https://example.com', children: [node] };
    expect(() => blocksToMarkdown('body', [paragraph(node)])).toThrow(InvalidRichTextError);
  });

  it('Given a hostile nesting 20 000 levels deep, When rendered, Then InvalidRichTextError is thrown, not a stack overflow', () => {
    let node: Record<string, unknown> = text('deep');
    for (let i = 0; i < 20_000; i += 1) node = { type: 'paragraph', children: [node] };
    expect(() => blocksToMarkdown('body', [node])).toThrow(InvalidRichTextError);
  });

  it('Given lists nested 25 levels deep (within the limit), When rendered, Then they render', () => {
    let list: Record<string, unknown> = {
      type: 'list',
      format: 'unordered',
      children: [item('leaf')],
    };
    for (let i = 0; i < 25; i += 1)
      list = { type: 'list', format: 'unordered', children: [item(`level ${i}`), list] };
    expect(blocksToMarkdown('body', [list])).toContain(`${' '.repeat(50)}- leaf`);
  });

  it('Given Blocks whose JSON exceeds the size limit, When rendered, Then they are refused', () => {
    const huge = [paragraph(text('a'.repeat(MAX_RICH_TEXT_CHARS)))];
    expect(() => blocksToMarkdown('body', huge)).toThrow(/exceeds the limit/);
  });
});

describe('escapeMarkdown', () => {
  it('Given Markdown syntax characters, When escaped, Then each is backslash-escaped', () => {
    expect(escapeMarkdown('a*b_c`d[e]f<g>h|i\\j')).toBe('a\\*b\\_c\\`d\\[e\\]f\\<g\\>h\\|i\\\\j');
  });

  it('Given line-start markers, When escaped, Then only the marker at the line start is escaped', () => {
    expect(escapeMarkdown('# one\n  > two\n3. three\n+ four\nfive-six')).toBe(
      '\\# one\n  \\> two\n3\\. three\n\\+ four\nfive-six',
    );
  });
});

describe('htmlToMarkdown', () => {
  it('Given HTML headings, paragraphs and lists, When converted, Then it is ATX Markdown with "-" bullets', () => {
    const markdown = htmlToMarkdown(
      '<h2>Why classic sitemaps fail</h2><p>They list <strong>pages</strong>, not <em>passages</em>.</p><ul><li>loc</li><li>lastmod</li></ul><ol><li>crawl</li><li>cite</li></ol>',
    );
    expect(markdown).toMatch(
      /^## Why classic sitemaps fail\n\nThey list \*\*pages\*\*, not _passages_\.\n\n/,
    );
    const tokens = marked.lexer(markdown).filter((t) => t.type !== 'space');
    expect(tokens.map((t) => t.type)).toEqual(['heading', 'paragraph', 'list', 'list']);
    expect((tokens[2] as Tokens.List).items.map((i) => i.text)).toEqual(['loc', 'lastmod']);
    expect((tokens[3] as Tokens.List).ordered).toBe(true);
  });

  it('Given an HTML table with a thead, When converted, Then it becomes a GFM pipe table', () => {
    const markdown = htmlToMarkdown(
      '<table><thead><tr><th>Agent</th><th>Share (%)</th></tr></thead><tbody><tr><td>GPTBot</td><td>41</td></tr><tr><td>ClaudeBot</td><td>28</td></tr></tbody></table>',
    );
    expect(markdown).toBe(
      '| Agent | Share (%) |\n| --- | --- |\n| GPTBot | 41 |\n| ClaudeBot | 28 |',
    );
    const [table] = marked.lexer(markdown, { gfm: true }) as Tokens.Table[];
    expect(table!.type).toBe('table');
    expect(table!.rows).toHaveLength(2);
  });

  it('Given a table without a heading row (td only), When converted, Then its first row becomes the header of a pipe table', () => {
    const markdown = htmlToMarkdown(
      '<table><tr><td>Agent</td><td>Share (%)</td></tr><tr><td>GPTBot</td><td>41</td></tr></table>',
    );
    expect(markdown).toBe('| Agent | Share (%) |\n| --- | --- |\n| GPTBot | 41 |');
    expect(blockTypes(markdown)).toEqual(['table']);
  });

  it('Given a table with a caption and column alignment, When converted, Then the caption precedes the table and alignment is kept', () => {
    const markdown = htmlToMarkdown(
      '<p>Before.</p><table><caption>Crawler traffic</caption><thead><tr><th align="right">Agent</th><th>Share</th></tr></thead><tbody><tr><td>GPTBot</td><td>41</td></tr></tbody></table><p>After.</p>',
    );
    expect(markdown).toBe(
      'Before.\n\nCrawler traffic\n\n| Agent | Share |\n| --: | --- |\n| GPTBot | 41 |\n\nAfter.',
    );
  });

  it.each([
    '<table></table>',
    '<table><thead></thead><tbody></tbody></table>',
    '<table><caption>Empty</caption></table>',
  ])(
    'Given the empty table %j, When converted, Then nothing crashes and no table is left',
    (html) => {
      const markdown = htmlToMarkdown(`<p>Text.</p>${html}`);
      expect(markdown.startsWith('Text.')).toBe(true);
      expect(markdown).not.toContain('|');
      expect(markdown).not.toContain('<table');
    },
  );

  it('Given script, style, iframe, noscript and form elements, When converted, Then their content is gone', () => {
    const markdown = htmlToMarkdown(
      '<p>Visible text.</p><script>steal(document.cookie)</script><style>p { color: red }</style><iframe src="https://tracker.example/"></iframe><noscript>Enable JS</noscript><form><input name="q"><button>Go</button></form>',
    );
    expect(markdown).toBe('Visible text.');
  });

  it('Given an image with alt text, When converted, Then it is a Markdown image keeping the alt', () => {
    expect(
      htmlToMarkdown(
        '<p><img src="/uploads/agents.png" alt="Bar chart of AI agents" title="Agents in 2025"></p>',
      ),
    ).toBe('![Bar chart of AI agents](/uploads/agents.png "Agents in 2025")');
  });

  it('Given a paragraph that looks like a heading, When converted, Then turndown escapes it', () => {
    expect(blockTypes(htmlToMarkdown('<p>## not a heading</p>'))).toEqual(['paragraph']);
  });

  it('Given blank HTML, When converted, Then the result is empty', () => {
    expect(htmlToMarkdown('  \n ')).toBe('');
  });
});

describe('richTextToMarkdown', () => {
  it('Given Markdown, When read, Then it is returned as is', () => {
    expect(
      richTextToMarkdown({ field: 'body', format: 'markdown', value: '## Results\n\nText.' }),
    ).toBe('## Results\n\nText.');
  });

  it('Given HTML, When read, Then it goes through turndown', () => {
    expect(richTextToMarkdown({ field: 'body', format: 'html', value: '<h2>Results</h2>' })).toBe(
      '## Results',
    );
  });

  it('Given Blocks, When read, Then they are rendered', () => {
    expect(
      richTextToMarkdown({ field: 'body', format: 'blocks', value: [heading(2, 'Results')] }),
    ).toBe('## Results');
  });

  it.each([null, undefined])(
    'Given an empty field (%s), When read, Then the result is empty',
    (value) => {
      expect(richTextToMarkdown({ field: 'body', format: 'markdown', value })).toBe('');
    },
  );

  it.each([
    ['markdown', 42],
    ['html', { html: '<p>x</p>' }],
  ] as const)(
    'Given %s that is not a string, When read, Then InvalidRichTextError names the field',
    (format, value) => {
      expect(() => richTextToMarkdown({ field: 'content', format, value })).toThrow(
        /Rich text "content" cannot be fragmented: expected a string/,
      );
    },
  );

  it.each(['markdown', 'html'] as const)(
    'Given oversized %s, When read, Then it is refused',
    (format) => {
      const value = 'x'.repeat(MAX_RICH_TEXT_CHARS + 1);
      expect(() => richTextToMarkdown({ field: 'body', format, value })).toThrow(
        InvalidRichTextError,
      );
      expect(() => richTextToMarkdown({ field: 'body', format, value })).toThrow(
        /exceed the limit of 2000000/,
      );
    },
  );

  it('Given input exactly at the size limit, When read, Then it is accepted', () => {
    const value = 'x'.repeat(MAX_RICH_TEXT_CHARS);
    expect(richTextToMarkdown({ field: 'body', format: 'markdown', value })).toHaveLength(
      MAX_RICH_TEXT_CHARS,
    );
  });
});
