import { canonicalText, checksumOf, sha256Hex, stableStringify, withoutMember } from './canonical';
import { buildCitation } from './citation';
import { extend } from './objects';
import {
  ENTRY_KEY_MAX_LENGTH,
  HISTORY_MAX_LENGTH,
  ID_SEPARATOR,
  TYPE_KEY_MAX_LENGTH,
  type ChunkRule,
  type FragmentType,
} from '../../../shared/constants';
import { fragmentEntry } from './fragmenter';
import { slugify } from './anchors';
import {
  cascadePolicy,
  mergeEvidence,
  normaliseTopics,
  overrideOf,
  type PolicyLayer,
} from './policy';
import {
  meanChangeIntervalDays,
  meanDaysForScore,
  revisitAfter,
  stabilityScore,
} from './stability';
import { fillPathPattern, isSameSite } from '../../../shared/urls';
import type {
  Citation,
  EntrySource,
  Fragment,
  ItemDraft,
  ManifestItem,
  MetadataOverride,
  StoredItemState,
} from './types';

/** What the manifest needs to know about one enabled content type. */
export interface TypePolicy extends PolicyLayer {
  uid: string;
  typeKey: string;
  pathPattern: string;
  chunk: ChunkRule;
  maxTokens: number;
  granularity: ReadonlySet<FragmentType>;
  schema: readonly string[];
  faqHeadings?: readonly string[];
}

/** Site-wide values every item needs. */
export interface SiteContext {
  siteUrl: string;
  siteName: string;
  /** Where this plugin's content API is reachable (for `content_url`). */
  apiUrl: string;
  /** The path of the plugin's public routes on `apiUrl`: Strapi's REST prefix and the plugin id (`/api/sitemap-ai`). */
  apiPath: string;
  mediaBaseUrl: string;
  defaultLocale: string;
  defaults: PolicyLayer & { license: string };
}

const FRAGMENT_SCHEMA: Record<FragmentType, string[]> = {
  section: ['WebPageElement'],
  table: ['Table'],
  figure: ['ImageObject'],
  faq: ['Question'],
  dataset: ['Dataset'],
};

/** Stable key of an entry (docs/protocol.md §1): its slug, else its documentId. */
export function entryKey(entry: Pick<EntrySource, 'slug' | 'documentId'>): string {
  if (entry.slug && entry.slug.trim() !== '') return slugify(entry.slug, ENTRY_KEY_MAX_LENGTH);
  return slugify(entry.documentId, ENTRY_KEY_MAX_LENGTH);
}

/** `article:geo-index:en` — the id of an entry's `article` item. */
export function articleId(typeKey: string, key: string, lang: string): string {
  return [slugify(typeKey, TYPE_KEY_MAX_LENGTH), key, lang.toLowerCase()].join(ID_SEPARATOR);
}

/** `article:geo-index:en:why-classic-sitemaps-fail` — a fragment's id. */
export function fragmentId(parentId: string, fragmentKey: string): string {
  return `${parentId}${ID_SEPARATOR}${fragmentKey}`;
}

export function contentUrl(site: SiteContext, id: string): string {
  // Ids are [a-z0-9:-] only: safe in a path segment as they are.
  return `${site.apiUrl.replace(/\/+$/, '')}${site.apiPath}/fragments/${id}/content`;
}

function overrideFor(entry: EntrySource, id: string, key: string): MetadataOverride | undefined {
  return overrideOf(entry.metadata.fragments, id, key);
}

function definedOnly<T extends object>(value: T): T {
  const kept: Record<string, unknown> = {};
  // Keys, not entries: a pair array per member was 4 % of what a first build allocated.
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v !== undefined && !(Array.isArray(v) && v.length === 0)) kept[key] = v;
  }
  return kept as T;
}

interface PageContext {
  entry: EntrySource;
  type: TypePolicy;
  site: SiteContext;
  parentId: string;
  pageUrl: string;
  authors: string[];
  authorId?: string;
}

function typeSpecific(fragment: Fragment): Partial<ManifestItem> {
  return definedOnly({
    columns:
      fragment.columns && fragment.columns.length > 0
        ? fragment.columns.map((c) => definedOnly({ ...c }))
        : undefined,
    units: fragment.units,
    source_method: fragment.sourceMethod,
    update_cycle: fragment.updateCycle,
    alt: fragment.alt,
    caption: fragment.caption,
    dpi: fragment.dpi,
    bounding_boxes: fragment.boundingBoxes,
    media_url: fragment.mediaUrl,
    file_url: fragment.fileUrl,
    file_checksum: fragment.fileChecksum,
  });
}

