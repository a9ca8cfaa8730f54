import { Lexer, type Token, type Tokens } from 'marked';
import { AnchorRegistry, slugify, subFragmentAnchor } from './anchors';
import { canonicalText } from './canonical';
import {
  DEFAULT_FAQ_HEADINGS,
  PREFIXED_KEY_SLUG_MAX_LENGTH,
  type ChunkRule,
  type FragmentType,
} from '../../../shared/constants';
import { richTextToMarkdown } from './rich-text';
import { absoluteUrl, isHttpUrl } from '../../../shared/urls';
import type {
  Column,
  DatasetSource,
  EntrySource,
  Fragment,
  FragmentedEntry,
  TableSource,
} from './types';

export interface FragmentOptions {
  chunk: ChunkRule;
  /** Fragment types to emit; keys of the others are still reserved so ids stay stable. */
  granularity: ReadonlySet<FragmentType>;
  /** Base URL for site-relative media paths (`/uploads/…`). */
  mediaBaseUrl: string;
  /** Lowercased H2 texts whose H3s are question/answer pairs. */
  faqHeadings?: readonly string[];
}

/**
 * What in an inline text can make marked's inline lexer (GFM, no line breaks as `br`) write
 * anything but one text token of it: a character that begins an escape, a tag, a link or image,
 * emphasis, code, strikethrough or an e-mail address; a bare URL's start (matched in any case);
 * two spaces before a line break. Checked generously: a text that holds one is lexed.
 */
