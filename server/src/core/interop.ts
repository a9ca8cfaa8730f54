/**
 * One policy in every vocabulary that crawlers and agents read (docs/protocol.md §9
 * "Discovery documents and usage signals"): robots.txt groups, Content-Signal, the IETF aipref
 * `Content-Usage`, RSL, TDMRep and schema.org JSON-LD, all derived from the `usage` and
 * `license` of manifest items. Pure: no Strapi, no I/O. Published as
 * `strapi-plugin-sitemap-ai/interop` so a front end emits exactly what the plugin serves.
 */

// This module is published on its own, so it declares the few manifest types it reads
// (structurally the manifest's own; tests/unit/interop.test.ts checks they stay equal).
const USAGE_KINDS = ['train', 'infer', 'cache', 'redistribute'] as const;
const USAGE_VALUES = ['allow', 'deny', 'allow-with-citation'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];
export type UsageValue = (typeof USAGE_VALUES)[number];
/** An item's `usage` (docs/protocol.md §3). */
export type Usage = Record<UsageKind, UsageValue>;

/** The fields of a manifest item (docs/protocol.md §3) that the vocabularies here read. */
export interface InteropItem {
  id: string;
  url: string;
  type: string;
  lang: string;
  title?: string;
  topics?: string[];
  license: string;
  usage: Usage;
  modified: string;
  schema?: string[];
  citation?: { apa: string };
  signals?: { author?: string; first_published?: string };
}

/**
 * The aipref drafts whose vocabulary and robots.txt attachment this module follows. Only the
 * two categories every revision since vocab-01 has kept are written: `train-ai` and `search`.
 */
export const AIPREF_VOCAB_DRAFT = 'draft-ietf-aipref-vocab-06';
export const AIPREF_ATTACH_DRAFT = 'draft-ietf-aipref-attach-03';
/** RSL 1.0: namespace of the document and its media type. */
export const RSL_NAMESPACE = 'https://rslstandard.org/rsl';
export const RSL_MEDIA_TYPE = 'application/rsl+xml';

/** What a crawler's visit is for: training a model, or fetching for an assistant's answer. */
export type CrawlerRole = 'training' | 'assistant';

export interface Crawler {
  /** The product token its operator documents for robots.txt. */
  token: string;
  operator: string;
  role: CrawlerRole;
}

/**
 * The AI crawlers the robots.txt block names, from their operators' published crawler
 * documentation (README "Discovery" keeps the list and its sources). Training crawlers follow
 * `train`; assistant and AI-search fetchers follow `infer`.
 */
export const AI_CRAWLERS: readonly Crawler[] = [
  { token: 'GPTBot', operator: 'OpenAI', role: 'training' },
  { token: 'ClaudeBot', operator: 'Anthropic', role: 'training' },
  { token: 'anthropic-ai', operator: 'Anthropic', role: 'training' },
  { token: 'Google-Extended', operator: 'Google', role: 'training' },
  { token: 'Applebot-Extended', operator: 'Apple', role: 'training' },
  { token: 'CCBot', operator: 'Common Crawl', role: 'training' },
  { token: 'Bytespider', operator: 'ByteDance', role: 'training' },
  { token: 'meta-externalagent', operator: 'Meta', role: 'training' },
  { token: 'cohere-training-data-crawler', operator: 'Cohere', role: 'training' },
  { token: 'Amazonbot', operator: 'Amazon', role: 'training' },
  { token: 'ChatGPT-User', operator: 'OpenAI', role: 'assistant' },
  { token: 'OAI-SearchBot', operator: 'OpenAI', role: 'assistant' },
  { token: 'Claude-User', operator: 'Anthropic', role: 'assistant' },
  { token: 'Claude-SearchBot', operator: 'Anthropic', role: 'assistant' },
  { token: 'PerplexityBot', operator: 'Perplexity', role: 'assistant' },
  { token: 'Perplexity-User', operator: 'Perplexity', role: 'assistant' },
  { token: 'DuckAssistBot', operator: 'DuckDuckGo', role: 'assistant' },
  { token: 'MistralAI-User', operator: 'Mistral', role: 'assistant' },
  { token: 'meta-externalfetcher', operator: 'Meta', role: 'assistant' },
];
export const AI_CRAWLER_TOKENS = AI_CRAWLERS.map((c) => c.token);