function makeDraft(
  ctx: PageContext,
  spec: {
    id: string;
    type: ManifestItem['type'];
    parent?: string;
    url: string;
    title: string;
    text: string;
    links: readonly string[];
    override?: MetadataOverride;
    schema: readonly string[];
    extra?: Partial<ManifestItem>;
  },
): ItemDraft {
  const { entry, type, site } = ctx;
  const meta = entry.metadata;
  const override = spec.override;
  const policy = cascadePolicy(site.defaults, type, meta, override);
  const content = canonicalText(spec.text);
  const evidence = mergeEvidence(
    override?.evidence,
    meta.evidence,
    spec.links
      .filter((url) => !isSameSite(url, site.siteUrl))
      .map((url) => ({ rel: 'cites', url })),
  );
  const item: ItemDraft['item'] = definedOnly({
    id: spec.id,
    url: spec.url,
    type: spec.type,
    parent: spec.parent,
    lang: entry.lang,
    alt_of: override?.alt_of,
    title: spec.title,
    topics: normaliseTopics(override?.topics, meta.topics),
    entity_ids: normaliseTopics(override?.entity_ids, meta.entity_ids),
    related: normaliseTopics(override?.related, spec.type === 'article' ? meta.related : undefined),
    license: policy.license,
    usage: policy.usage,
    checksum: checksumOf(content),
    evidence,
    schema: normaliseTopics(
      override?.schema,
      spec.type === 'article' ? meta.schema : undefined,
      spec.schema,
    ),
    embedding_hint: policy.embedding_hint,
    signals: definedOnly({
      canonical: ctx.pageUrl,
      author_id: ctx.authorId,
      author: ctx.authors.length > 0 ? ctx.authors.join(', ') : undefined,
    }),
    content_url: contentUrl(site, spec.id),
    ...spec.extra,
  });
  return {
    id: spec.id,
    type: spec.type,
    lang: entry.lang,
    parent: spec.parent,
    sourceUid: entry.uid,
    documentId: entry.documentId,
    content,
    checksum: item.checksum,
    metaHash: '',
    sourceModified:
      entry.publishedAt ?? entry.updatedAt ?? entry.createdAt ?? new Date(0).toISOString(),
    stabilityPin:
      override?.stability_pin ?? (spec.type === 'article' ? meta.stability_pin : undefined),
    citationOverride: override?.citation ?? (spec.type === 'article' ? meta.citation : undefined),
    citationInput: {
      title: spec.title,
      pageTitle: entry.title,
      authors: ctx.authors,
      siteName: site.siteName,
      url: spec.url,
      // Replaced by the item's own `modified` when stored (storedItem).
      date: entry.publishedAt ?? entry.updatedAt ?? '',
      lang: entry.lang,
    },
    item,
  };
}

/**
 * `text` without every passage in `removed` (an excluded fragment's canonical text), blank
 * lines collapsed. Excluded means gone from every public output: the page's content and a
 * section holding an excluded table or figure do not carry its text either.
 */
function withoutPassages(text: string, removed: readonly string[]): string {
  let result = text;
  for (const passage of removed) {
    if (passage !== '' && passage !== result) result = result.split(passage).join('');
  }
  return result === text ? text : canonicalText(result.replace(/\n{3,}/g, '\n\n'));
}

/**
 * Items of one entry in one locale: its `article` item, then one item per
 * fragment, in document order. Sensitive entries and excluded fragments give
 * nothing. Returns `null` when the entry has no page URL (its path pattern
 * cannot be filled), which the caller reports.
 */