const INLINE_MARKUP = /[\\<![`*_~@]|(?:https?|ftp):\/\/|www\.| {2}\n/i;

/**
 * marked's lexer (GFM), with an inline text that holds nothing INLINE_MARKUP finds made its one
 * text token at once instead of through the inline lexer, which tries each of its rules on it
 * first: the same tokens (tests/unit/fragmenter.test.ts holds it to marked's own), at a fraction
 * of the cost. The inline pass was about half of the lexing, and the lexing over a quarter of
 * drafting, on a first build of 10k articles whose paragraphs are mostly plain words.
 */
class FragmentLexer extends Lexer {
  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (src === '' || tokens.length > 0 || INLINE_MARKUP.test(src))
      return super.inlineTokens(src, tokens);
    tokens.push({ type: 'text', raw: src, text: src, escaped: this.state.inRawBlock });
    return tokens;
  }
}

/** The tokens of `markdown` as `marked.lexer(markdown, { gfm: true })` gives them. */
export function lexMarkdown(markdown: string): Token[] {
  return new FragmentLexer({ gfm: true }).lex(markdown);
}

interface Section {
  key: string;
  title?: string;
  depth: number;
  tokens: Token[];
}

/** Plain text of inline tokens (`**Why** _classic_` → `Why classic`). */
function plainText(tokens: readonly Token[] | undefined, fallback = ''): string {
  if (!tokens || tokens.length === 0) return fallback;
  return tokens
    .map((token) => {
      const t = token as Tokens.Generic;
      if (Array.isArray(t.tokens) && t.tokens.length > 0) return plainText(t.tokens as Token[]);
      if (t.type === 'image') return '';
      return typeof t.text === 'string' ? t.text : '';
    })
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Visit every token, depth first, including table cells and list items. */
function walk(tokens: readonly Token[], visit: (token: Token) => void): void {
  for (const token of tokens) {
    visit(token);
    const t = token as Tokens.Generic;
    if (Array.isArray(t.tokens)) walk(t.tokens as Token[], visit);
    if (t.type === 'list') walk((t as unknown as Tokens.List).items as unknown as Token[], visit);
    if (t.type === 'table') {
      const table = t as unknown as Tokens.Table;
      for (const cell of table.header) walk(cell.tokens, visit);
      for (const row of table.rows) for (const cell of row) walk(cell.tokens, visit);
    }
  }
}

function linksIn(tokens: readonly Token[]): string[] {
  const links: string[] = [];
  walk(tokens, (token) => {
    if (token.type === 'link' && isHttpUrl(token.href)) links.push(token.href);
  });
  return [...new Set(links)];
}

const UNIT_PATTERN = /^(.*?)\s*[([]\s*([^)\]]+?)\s*[)\]]\s*$/;

/** `Share (%)` → `{ name: 'Share', unit: '%' }`. */
export function columnFromHeader(header: string): Column {
  const match = UNIT_PATTERN.exec(header);
  if (match && match[1]) return { name: match[1], unit: match[2] };
  return { name: header };
}

function unitsOf(columns: readonly Column[]): string[] | undefined {
  const units = columns.map((c) => c.unit ?? '');
  return units.some((u) => u !== '') ? units : undefined;
}

function rawOf(tokens: readonly Token[]): string {
  return tokens.map((t) => t.raw).join('');
}

function splitSections(
  tokens: readonly Token[],
  splitDepth: number,
  registry: AnchorRegistry,
): Section[] {
  const sections: Section[] = [{ key: 'intro', depth: 0, tokens: [] }];
  for (const token of tokens) {
    if (token.type === 'heading' && token.depth <= splitDepth) {
      const title = plainText(token.tokens, token.text);
      sections.push({
        key: registry.claim(slugify(title)),
        title,
        depth: token.depth,
        tokens: [token],
      });
    } else {
      sections[sections.length - 1]!.tokens.push(token);
    }
  }
  return sections;
}

function markdownTable(columns: readonly Column[], rows: readonly unknown[][]): string {
  const cell = (value: unknown): string =>
    String(value ?? '')
      .replace(/\|/g, '\\|')
      .replace(/\r?\n/g, ' ');
  const header = columns.map((c) => cell(c.unit ? `${c.name} (${c.unit})` : c.name));
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows) {
    const cells = columns.map((_, i) => cell(Array.isArray(row) ? row[i] : ''));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function tableComponentText(table: TableSource): string {
  const parts = [];
  if (table.caption) parts.push(`**${table.caption}**`);
  if (table.columns.length > 0) parts.push(markdownTable(table.columns, table.rows));
  if (table.sourceMethod) parts.push(`Source: ${table.sourceMethod}`);
  return parts.join('\n\n');
}

function datasetText(dataset: DatasetSource, mediaBaseUrl: string): string {
  const parts = [`### ${dataset.title ?? 'Dataset'}`];
  if (dataset.description) parts.push(dataset.description);
  if (dataset.fileUrl) parts.push(`File: <${absoluteUrl(mediaBaseUrl, dataset.fileUrl)}>`);
  if (dataset.fileChecksum) parts.push(`File checksum: ${dataset.fileChecksum}`);
  if (dataset.columns.length > 0) {
    const rows = dataset.columns.map((c) => [
      c.name,
      c.unit ?? '',
      c.datatype ?? '',
      c.description ?? '',
    ]);
    parts.push(
      markdownTable(
        [{ name: 'column' }, { name: 'unit' }, { name: 'type' }, { name: 'description' }],
        rows,
      ),
    );
  }
  if (dataset.sourceMethod) parts.push(`Source method: ${dataset.sourceMethod}`);
  if (dataset.updateCycle) parts.push(`Update cycle: ${dataset.updateCycle}`);
  return parts.join('\n\n');
}

/**
 * Split one entry into fragments (docs/protocol.md §1). Keys are stable: they come from
 * headings (with `-2`, `-3` … for repeats), `intro` for the lead, and
 * `<section>-table-N` / `<section>-figure-N` counted within their section.
 * The input is never mutated.
 */
export function fragmentEntry(entry: EntrySource, options: FragmentOptions): FragmentedEntry {
  const markdown = entry.bodies
    .map(richTextToMarkdown)
    .filter((text) => text.trim() !== '')
    .join('\n\n');
  const tokens = lexMarkdown(markdown);
  const registry = new AnchorRegistry(['intro']);
  const splitDepth = options.chunk === 'by_h3' ? 3 : options.chunk === 'whole' ? 0 : 2;
  const sections = splitSections(tokens, splitDepth, registry);
  const faqHeadings = new Set(
    (options.faqHeadings ?? DEFAULT_FAQ_HEADINGS).map((h) => h.toLowerCase()),
  );
  // The question/answer region of each FAQ H2 (the tokens up to the next H1/H2), found on the
  // whole document so that `by_h3` and `whole` yield the same `faq` fragments as `by_h2`.
  const faqRegions = new Map<Token, Token[]>();
  tokens.forEach((token, index) => {
    if (token.type !== 'heading' || token.depth !== 2) return;
    if (!faqHeadings.has(plainText(token.tokens, token.text).toLowerCase())) return;
    const end = tokens.findIndex((t, i) => i > index && t.type === 'heading' && t.depth <= 2);
    faqRegions.set(token, tokens.slice(index + 1, end === -1 ? undefined : end));
  });
  const fragments: Fragment[] = [];

  for (const section of sections) {
    const text = canonicalText(rawOf(section.tokens));
    if (text === '') continue;
    const prefix = options.chunk === 'whole' ? '' : section.key;
    if (options.chunk !== 'whole') {
      fragments.push({
        key: section.key,
        type: 'section',
        title: section.title ?? entry.title,
        text,
        links: linksIn(section.tokens),
      });
    }
    let tables = 0;
    let figures = 0;
    walk(section.tokens, (token) => {
      if (token.type === 'table') {
        tables += 1;
        const columns = token.header.map((cell: Tokens.TableCell) =>
          columnFromHeader(plainText(cell.tokens, cell.text)),
        );
        fragments.push({
          key: registry.claim(
            prefix ? subFragmentAnchor(prefix, 'table', tables) : `table-${tables}`,
          ),
          type: 'table',
          title: section.title ? `${section.title} — table ${tables}` : `Table ${tables}`,
          text: canonicalText(token.raw),
          section: options.chunk === 'whole' ? undefined : section.key,
          columns,
          units: unitsOf(columns),
          links: linksIn([token]),
        });
      } else if (token.type === 'image') {
        figures += 1;
        fragments.push({
          key: registry.claim(
            prefix ? subFragmentAnchor(prefix, 'figure', figures) : `figure-${figures}`,
          ),
          type: 'figure',
          title: token.title || token.text || undefined,
          text: canonicalText(token.raw),
          section: options.chunk === 'whole' ? undefined : section.key,
          alt: token.text || undefined,
          caption: token.title || undefined,
          mediaUrl: absoluteUrl(options.mediaBaseUrl, token.href),
          links: [],
        });
      }
    });
    for (const token of section.tokens) {
      const region = faqRegions.get(token);
      if (!region) continue;
      for (const question of splitSections(region, 3, new AnchorRegistry())) {
        if (!question.title) continue;
        fragments.push({
          key: registry.claim(`faq-${slugify(question.title, PREFIXED_KEY_SLUG_MAX_LENGTH)}`),
          type: 'faq',
          title: question.title,
          text: canonicalText(rawOf(question.tokens)),
          section: options.chunk === 'whole' ? undefined : section.key,
          links: linksIn(question.tokens),
        });
      }
    }
  }

  const perField = new Map<string, number>();
  for (const media of entry.media) {
    const count = entry.media.filter((m) => m.field === media.field).length;
    const n = (perField.get(media.field) ?? 0) + 1;
    perField.set(media.field, n);
    const base = slugify(media.field);
    const mediaUrl = absoluteUrl(options.mediaBaseUrl, media.url);
    const title = media.caption || media.alt || undefined;
    const caption = media.caption ? ` "${media.caption.replace(/"/g, '\\"')}"` : '';
    fragments.push({
      key: registry.claim(count > 1 ? `${base}-${n}` : base),
      type: 'figure',
      title,
      text: canonicalText(`![${media.alt ?? ''}](${mediaUrl}${caption})`),
      alt: media.alt || undefined,
      caption: media.caption || undefined,
      mediaUrl,
      links: [],
    });
  }

  for (const item of entry.faq) {
    if (item.question.trim() === '') continue;
    fragments.push({
      key: registry.claim(`faq-${slugify(item.question, PREFIXED_KEY_SLUG_MAX_LENGTH)}`),
      type: 'faq',
      title: item.question.trim(),
      text: canonicalText(`### ${item.question.trim()}\n\n${item.answer}`),
      links: linksIn(lexMarkdown(item.answer ?? '')),
    });
  }

  entry.tables.forEach((table, index) => {
    fragments.push({
      key: registry.claim(
        table.caption
          ? `table-${slugify(table.caption, PREFIXED_KEY_SLUG_MAX_LENGTH)}`
          : `${slugify(table.field)}-${index + 1}`,
      ),
      type: 'table',
      title: table.caption || `Table ${index + 1}`,
      text: canonicalText(tableComponentText(table)),
      columns: table.columns,
      units: unitsOf(table.columns),
      sourceMethod: table.sourceMethod,
      updateCycle: table.updateCycle,
      links: [],
    });
  });

  entry.datasets.forEach((dataset, index) => {
    fragments.push({
      key: registry.claim(
        dataset.title
          ? `dataset-${slugify(dataset.title, PREFIXED_KEY_SLUG_MAX_LENGTH)}`
          : `dataset-${index + 1}`,
      ),
      type: 'dataset',
      title: dataset.title || entry.title,
      text: canonicalText(datasetText(dataset, options.mediaBaseUrl)),
      columns: dataset.columns,
      units: unitsOf(dataset.columns),
      sourceMethod: dataset.sourceMethod,
      updateCycle: dataset.updateCycle,
      fileUrl: dataset.fileUrl ? absoluteUrl(options.mediaBaseUrl, dataset.fileUrl) : undefined,
      fileChecksum: dataset.fileChecksum,
      links: [],
    });
  });

  const head = [`# ${entry.title}`];
  if (entry.summary && entry.summary.trim() !== '') head.push(entry.summary.trim());
  const text = canonicalText([...head, markdown].join('\n\n'));
  return {
    text,
    links: linksIn(tokens),
    fragments: fragments.filter((f) => options.granularity.has(f.type)),
  };
}