/** Which usage kind decides each role's access. */
export const ROLE_KIND: Record<CrawlerRole, UsageKind> = { training: 'train', assistant: 'infer' };

const STRICTNESS: Record<UsageValue, number> = { deny: 0, 'allow-with-citation': 1, allow: 2 };

/** The most restrictive of several usages, kind by kind (deny < allow-with-citation < allow). */
export function strictestUsage(usages: readonly Usage[]): Usage | undefined {
  if (usages.length === 0) return undefined;
  const result = { ...usages[0]! };
  for (const usage of usages.slice(1)) {
    for (const kind of USAGE_KINDS) {
      if (STRICTNESS[usage[kind]] < STRICTNESS[result[kind]]) result[kind] = usage[kind];
    }
  }
  return result;
}

export function usageKey(usage: Usage): string {
  return USAGE_KINDS.map((kind) => usage[kind]).join(',');
}

/** Is this use permitted at all (with or without a citation)? */
export const permits = (usage: Usage, kind: UsageKind): boolean => usage[kind] !== 'deny';

/**
 * The three signals the other vocabularies share. `search` is not one of our usage kinds: every
 * published page is meant to be found (it is in sitemap.xml), so it is always permitted.
 */
export interface UsageSignals {
  aiTrain: boolean;
  aiInput: boolean;
  search: true;
}

export function usageSignals(usage: Usage): UsageSignals {
  return { aiTrain: permits(usage, 'train'), aiInput: permits(usage, 'infer'), search: true };
}

/** IETF aipref `Content-Usage` value, an RFC 9651 dictionary of booleans-as-tokens. */
export function contentUsage(usage: Usage): string {
  const s = usageSignals(usage);
  return `train-ai=${s.aiTrain ? 'y' : 'n'}, search=y`;
}

/** Cloudflare Content Signals value (`Content-Signal:` in robots.txt and as a header). */
export function contentSignal(usage: Usage): string {
  const s = usageSignals(usage);
  return `search=yes, ai-input=${s.aiInput ? 'yes' : 'no'}, ai-train=${s.aiTrain ? 'yes' : 'no'}`;
}

/**
 * W3C TDMRep: text and data mining is reserved unless both training and inference are permitted
 * (mining for either is TDM in the sense of the EU DSM directive, art. 4).
 */
export function tdmReservation(usage: Usage): 0 | 1 {
  return permits(usage, 'train') && permits(usage, 'infer') ? 0 : 1;
}

/** RSL usage tokens permitted and prohibited by a usage. */
export function rslUsage(usage: Usage): { permits: string[]; prohibits: string[] } {
  const s = usageSignals(usage);
  const decided: [string, boolean][] = [
    ['ai-train', s.aiTrain],
    ['ai-input', s.aiInput],
    ['ai-index', s.aiInput],
    ['search', true],
  ];
  return {
    permits: decided.filter(([, ok]) => ok).map(([token]) => token),
    prohibits: decided.filter(([, ok]) => !ok).map(([token]) => token),
  };
}

/** Does any permitted use ask for a citation? */
export function requiresCitation(usage: Usage): boolean {
  return USAGE_KINDS.some((kind) => usage[kind] === 'allow-with-citation');
}

/** Where the discovery documents live, absolute. */
export interface DiscoveryUrls {
  rsl: string;
  policy?: string;
}

/**
 * Response headers stating one policy: aipref `Content-Usage`, `Content-Signal`, the RSL licence
 * link and TDMRep's `tdm-reservation` / `tdm-policy` (the licence, when mining is reserved).
 */
