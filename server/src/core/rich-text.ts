import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { MAX_RICH_TEXT_CHARS } from '../../../shared/constants';
import { InvalidRichTextError } from './errors';
import type { RichTextSource } from './types';

/**
 * Every rich-text format Strapi can hold, turned into Markdown (docs/protocol.md §1):
 * Markdown as is, Strapi Blocks rendered, HTML through turndown.
 */
export function richTextToMarkdown(source: RichTextSource): string {
  const { field, format, value } = source;
  if (value === null || value === undefined) return '';
  switch (format) {
    case 'markdown':
      return checkedString(field, value);
    case 'html':
      return htmlToMarkdown(checkedString(field, value));
    case 'blocks':
      return blocksToMarkdown(field, value);
  }
}

function checkedString(field: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new InvalidRichTextError(field, `expected a string, got ${typeof value}`);
  if (value.length > MAX_RICH_TEXT_CHARS) {
    throw new InvalidRichTextError(
      field,
      `${value.length} characters exceed the limit of ${MAX_RICH_TEXT_CHARS}`,
    );
  }
  return value;
}

let turndown: TurndownService | undefined;

function turndownService(): TurndownService {
  if (!turndown) {
    turndown = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
      strongDelimiter: '**',
      linkStyle: 'inlined',
    });
    turndown.use(gfm);
    // Added after gfm, so it is tried first: every table becomes a pipe table (see pipeTable).
    turndown.addRule('pipeTable', { filter: 'table', replacement: pipeTable });
    turndown.remove([
      'script',
      'style',
      'noscript',
      'template',
      'iframe',
      'object',
      'embed',
      'form',
    ]);
  }
  return turndown;
}

const BORDER_ROW = /^\|(\s*:?-+:?\s*\|)+$/;

/**
 * A table's rows as gfm rendered them (`| a | b |`, a border row after a heading
 * row) joined into one pipe table. gfm alone keeps a table without a heading row
 * as raw HTML (no `table` fragment) and throws on a table without rows; here the
 * first row of such a table is its header, and an empty table leaves only its caption.
 */
function pipeTable(content: string): string {
  const lines = content
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const rows = lines.filter((line) => line.startsWith('|'));
  const caption = lines.filter((line) => !line.startsWith('|')).join(' ');
  if (rows.length > 0 && !BORDER_ROW.test(rows[1] ?? '')) {
    const columns = rows[0]!.split('|').length - 2;
    rows.splice(1, 0, `| ${Array.from({ length: columns }, () => '---').join(' | ')} |`);
  }
  const parts = [caption, rows.join('\n')].filter((part) => part !== '');
  return parts.length > 0 ? `\n\n${parts.join('\n\n')}\n\n` : '';
}

/** HTML → Markdown with turndown (GFM tables, fenced code, ATX headings). */
export function htmlToMarkdown(html: string): string {
  if (html.trim() === '') return '';
  return turndownService().turndown(html);
}

/* ------------------------------------------------------------------ */
/* Strapi Blocks                                                        */
/* ------------------------------------------------------------------ */

interface BlockNode {
  type: string;
  [key: string]: unknown;
}

const MAX_BLOCK_DEPTH = 32;

function isNode(value: unknown): value is BlockNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as BlockNode).type === 'string'
  );
}

function children(field: string, node: BlockNode, depth: number): BlockNode[] {
  if (depth > MAX_BLOCK_DEPTH)
    throw new InvalidRichTextError(field, `nesting deeper than ${MAX_BLOCK_DEPTH}`);
  const list = node.children;
  if (list === undefined) return [];
  if (!Array.isArray(list))
    throw new InvalidRichTextError(field, `"children" of a "${node.type}" block is not an array`);
  for (const child of list) {
    if (!isNode(child))
      throw new InvalidRichTextError(field, `a child of a "${node.type}" block has no "type"`);
  }
  return list as BlockNode[];
}

