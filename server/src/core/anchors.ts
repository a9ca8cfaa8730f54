/**
 * Anchors and fragment keys (docs/protocol.md §1). This module is published on its own
 * (`strapi-plugin-sitemap-ai/anchors`) so that a site's front end renders the
 * very same `id=` attributes the manifest points at. Pure, dependency-free.
 */

const FRAGMENT_KEY_MAX_LENGTH = 80;

/**
 * Slug of a heading: diacritics removed, lowercase ASCII letters and digits,
 * single dashes, at most 80 characters, never empty ("section").
 *
 * `slugify('Prečo je klasická sitemap nedostačujúca')` → `preco-je-klasicka-sitemap-nedostacujuca`
 */
export function slugify(text: string, maxLength: number = FRAGMENT_KEY_MAX_LENGTH): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = slug.slice(0, maxLength).replace(/-+$/g, '');
  return cut === '' ? 'section' : cut;
}

/**
 * Hands out unique keys in document order: the first `x` stays `x`, repeats
 * become `x-2`, `x-3`, … . Keys already reserved are skipped.
 */
export class AnchorRegistry {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const key of reserved) this.taken.add(key);
  }

  /** Reserve `base` or its first free `base-N`. */
  claim(base: string): string {
    if (!this.taken.has(base)) {
      this.taken.add(base);
      return base;
    }
    for (let n = 2; ; n += 1) {
      const candidate = `${base}-${n}`;
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return candidate;
      }
    }
  }
}

/**
 * The anchors of a page's headings, in order, as the manifest names its
 * sections: `headingAnchors(['Intro', 'Setup', 'Setup'])` → `['intro-2', 'setup', 'setup-2']`
 * (`intro` is reserved for the text before the first heading).
 */
export function headingAnchors(headings: readonly string[]): string[] {
  const registry = new AnchorRegistry(['intro']);
  return headings.map((heading) => registry.claim(slugify(heading)));
}

/** Anchor of the n-th (1-based) table or figure inside a section. */
export function subFragmentAnchor(sectionKey: string, kind: 'table' | 'figure', n: number): string {
  return `${sectionKey}-${kind}-${n}`;
}