export function policyHeaders(
  policy: { usage: Usage; license: string },
  urls: DiscoveryUrls,
): Record<string, string> {
  const reservation = tdmReservation(policy.usage);
  const headers: Record<string, string> = {
    'Content-Usage': contentUsage(policy.usage),
    'Content-Signal': contentSignal(policy.usage),
    Link: `<${urls.rsl}>; rel="license"; type="${RSL_MEDIA_TYPE}"`,
    'tdm-reservation': String(reservation),
  };
  if (reservation === 1) headers['tdm-policy'] = policy.license;
  return headers;
}

// ----------------------------------------------------------------------------------------------
// The policy document: the site's decisions per URL path, from one snapshot.

/** One page as the path rules need it: where it is and what its items allow. */
export interface PagePolicy {
  /** URL path of the page (percent-encoded, as in its URL). */
  path: string;
  usage: Usage;
  license: string;
  modified: string;
}

/**
 * A decision for a path: `pattern` follows RFC 9309 matching (a prefix, or an exact path ending
 * in `$`); the most specific (longest) pattern that matches a path decides.
 */
export interface PathRule {
  pattern: string;
  usage: Usage;
  license: string;
  /** Newest modification under the pattern. */
  lastmod: string;
}

export interface PolicyDocument {
  spec: 'sitemap-ai/1';
  site: { url: string; name: string };
  snapshot: { id: string; created_at: string } | null;
  vocabularies: { aipref: string; aipref_attach: string; rsl: '1.0'; tdmrep: '1.0' };
  urls: {
    manifest: string;
    sitemap: string;
    rsl: string;
    tdmrep: string;
    llms: string;
    llms_full: string;
  };
  /** Prefix rules first, longest first; then exact pages. */
  rules: PathRule[];
}

/** `*` and `$` are pattern characters in robots.txt, RSL and TDMRep: encode them in paths. */
export function escapePath(path: string): string {
  return path.replace(/\*/g, '%2A').replace(/\$/g, '%24');
}

/** The static part of a path pattern before its first placeholder: `/blog/{slug}` → `/blog/`. */
export function patternPrefix(pathPattern: string): string {
  const index = pathPattern.indexOf('{');
  const head = index < 0 ? pathPattern : pathPattern.slice(0, index);
  const cut = head.lastIndexOf('/');
  return cut < 0 ? '/' : head.slice(0, cut + 1);
}

function policyKey(usage: Usage, license: string): string {
  return `${usageKey(usage)}|${license}`;
}

/**
 * Path rules for a set of pages: each prefix (from the content types' path patterns) takes the
 * policy most of its pages share, and every page that differs gets an exact rule of its own.
 * Pages under no prefix get exact rules only. The result decides every page exactly as its
 * items do; paths not in the snapshot under a prefix get the prefix's decision.
 */