export function buildEntryItems(
  entry: EntrySource,
  type: TypePolicy,
  site: SiteContext,
): ItemDraft[] | null {
  if (entry.metadata.sensitive === true) return [];
  const path = fillPathPattern(type.pathPattern, entry.pathValues);
  if (path === null) return null;
  const pageUrl = `${site.siteUrl.replace(/\/+$/, '')}${path}`;
  const parentId = articleId(type.typeKey, entryKey(entry), entry.lang);
  const authorWithOrcid = entry.authors.find((a) => a.orcid);
  const ctx: PageContext = {
    entry,
    type,
    site,
    parentId,
    pageUrl,
    authors: entry.authors.map((a) => a.name).filter((n) => n.trim() !== ''),
    authorId: authorWithOrcid?.orcid ? `ORCID:${authorWithOrcid.orcid}` : undefined,
  };
  const fragmented = fragmentEntry(entry, {
    chunk: type.chunk,
    granularity: type.granularity,
    mediaBaseUrl: site.mediaBaseUrl,
    faqHeadings: type.faqHeadings,
  });
  const excluded = fragmented.fragments
    .filter((f) => overrideFor(entry, fragmentId(parentId, f.key), f.key)?.exclude === true)
    .map((f) => f.text);
  const drafts: ItemDraft[] = [
    makeDraft(ctx, {
      id: parentId,
      type: 'article',
      url: pageUrl,
      title: entry.title,
      text: withoutPassages(fragmented.text, excluded),
      links: fragmented.links,
      override: entry.metadata.fragments?.[parentId],
      schema: type.schema,
    }),
  ];
  for (const fragment of fragmented.fragments) {
    const id = fragmentId(parentId, fragment.key);
    const override = overrideFor(entry, id, fragment.key);
    if (override?.exclude === true) continue;
    drafts.push(
      makeDraft(ctx, {
        id,
        type: fragment.type,
        parent: parentId,
        url: `${pageUrl}#${fragment.key}`,
        title: fragment.title ?? entry.title,
        text: withoutPassages(fragment.text, excluded),
        links: fragment.links,
        override,
        schema: FRAGMENT_SCHEMA[fragment.type],
        extra: {
          ...typeSpecific(fragment),
          // Figures: resolution and regions where an editor gave them
          ...(fragment.type === 'figure' && override?.dpi !== undefined
            ? { dpi: override.dpi }
            : {}),
          ...(fragment.type === 'figure' && override?.bounding_boxes?.length
            ? { bounding_boxes: override.bounding_boxes.map((box) => ({ ...box })) }
            : {}),
        },
      }),
    );
  }
  return drafts;
}

/**
 * Cross-language links (docs/protocol.md §1.2 `alt_of`): items of a translation point at the
 * item of the reference-language version — the page always, fragments by
 * position when both versions have the same sequence of fragment types. An
 * editor's `alt_of` is kept. Returns new drafts; the inputs are not changed.
 */
export function linkTranslations(
  reference: readonly ItemDraft[],
  translation: readonly ItemDraft[],
): ItemDraft[] {
  const sameShape =
    reference.length === translation.length &&
    reference.every((r, i) => r.type === translation[i]!.type);
  return translation.map((draft, index) => {
    if (draft.item.alt_of) return draft;
    const target = index === 0 ? reference[0] : sameShape ? reference[index] : undefined;
    if (!target) return draft;
    return extend(draft, { item: extend(draft.item, { alt_of: target.id }) });
  });
}

/**
 * Characters of an item's metadata hash: the first 128 bits of a SHA-256, in hex. It is only ever
 * compared with the same item's previous one, stored in its state and each of its versions.
 */
export const META_HASH_LENGTH = 32;

/**
 * Hash of every published field but the checksum: a change here is a metadata
 * change. Dates that move on every re-publish (the entry's publishedAt) are
 * left out, so re-publishing unchanged content changes nothing.
 */
export function finalizeDraft(draft: ItemDraft): ItemDraft {
  const metaHash = sha256Hex(
    stableStringify({
      meta: withoutMember(draft.item, 'checksum'),
      pin: draft.stabilityPin,
      citation: draft.citationOverride,
      cite: withoutMember(draft.citationInput, 'date'),
    }),
  ).slice(0, META_HASH_LENGTH);
  return extend(draft, { metaHash });
}

/** What one document publishes: its items in every locale read, and the entries left out. */
export interface DocumentDrafts {
  /** Items of every entry, the default locale's first, translations linked, finalized. */
  drafts: ItemDraft[];
  /** Entries whose path pattern cannot be filled (no page URL): they publish nothing. */
  unfilled: EntrySource[];
}

/**
 * The items a document publishes from its entries, one per locale (docs/protocol.md §1, §1.2):
 * the default locale's entry is built first so a translation's items point at it (`alt_of`),
 * then every draft is finalized. The one computation behind tracking a publish, the full
 * reconcile and the editors' panel preview (which passes the saved draft of its locale in place
 * of the published version). Pure; the entries are not changed.
 */
