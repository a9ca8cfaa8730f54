import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apaAuthor, buildCitation, escapeBibtex } from '../../server/src/core/citation';
import type { CitationInput } from '../../server/src/core/types';

const SECTION: CitationInput = {
  title: 'Why classic sitemaps fail',
  pageTitle: 'A sitemap for AI',
  authors: ['Jana Nováková', 'Peter Kováč'],
  siteName: 'Example News',
  url: 'https://example.com/articles/geo-index#why-classic-sitemaps-fail',
  date: '2025-10-22T09:00:00.000Z',
  lang: 'sk',
};

describe('apaAuthor', () => {
  it.each([
    ['Jana Nováková', 'Nováková, J.'],
    ['Ľubica Šťastná', 'Šťastná, Ľ.'],
    ['Ján Amos Komenský', 'Komenský, J. A.'],
    ['  Émile   Zola ', 'Zola, É.'],
    ['ørjan Ødegård', 'Ødegård, Ø.'],
    ['Plato', 'Plato'],
  ])('Given the author %j, When formatted for APA, Then it is %j', (name, formatted) => {
    expect(apaAuthor(name)).toBe(formatted);
  });
});

describe('buildCitation', () => {
  it('Given a section by two authors, When cited, Then APA joins them with "&" and names the page', () => {
    expect(buildCitation(SECTION, 'v2.1').apa).toBe(
      'Nováková, J., & Kováč, P. (2025). Why classic sitemaps fail. In A sitemap for AI (v2.1). Example News. https://example.com/articles/geo-index#why-classic-sitemaps-fail',
    );
  });

  it('Given three authors, When cited, Then APA lists them with commas and "&" before the last', () => {
    const { apa } = buildCitation(
      { ...SECTION, authors: ['Jana Nováková', 'Peter Kováč', 'Ľubica Šťastná'] },
      'v1.0',
    );
    expect(apa.startsWith('Nováková, J., Kováč, P., & Šťastná, Ľ. (2025).')).toBe(true);
  });

  it('Given one author and the page itself, When cited, Then there is no "In" and no booktitle', () => {
    const article = {
      ...SECTION,
      title: 'A sitemap for AI',
      authors: ['Jana Nováková'],
      url: 'https://example.com/articles/geo-index',
    };
    const citation = buildCitation(article, 'v1.0');
    expect(citation.apa).toBe(
      'Nováková, J. (2025). A sitemap for AI (v1.0). Example News. https://example.com/articles/geo-index',
    );
    expect(citation.bibtex).not.toContain('booktitle');
  });

  it('Given a section, When cited, Then BibTeX is an @online entry with all fields', () => {
    expect(buildCitation(SECTION, 'v2.1').bibtex).toBe(
      [
        '@online{example_com_articles_geo_index_why_classic_sitemaps_fail_2025,',
        '  title = {Why classic sitemaps fail},',
        '  author = {Jana Nováková and Peter Kováč},',
        '  organization = {Example News},',
        '  year = {2025},',
        '  version = {v2.1},',
        '  url = {https://example.com/articles/geo-index#why-classic-sitemaps-fail},',
        '  langid = {sk},',
        '  date = {2025-10-22},',
        '  booktitle = {A sitemap for AI}',
        '}',
      ].join('\n'),
    );
  });

  it('Given no authors, When cited, Then the site name stands in for the author', () => {
    const citation = buildCitation({ ...SECTION, authors: [] }, 'v1.0');
    expect(citation.apa.startsWith('Example News (2025). Why classic sitemaps fail.')).toBe(true);
    expect(citation.bibtex).toContain('  author = {Example News},');
  });

  it('Given no usable date, When cited, Then the year is "n.d." and BibTeX has no date field', () => {
    const citation = buildCitation({ ...SECTION, date: '' }, 'v1.0');
    expect(citation.apa).toContain('(n.d.)');
    expect(citation.bibtex).toContain('  year = {n.d.},');
    expect(citation.bibtex).not.toMatch(/^\s+date = /m);
    expect(citation.bibtex.split('\n')[0]).toBe(
      '@online{example_com_articles_geo_index_why_classic_sitemaps_fail_n.d.,',
    );
  });

  it('Given a title with BibTeX specials and a line break, When cited, Then the BibTeX title is escaped on one line', () => {
    const citation = buildCitation(
      { ...SECTION, title: 'Costs {draft}: 100% & $5\r\n#1 snake_case' },
      'v1.0',
    );
    expect(citation.bibtex).toContain(
      '  title = {Costs \\{draft\\}: 100\\% \\& \\$5 \\#1 snake\\_case},',
    );
  });

  it('Given a URL with braces, When cited, Then they are percent-encoded in the BibTeX url', () => {
    expect(buildCitation({ ...SECTION, url: 'https://example.com/a{b}' }, 'v1.0').bibtex).toContain(
      '  url = {https://example.com/a%7Bb%7D},',
    );
  });
});

describe('escapeBibtex', () => {
  it('Given every BibTeX special character, When escaped, Then each gets its LaTeX form', () => {
    expect(escapeBibtex('{}%&$#_~^\\')).toBe(
      '\\{\\}\\%\\&\\$\\#\\_\\textasciitilde{}\\textasciicircum{}\\textbackslash{}',
    );
  });

  it('Given a Windows path, When escaped, Then \\textbackslash{} keeps its own braces unescaped', () => {
    expect(escapeBibtex('C:\\Data\\crawl_2025')).toBe(
      'C:\\textbackslash{}Data\\textbackslash{}crawl\\_2025',
    );
  });

  it('Given any text, When escaped, Then no special character is left unescaped and braces balance (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            '{',
            '}',
            '%',
            '&',
            '$',
            '#',
            '_',
            '~',
            '^',
            '\\',
            '\n',
            'é',
          ),
          maxLength: 60,
        }),
        (text) => {
          const escaped = escapeBibtex(text);
          const stripped = escaped
            .replace(/\\text(backslash|asciitilde|asciicircum)\{\}/g, '')
            .replace(/\\[{}%&$#_]/g, '');
          expect(stripped).not.toMatch(/[{}%&$#_~^\\\n]/);
          let depth = 0;
          for (const part of escaped.replace(/\\[{}]/g, '').split('')) {
            if (part === '{') depth += 1;
            if (part === '}') depth -= 1;
            expect(depth).toBeGreaterThanOrEqual(0);
          }
          expect(depth).toBe(0);
        },
      ),
    );
  });
});