export function pathRules(pages: readonly PagePolicy[], prefixes: readonly string[]): PathRule[] {
  const sorted = [...new Set(prefixes)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const groups = new Map<string, PagePolicy[]>();
  const loose: PagePolicy[] = [];
  for (const page of pages) {
    const prefix = sorted.find((p) => page.path.startsWith(p));
    if (prefix === undefined) {
      loose.push(page);
      continue;
    }
    const group = groups.get(prefix);
    if (group) group.push(page);
    else groups.set(prefix, [page]);
  }
  const prefixRules: PathRule[] = [];
  const exact: PagePolicy[] = [...loose];
  for (const prefix of sorted) {
    const group = groups.get(prefix);
    if (!group) continue;
    const tally = new Map<string, { count: number; page: PagePolicy; lastmod: string }>();
    for (const page of group) {
      const key = policyKey(page.usage, page.license);
      const entry = tally.get(key);
      if (entry) {
        entry.count += 1;
        if (page.modified > entry.lastmod) entry.lastmod = page.modified;
      } else tally.set(key, { count: 1, page, lastmod: page.modified });
    }
    // The commonest policy; a tie goes to the stricter one, then to the smaller key.
    const [winnerKey, winner] = [...tally.entries()].sort(
      ([ka, a], [kb, b]) =>
        b.count - a.count ||
        strictness(a.page.usage) - strictness(b.page.usage) ||
        (ka < kb ? -1 : 1),
    )[0]!;
    const lastmod = group.reduce((max, p) => (p.modified > max ? p.modified : max), '');
    prefixRules.push({
      pattern: escapePath(prefix),
      usage: { ...winner.page.usage },
      license: winner.page.license,
      lastmod,
    });
    for (const page of group) {
      if (policyKey(page.usage, page.license) !== winnerKey) exact.push(page);
    }
  }
  const exactRules = exact
    .map((page) => ({
      pattern: `${escapePath(page.path)}$`,
      usage: { ...page.usage },
      license: page.license,
      lastmod: page.modified,
    }))
    .sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
  return [...prefixRules, ...exactRules];
}

function strictness(usage: Usage): number {
  return USAGE_KINDS.reduce((sum, kind) => sum + STRICTNESS[usage[kind]], 0);
}

/**
 * RFC 9309 matching of the patterns this module writes: a path prefix, or an exact path ending
 * in `$` (paths have `*` and `$` percent-encoded, so neither appears as a literal).
 */
export function patternMatches(pattern: string, path: string): boolean {
  if (pattern.endsWith('$')) return path === pattern.slice(0, -1);
  return path.startsWith(pattern);
}

/** The rule that decides a path: the longest matching pattern. */
export function ruleFor(rules: readonly PathRule[], path: string): PathRule | undefined {
  let best: PathRule | undefined;
  for (const rule of rules) {
    if (!patternMatches(rule.pattern, escapePath(path))) continue;
    if (!best || rule.pattern.length > best.pattern.length) best = rule;
  }
  return best;
}

// ----------------------------------------------------------------------------------------------
// robots.txt

export interface RobotsOptions {
  /** Crawler tokens to name (default: all of AI_CRAWLERS). */
  agents?: readonly string[];
  /** Paths that carry many pages' content (the plugin's own API); closed to a role as soon as any page denies it. */
  contentPaths?: readonly string[];
  /** Extra comment lines at the top. */
  comment?: readonly string[];
}

/**
 * One robots.txt group, structured: the shape a front end's robots generator takes (Next.js
 * `MetadataRoute.Robots` rules: `userAgent`, `allow`, `disallow`), plus the per-path usage lines
 * such generators cannot express and `robotsTxt` writes.
 */
export interface RobotsGroup {
  userAgent: string[];
  allow: string[];
  disallow: string[];
  /** `[pattern, value]` pairs of aipref `Content-Usage` lines. */
  contentUsage: [string, string][];
  /** `[pattern, value]` pairs of `Content-Signal` lines. */
  contentSignal: [string, string][];
}

function groupFor(
  userAgent: string[],
  rules: readonly PathRule[],
  kind: UsageKind | null,
  closed: readonly string[],
): RobotsGroup {
  const group: RobotsGroup = {
    userAgent,
    allow: [],
    disallow: closed.map(escapePath),
    contentUsage: rules.map((r) => [r.pattern, contentUsage(r.usage)]),
    contentSignal: rules.map((r) => [r.pattern, contentSignal(r.usage)]),
  };
  const prefixes = rules.filter((r) => !r.pattern.endsWith('$'));
  for (const rule of rules) {
    const allowed = kind === null ? true : permits(rule.usage, kind);
    if (rule.pattern.endsWith('$')) {
      // An exact page only needs a line where it differs from the prefix above it.
      const parent = ruleFor(prefixes, rule.pattern.slice(0, -1));
      const parentAllowed = parent ? (kind === null ? true : permits(parent.usage, kind)) : null;
      if (parentAllowed === allowed) continue;
    }
    (allowed ? group.allow : group.disallow).push(rule.pattern);
  }
  if (group.allow.length === 0 && group.disallow.length === 0) group.allow.push('/');
  return group;
}

/**
 * The robots.txt groups of a policy document: one per crawler role (training crawlers follow
 * `train`, assistant fetchers follow `infer`), then `User-agent: *` carrying only the usage
 * signals. Every group has the `Content-Usage` and `Content-Signal` lines, because a crawler
 * reads only the group that names it. Content paths close to a role as soon as any page denies it.
 */
export function robotsGroups(document: PolicyDocument, options: RobotsOptions = {}): RobotsGroup[] {
  const agents = new Set(options.agents ?? AI_CRAWLER_TOKENS);
  const groups: RobotsGroup[] = [];
  for (const role of ['training', 'assistant'] as const) {
    const tokens = AI_CRAWLERS.filter((c) => c.role === role && agents.has(c.token));
    if (tokens.length === 0) continue;
    const kind = ROLE_KIND[role];
    const denied = document.rules.some((r) => !permits(r.usage, kind));
    groups.push(
      groupFor(
        tokens.map((c) => c.token),
        document.rules,
        kind,
        denied ? (options.contentPaths ?? []) : [],
      ),
    );
  }
  groups.push(groupFor(['*'], document.rules, null, []));
  return groups;
}

/** The robots.txt block: `robotsGroups` as text, then the RSL licence and the sitemaps. */
export function robotsTxt(document: PolicyDocument, options: RobotsOptions = {}): string {
  const lines: string[] = [
    `# AI usage policy of ${document.site.name}, generated by strapi-plugin-sitemap-ai`,
    ...(document.snapshot
      ? [`# from snapshot ${document.snapshot.id} of ${document.snapshot.created_at}`]
      : ['# no snapshot is published yet']),
    `# vocabularies: ${AIPREF_VOCAB_DRAFT} / ${AIPREF_ATTACH_DRAFT}, Content Signals, RSL 1.0`,
    ...(options.comment ?? []).map((line) => `# ${line}`),
    '',
  ];
  for (const group of robotsGroups(document, options)) {
    lines.push(...group.userAgent.map((agent) => `User-agent: ${agent}`));
    lines.push(...group.disallow.map((pattern) => `Disallow: ${pattern}`));
    lines.push(...group.allow.map((pattern) => `Allow: ${pattern}`));
    for (const [pattern, value] of group.contentUsage)
      lines.push(`Content-Usage: ${pattern} ${value}`);
    for (const [pattern, value] of group.contentSignal)
      lines.push(`Content-Signal: ${pattern} ${value}`);
    lines.push('');
  }
  lines.push(`License: ${document.urls.rsl}`);
  lines.push(`Sitemap: ${document.urls.sitemap}`);
  lines.push(`Sitemap: ${document.urls.manifest}`);
  return `${lines.join('\n')}\n`;
}

// ----------------------------------------------------------------------------------------------
// RSL 1.0 and TDMRep

function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * An RSL 1.0 document: one `<content>` per path rule (RSL matches `url` like robots.txt), its
 * `<license>` permitting and prohibiting usage tokens; a citation requirement is an
 * `attribution` payment under the licence, otherwise the use is `free` under it.
 */
export function rslXml(document: PolicyDocument): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rsl xmlns="${RSL_NAMESPACE}">`,
  ];
  for (const rule of document.rules) {
    const { permits: allowed, prohibits } = rslUsage(rule.usage);
    const lastmod = rule.lastmod ? ` lastmod="${xmlEscape(rule.lastmod)}"` : '';
    out.push(`  <content url="${xmlEscape(rule.pattern)}"${lastmod}>`);
    out.push('    <license>');
    if (allowed.length > 0) out.push(`      <permits type="usage">${allowed.join(' ')}</permits>`);
    if (prohibits.length > 0)
      out.push(`      <prohibits type="usage">${prohibits.join(' ')}</prohibits>`);
    const payment = requiresCitation(rule.usage) ? 'attribution' : 'free';
    out.push(`      <payment type="${payment}">`);
    out.push(`        <standard>${xmlEscape(rule.license)}</standard>`);
    out.push('      </payment>');
    out.push('    </license>');
    out.push('  </content>');
  }
  out.push('</rsl>');
  return `${out.join('\n')}\n`;
}

export interface TdmRepEntry {
  location: string;
  'tdm-reservation': 0 | 1;
  'tdm-policy'?: string;
}

/** W3C TDMRep `tdmrep.json`: most specific location first (exact pages, then longer prefixes). */
export function tdmrepJson(document: PolicyDocument): TdmRepEntry[] {
  const entries = document.rules.map((rule) => {
    const exact = rule.pattern.endsWith('$');
    const location = exact ? rule.pattern.slice(0, -1) : `${rule.pattern}*`;
    const reservation = tdmReservation(rule.usage);
    const entry: TdmRepEntry = { location, 'tdm-reservation': reservation };
    if (reservation === 1) entry['tdm-policy'] = rule.license;
    return { entry, exact, length: location.length };
  });
  return entries
    .sort((a, b) => Number(b.exact) - Number(a.exact) || b.length - a.length)
    .map((e) => e.entry);
}

// ----------------------------------------------------------------------------------------------
// schema.org JSON-LD

const PAGE_TYPES = new Set([
  'Article',
  'BlogPosting',
  'NewsArticle',
  'TechArticle',
  'ScholarlyArticle',
  'Report',
  'Dataset',
  'FAQPage',
  'WebPage',
  'HowTo',
  'Recipe',
]);

/**
 * JSON-LD of a page: its schema.org type from the item's `schema` (Article unless the type
 * names another page type), licence, `usageInfo` (the item's manifest record, which states its
 * usage), the preferred citation as `creditText`, and one `WebPageElement` per fragment.
 */
export function pageJsonLd(
  page: InteropItem,
  fragments: readonly InteropItem[],
  urls: { usageInfo: (id: string) => string },
): Record<string, unknown> {
  const type = (page.schema ?? []).find((t) => PAGE_TYPES.has(t)) ?? 'Article';
  const free = permits(page.usage, 'infer');
  const doc: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': type,
    '@id': page.url,
    url: page.url,
    ...(page.title
      ? { name: page.title, ...(type === 'Dataset' ? {} : { headline: page.title }) }
      : {}),
    inLanguage: page.lang,
    license: page.license,
    usageInfo: urls.usageInfo(page.id),
    dateModified: page.modified,
    ...(page.signals?.first_published ? { datePublished: page.signals.first_published } : {}),
    ...(page.signals?.author ? { author: { '@type': 'Person', name: page.signals.author } } : {}),
    ...(page.citation ? { creditText: page.citation.apa } : {}),
    isAccessibleForFree: free,
    ...(page.topics && page.topics.length > 0 ? { keywords: page.topics.join(', ') } : {}),
  };
  if (fragments.length > 0) {
    doc.hasPart = fragments.map((fragment) => ({
      '@type': 'WebPageElement',
      '@id': fragment.url,
      url: fragment.url,
      ...(fragment.title ? { name: fragment.title } : {}),
      license: fragment.license,
      usageInfo: urls.usageInfo(fragment.id),
      isAccessibleForFree: permits(fragment.usage, 'infer'),
    }));
  }
  return doc;
}

// ----------------------------------------------------------------------------------------------
// llms.txt

/** One line of a llms.txt link list: `- [title](url): description`. */
export function llmsLink(title: string, url: string, description?: string): string {
  const text = title.replace(/[[\]]/g, ' ').replace(/\s+/g, ' ').trim() || url;
  const note = description?.replace(/\s+/g, ' ').trim();
  const href = url.replace(
    /[()\s]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
  return `- [${text}](${href})${note ? `: ${note}` : ''}`;
}

/** A usage as one short human line, e.g. `train: deny; infer: allow-with-citation; …`. */
export function usageLine(usage: Usage): string {
  return USAGE_KINDS.map((kind) => `${kind}: ${usage[kind]}`).join('; ');
}

/** Is this a usage object of the manifest's vocabulary? (for values read back from JSON) */
export function isUsage(value: unknown): value is Usage {
  if (!value || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return USAGE_KINDS.every((kind) => (USAGE_VALUES as readonly unknown[]).includes(record[kind]));
}
