import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AnchorRegistry,
  headingAnchors,
  slugify,
  subFragmentAnchor,
} from '../../server/src/core/anchors';

describe('slugify', () => {
  it.each([
    ['Why classic sitemaps fail', 'why-classic-sitemaps-fail'],
    ['Prečo je klasická sitemap nedostačujúca', 'preco-je-klasicka-sitemap-nedostacujuca'],
    [
      'Index stránok pre AI: prečo potrebujeme „sitemap-AI“',
      'index-stranok-pre-ai-preco-potrebujeme-sitemap-ai',
    ],
    ['Straße & Ærø — Łódź', 'strasse-aero-lodz'],
    ['  --Hello,   World!--  ', 'hello-world'],
    ['???', 'section'],
    ['', 'section'],
    ['C++ vs. C#: 2 languages', 'c-vs-c-2-languages'],
  ])('%j → %j', (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });

  it('cuts long headings at 80 characters without a trailing dash', () => {
    const slug = slugify('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug.endsWith('-')).toBe(false);
  });

  it('always yields a non-empty [a-z0-9-] slug without double dashes (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const slug = slugify(text);
        expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(slug.length).toBeLessThanOrEqual(80);
      }),
    );
  });

  it('is idempotent (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(slugify(slugify(text))).toBe(slugify(text));
      }),
    );
  });
});

describe('headingAnchors', () => {
  it('numbers repeats and keeps "intro" for the lead', () => {
    expect(headingAnchors(['Intro', 'Setup', 'Setup', 'Setup'])).toEqual([
      'intro-2',
      'setup',
      'setup-2',
      'setup-3',
    ]);
  });

  it('does not renumber existing anchors when a different heading is inserted (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}$/), {
          minLength: 1,
          maxLength: 8,
          selector: slugify,
        }),
        fc.nat(),
        fc.stringMatching(/^[A-Za-z]{3,12}$/),
        (headings, at, inserted) => {
          fc.pre(
            !headings.some((h) => slugify(h) === slugify(inserted)) &&
              slugify(inserted) !== 'intro',
          );
          const before = headingAnchors(headings);
          const position = at % (headings.length + 1);
          const after = headingAnchors([
            ...headings.slice(0, position),
            inserted,
            ...headings.slice(position),
          ]);
          expect(after.filter((_, i) => i !== position)).toEqual(before);
        },
      ),
    );
  });
});

describe('AnchorRegistry', () => {
  it('skips reserved keys and counts per base', () => {
    const registry = new AnchorRegistry(['intro', 'a-2']);
    expect([
      registry.claim('a'),
      registry.claim('a'),
      registry.claim('intro'),
      registry.claim('b'),
    ]).toEqual(['a', 'a-3', 'intro-2', 'b']);
  });

  it('names sub-fragments within their section', () => {
    expect(subFragmentAnchor('results', 'table', 2)).toBe('results-table-2');
  });
});