export function documentDrafts(
  entries: readonly EntrySource[],
  type: TypePolicy,
  site: SiteContext,
): DocumentDrafts {
  const isDefault = (entry: EntrySource) => entry.lang === site.defaultLocale;
  const ordered = [...entries].sort((a, b) => Number(isDefault(b)) - Number(isDefault(a)));
  const result: DocumentDrafts = { drafts: [], unfilled: [] };
  let reference: ItemDraft[] | undefined;
  for (const entry of ordered) {
    let built = buildEntryItems(entry, type, site);
    if (built === null) {
      result.unfilled.push(entry);
      continue;
    }
    if (isDefault(entry)) reference = built;
    else if (reference) built = linkTranslations(reference, built);
    result.drafts.push(...built.map(finalizeDraft));
  }
  return result;
}

export type ItemChange = 'added' | 'content' | 'metadata' | 'none';

/**
 * The next stored state of an item (docs/protocol.md §3.1 `version`), the one rule every
 * comparison uses: a new item is v1.0 dated by its entry; a removed one that comes back, or a
 * content change, bumps the first number and resets the second; a metadata change — or a rename,
 * which always changes the item's id and address — bumps the second. `now` is the change time.
 */
export function nextState(
  previous: (StoredItemState & { removed?: boolean }) | undefined,
  draft: Pick<ItemDraft, 'checksum' | 'metaHash' | 'sourceModified'>,
  now: string,
  options: { renamed?: boolean } = {},
): { state: StoredItemState; change: ItemChange } {
  if (!previous) {
    const modified = draft.sourceModified;
    return {
      change: 'added',
      state: {
        checksum: draft.checksum,
        metaHash: draft.metaHash,
        contentVersion: 1,
        metaVersion: 0,
        modified,
        firstPublished: modified,
        history: [modified],
      },
    };
  }
  const returning = previous.removed === true && !options.renamed;
  if (returning || previous.checksum !== draft.checksum) {
    return {
      change: returning ? 'added' : 'content',
      state: extend(previous, {
        checksum: draft.checksum,
        metaHash: draft.metaHash,
        contentVersion: previous.contentVersion + 1,
        metaVersion: 0,
        modified: now,
        history: [...previous.history, now].slice(-HISTORY_MAX_LENGTH),
      }),
    };
  }
  if (options.renamed || previous.metaHash !== draft.metaHash) {
    return {
      change: 'metadata',
      state: extend(previous, {
        history: [...previous.history],
        metaHash: draft.metaHash,
        metaVersion: previous.metaVersion + 1,
        modified: now,
      }),
    };
  }
  // Only the version fields: the caller's previous state may carry its stored texts, read lazily.
  const { checksum, metaHash, contentVersion, metaVersion, modified, firstPublished } = previous;
  return {
    change: 'none',
    state: {
      checksum,
      metaHash,
      contentVersion,
      metaVersion,
      modified,
      firstPublished,
      history: [...previous.history],
    },
  };
}

export function versionString(
  state: Pick<StoredItemState, 'contentVersion' | 'metaVersion'>,
): string {
  return `v${state.contentVersion}.${state.metaVersion}`;
}

/**
 * The key under which a stored item keeps what its generated citation is built from, in place of
 * the citation's text (README "Storage"). The APA and BibTeX strings repeat the item's title, URL,
 * version and date and were a third of a stored item's bytes (~520 of ~1480 characters); what they
 * add to the item's own fields is the page's title, the authors and the site's name, stored here
 * and turned back into the citation whenever a stored item is read (`withCitation`). Rows written
 * before keep their citation's text, which reads as it is.
 */
export const CITATION_FROM = '$from';

/** What a stored citation is built from besides the item's own fields (each only where it differs). */
interface CitationSource {
  site: string;
  page?: string;
  authors?: string[];
  title?: string;
  url?: string;
  lang?: string;
}

type StoredCitation = Partial<Citation> & { [CITATION_FROM]?: CitationSource };

/**
 * The stored form of an item: everything but the values computed when it is served. The citation
 * is kept as what builds it (`CITATION_FROM`) with the editor's overrides beside it, and dated by
 * the item's own last change when it is built. With `changelog`, its recent changes too (one
 * copy of the item for all of it: a first build stores 140k items at 10k articles).
 */
