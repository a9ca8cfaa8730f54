import type { Citation, CitationInput } from './types';

function year(date: string): string {
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? 'n.d.' : String(parsed.getUTCFullYear());
}

function isoDate(date: string): string | undefined {
  const parsed = new Date(date);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString().slice(0, 10);
}

/** `Jana Nováková` → `Nováková, J.` (APA author form). */
export function apaAuthor(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  const last = parts[parts.length - 1]!;
  const initials = parts
    .slice(0, -1)
    .map((p) => `${[...p][0]!.toUpperCase()}.`)
    .join(' ');
  return `${last}, ${initials}`;
}

function apaAuthors(authors: readonly string[]): string {
  const formatted = authors.map(apaAuthor);
  if (formatted.length === 0) return '';
  if (formatted.length === 1) return formatted[0]!;
  return `${formatted.slice(0, -1).join(', ')}, & ${formatted[formatted.length - 1]}`;
}

const BIBTEX_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

/** BibTeX-safe text: special characters escaped, braces balanced. */
export function escapeBibtex(text: string): string {
  // One pass, so the braces of `\textbackslash{}` are not escaped again.
  return text
    .replace(/[\\~^{}%&$#_]/g, (c) => BIBTEX_ESCAPES[c] ?? `\\${c}`)
    .replace(/[\r\n]+/g, ' ');
}

function bibtexKey(input: CitationInput): string {
  const base = input.url
    .replace(/^https?:\/\//, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return `${base}_${year(input.date)}`;
}

/**
 * Preferred citations (docs/protocol.md §1.2 `citation`): APA 7 and BibTeX `@online`,
 * generated from title, authors, site, date, permalink and version.
 */
export function buildCitation(input: CitationInput, version: string): Citation {
  const authors = apaAuthors(input.authors);
  const title =
    input.title === input.pageTitle ? input.title : `${input.title}. In ${input.pageTitle}`;
  const who = authors || input.siteName;
  const apa = `${who} (${year(input.date)}). ${title} (${version}). ${input.siteName}. ${input.url}`;
  const fields: [string, string][] = [
    ['title', `{${escapeBibtex(input.title)}}`],
    [
      'author',
      `{${escapeBibtex(input.authors.length > 0 ? input.authors.join(' and ') : input.siteName)}}`,
    ],
    ['organization', `{${escapeBibtex(input.siteName)}}`],
    ['year', `{${year(input.date)}}`],
    ['version', `{${escapeBibtex(version)}}`],
    ['url', `{${input.url.replace(/[{}]/g, encodeURIComponent)}}`],
    ['langid', `{${escapeBibtex(input.lang)}}`],
  ];
  const date = isoDate(input.date);
  if (date) fields.push(['date', `{${date}}`]);
  if (input.title !== input.pageTitle)
    fields.push(['booktitle', `{${escapeBibtex(input.pageTitle)}}`]);
  const bibtex = `@online{${bibtexKey(input)},\n${fields.map(([k, v]) => `  ${k} = ${v}`).join(',\n')}\n}`;
  return { apa, bibtex };
}