/** Backslash-escape what would otherwise be read as Markdown syntax. */
export function escapeMarkdown(text: string): string {
  return (
    text
      .replace(/([\\`*_[\]<>|])/g, '\\$1')
      // Line starts: ATX headings, quotes, list markers, setext underlines (`===`) and `~~~` fences.
      .replace(/^(\s*)([#>+=~-])/gm, '$1\\$2')
      .replace(/^(\s*\d+)([.)])/gm, '$1\\$2')
  );
}

function inline(field: string, nodes: BlockNode[], depth: number): string {
  return nodes
    .map((node) => {
      if (node.type === 'text') {
        const raw = typeof node.text === 'string' ? node.text : '';
        if (raw === '') return '';
        if (node.code === true) return '`' + raw.replace(/`/g, "'") + '`';
        let text = escapeMarkdown(raw);
        if (node.bold === true) text = `**${text}**`;
        if (node.italic === true) text = `_${text}_`;
        if (node.strikethrough === true) text = `~~${text}~~`;
        return text;
      }
      if (node.type === 'link') {
        const url = typeof node.url === 'string' ? node.url : '';
        const label = inline(field, children(field, node, depth + 1), depth + 1);
        return url ? `[${label}](${url.replace(/[()\s]/g, encodeURIComponent)})` : label;
      }
      return inline(field, children(field, node, depth + 1), depth + 1);
    })
    .join('');
}

function listToMarkdown(field: string, node: BlockNode, depth: number, indent: string): string {
  const ordered = node.format === 'ordered';
  let n = 0;
  return children(field, node, depth)
    .map((item) => {
      if (item.type === 'list')
        return listToMarkdown(field, item, depth + 1, indent + (ordered ? '   ' : '  '));
      n += 1;
      const marker = ordered ? `${n}.` : '-';
      const nested = children(field, item, depth + 1);
      const text = inline(
        field,
        nested.filter((c) => c.type !== 'list'),
        depth + 1,
      );
      const sub = nested
        .filter((c) => c.type === 'list')
        .map((c) => '\n' + listToMarkdown(field, c, depth + 2, indent + (ordered ? '   ' : '  ')))
        .join('');
      return `${indent}${marker} ${text}${sub}`;
    })
    .join('\n');
}

function blockToMarkdown(field: string, node: BlockNode, depth: number): string {
  switch (node.type) {
    case 'heading': {
      const level =
        typeof node.level === 'number' && node.level >= 1 && node.level <= 6 ? node.level : 2;
      return `${'#'.repeat(level)} ${inline(field, children(field, node, depth), depth)}`;
    }
    case 'paragraph':
      return inline(field, children(field, node, depth), depth);
    case 'quote':
      return inline(field, children(field, node, depth), depth)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'code': {
      const language =
        typeof node.language === 'string' ? node.language.replace(/[^\w+-]/g, '') : '';
      const text = children(field, node, depth)
        .map((c) => (typeof c.text === 'string' ? c.text : ''))
        .join('');
      const fence = text.includes('```') ? '~~~~' : '```';
      return `${fence}${language}\n${text}\n${fence}`;
    }
    case 'list':
      return listToMarkdown(field, node, depth, '');
    case 'image': {
      const image = node.image;
      if (typeof image !== 'object' || image === null)
        throw new InvalidRichTextError(field, 'an "image" block has no "image"');
      const { url, alternativeText, caption } = image as Record<string, unknown>;
      if (typeof url !== 'string' || url === '')
        throw new InvalidRichTextError(field, 'an "image" block has no "image.url"');
      const alt = typeof alternativeText === 'string' ? alternativeText : '';
      const title =
        typeof caption === 'string' && caption !== '' ? ` "${caption.replace(/"/g, '\\"')}"` : '';
      return `![${escapeMarkdown(alt)}](${url.replace(/[()\s]/g, encodeURIComponent)}${title})`;
    }
    default:
      return inline(field, children(field, node, depth), depth);
  }
}

/** Strapi Blocks (the JSON of the Blocks editor) → Markdown. */
export function blocksToMarkdown(field: string, value: unknown): string {
  if (!Array.isArray(value))
    throw new InvalidRichTextError(field, 'Blocks content must be an array of blocks');
  let size: number;
  try {
    size = JSON.stringify(value).length;
  } catch {
    // RangeError of a hostile, very deep nesting (or a cycle): refused like any malformed value.
    throw new InvalidRichTextError(field, `nesting deeper than ${MAX_BLOCK_DEPTH}`);
  }
  if (size > MAX_RICH_TEXT_CHARS) {
    throw new InvalidRichTextError(
      field,
      `content exceeds the limit of ${MAX_RICH_TEXT_CHARS} characters`,
    );
  }
  return value
    .map((block, index) => {
      if (!isNode(block)) throw new InvalidRichTextError(field, `block ${index} has no "type"`);
      return blockToMarkdown(field, block, 1);
    })
    .filter((text) => text.trim() !== '')
    .join('\n\n');
}