export function storedItem(
  draft: ItemDraft,
  state: StoredItemState,
  changelog?: ManifestItem['changelog'],
): ManifestItem {
  const version = versionString(state);
  const input = draft.citationInput;
  const item = draft.item;
  const from: CitationSource = { site: input.siteName };
  if (input.pageTitle !== input.title) from.page = input.pageTitle;
  if (input.authors.length > 0) from.authors = [...input.authors];
  if (input.title !== item.title) from.title = input.title;
  if (input.url !== item.url) from.url = input.url;
  if (input.lang !== item.lang) from.lang = input.lang;
  const citation: StoredCitation = extend(
    { [CITATION_FROM]: from },
    definedOnly(draft.citationOverride ?? {}),
  );
  const signals = extend(item.signals ?? {}, { first_published: state.firstPublished });
  const fields: Record<string, unknown> = {
    // The row that holds the stored item holds its checksum too (`readStoredItem`).
    ...(item.checksum === state.checksum ? { checksum: CHECKSUM_OF_ROW } : {}),
    signals,
    version,
    modified: state.modified,
    citation,
  };
  if (changelog !== undefined) fields.changelog = changelog;
  return extend(item, fields) as unknown as ManifestItem;
}

/**
 * Stored in place of an item's checksum that its row holds (README "Storage"): 71 characters of
 * hex that deflate to ~35 bytes, in every stored item.
 */
export const CHECKSUM_OF_ROW = 0;

/**
 * A stored item as read back from its row: its checksum from the row's (`checksum`, public form)
 * where it was left to the row, its citation built unless `citation` is false (a reader of
 * licences, usages and pages, which would only make garbage of 1–2 KB an item). `stored` is
 * changed in place, its keys in their order.
 */
export function readStoredItem(
  stored: ManifestItem,
  checksum: string,
  citation = true,
): ManifestItem {
  if ((stored.checksum as unknown) === CHECKSUM_OF_ROW) stored.checksum = checksum;
  return citation ? withCitation(stored) : stored;
}

/**
 * A stored item with its citation built (README "Storage"): from what the stored item keeps of it,
 * its title, URL, language, version and last change, the editor's overrides over the generated
 * text. `stored` is changed in place (a stored item is read fresh for each use), its keys in their
 * order; an item stored with its citation's text is returned as it is.
 */
export function withCitation(stored: ManifestItem): ManifestItem {
  const citation = stored.citation as StoredCitation | undefined;
  const from = citation?.[CITATION_FROM];
  if (!citation || !from) return stored;
  const { [CITATION_FROM]: _from, ...override } = citation;
  const title = from.title ?? stored.title ?? '';
  const generated = buildCitation(
    {
      title,
      pageTitle: from.page ?? title,
      authors: from.authors ?? [],
      siteName: from.site,
      url: from.url ?? stored.url,
      lang: from.lang ?? stored.lang,
      date: stored.modified,
    },
    stored.version,
  );
  stored.citation = extend(generated, override) as Citation; // JSON holds no undefined values
  return stored;
}

/**
 * The item as served from a snapshot taken at `snapshotTime`: stability and
 * recrawl interval come from the item's own change history (docs/protocol.md §3.2), or
 * from the editor's pin.
 */
export function servedItem(
  stored: ManifestItem,
  history: readonly string[],
  stabilityPin: number | undefined,
  snapshotTime: Date,
): ManifestItem {
  const meanDays =
    stabilityPin !== undefined
      ? meanDaysForScore(stabilityPin)
      : meanChangeIntervalDays(history, snapshotTime);
  const score =
    stabilityPin !== undefined ? Math.round(stabilityPin * 100) / 100 : stabilityScore(meanDays);
  const ordered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    ordered[key] = value;
    if (key === 'modified') {
      ordered.stability_score = score;
      ordered.revisit_after = revisitAfter(meanDays);
    }
  }
  return ordered as unknown as ManifestItem;
}

/**
 * A page item with the addresses of its discovery copies (docs/protocol.md §9.3): its clean
 * Markdown (`markdown_url`) and its JSON-LD (`jsonld_url`), next to `content_url` and on the
 * same base, so the three never point at different servers. Other items are returned as they are.
 */
export function withPageLinks(item: ManifestItem): ManifestItem {
  if (item.type !== 'article') return item;
  const cut = item.content_url.lastIndexOf('/fragments/');
  if (cut < 0) return item;
  const base = item.content_url.slice(0, cut);
  const ordered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    ordered[key] = value;
    if (key === 'content_url') {
      ordered.markdown_url = `${base}/pages/${item.id}.md`;
      ordered.jsonld_url = `${base}/pages/${item.id}/jsonld`;
    }
  }
  return ordered as unknown as ManifestItem;
}
