import type { ChunkRule, FragmentType, ItemType, UsageKind, UsageValue } from './constants';
import type { EntryMetadata, EvidenceLink, MetadataOverride } from '../../../shared/contracts/admin';

/** Editors' values: defined once in the admin contract, which the admin panel edits. */
export type { EntryMetadata, EvidenceLink, MetadataOverride };

export type Usage = Record<UsageKind, UsageValue>;

export interface EmbeddingHint {
  chunk: ChunkRule;
  max_tokens: number;
  stop_sequences?: string[];
}

export interface Citation {
  apa: string;
  bibtex: string;
}

export interface ChangelogEntry {
  date: string;
  version: string;
  desc: string;
}

export interface Column {
  name: string;
  unit?: string;
  datatype?: string;
  description?: string;
}

export interface BoundingBox {
  x: number;
  y: number;
  width: number;
  height: number;
  label?: string;
}

/** A media file as the fragmenter needs it. */
export interface MediaSource {
  field: string;
  url: string;
  mime?: string;
  alt?: string;
  caption?: string;
  width?: number;
  height?: number;
}

export interface FaqSource {
  question: string;
  answer: string;
}

export interface TableSource {
  field: string;
  caption?: string;
  columns: Column[];
  rows: unknown[][];
  sourceMethod?: string;
  updateCycle?: string;
}

export interface DatasetSource {
  field: string;
  title?: string;
  description?: string;
  fileUrl?: string;
  mime?: string;
  /** `sha256:` checksum of the file's bytes, when they could be read. */
  fileChecksum?: string;
  columns: Column[];
  sourceMethod?: string;
  updateCycle?: string;
}

export type RichTextFormat = 'markdown' | 'blocks' | 'html';

export interface RichTextSource {
  field: string;
  format: RichTextFormat;
  value: unknown;
}

export interface AuthorSource {
  name: string;
  orcid?: string;
}

/**
 * One published entry in one locale, reduced to what the manifest needs.
 * Repositories produce it; the core never sees a Strapi document.
 */
export interface EntrySource {
  uid: string;
  typeKey: string;
  documentId: string;
  lang: string;
  slug?: string;
  title: string;
  summary?: string;
  createdAt?: string;
  updatedAt?: string;
  publishedAt?: string;
  bodies: RichTextSource[];
  media: MediaSource[];
  faq: FaqSource[];
  tables: TableSource[];
  datasets: DatasetSource[];
  authors: AuthorSource[];
  metadata: EntryMetadata;
  /** Values used to fill the type's path pattern (`{slug}`, `{locale}`, …). */
  pathValues: Record<string, string>;
}

/** A fragment before policy and versioning: what the content says. */
export interface Fragment {
  key: string;
  type: FragmentType;
  title?: string;
  /** Canonical Markdown (SPEC §3 `checksum` is over this text). */
  text: string;
  /** Key of the section it belongs to (tables and figures in a section). */
  section?: string;
  columns?: Column[];
  units?: string[];
  sourceMethod?: string;
  updateCycle?: string;
  alt?: string;
  caption?: string;
  mediaUrl?: string;
  dpi?: number;
  boundingBoxes?: BoundingBox[];
  fileUrl?: string;
  fileChecksum?: string;
  /** Absolute links found in the fragment's text (evidence candidates). */
  links: string[];
}

export interface FragmentedEntry {
  /** Canonical Markdown of the whole entry (the `article` item). */
  text: string;
  links: string[];
  fragments: Fragment[];
}

/** A manifest item as published (SPEC §3), snake_case. */
export interface ManifestItem {
  id: string;
  url: string;
  type: ItemType;
  parent?: string;
  lang: string;
  alt_of?: string;
  title?: string;
  topics?: string[];
  entity_ids?: string[];
  related?: string[];
  license: string;
  usage: Usage;
  checksum: string;
  version: string;
  modified: string;
  stability_score?: number;
  revisit_after?: string;
  evidence?: EvidenceLink[];
  schema?: string[];
  embedding_hint?: EmbeddingHint;
  citation?: Citation;
  changelog?: ChangelogEntry[];
  signals?: {
    canonical?: string;
    author_id?: string;
    author?: string;
    first_published?: string;
  };
  content_url: string;
  columns?: Column[];
  units?: string[];
  source_method?: string;
  update_cycle?: string;
  alt?: string;
  caption?: string;
  dpi?: number;
  bounding_boxes?: BoundingBox[];
  media_url?: string;
  file_url?: string;
  file_checksum?: string;
}

/**
 * An item as computed from content and policy, before it is versioned
 * against what the manifest already published.
 */
export interface ItemDraft {
  id: string;
  type: ItemType;
  lang: string;
  parent?: string;
  sourceUid: string;
  documentId: string;
  /** Canonical text; its checksum is `item.checksum`. */
  content: string;
  checksum: string;
  /** Hash of every published field that is not content or version bookkeeping. */
  metaHash: string;
  /** Entry time used as `modified` for an item seen the first time. */
  sourceModified: string;
  /** Editor pin of the stability score, if any. */
  stabilityPin?: number;
  /** Citation overrides by the editor, if any. */
  citationOverride?: Partial<Citation>;
  citationInput: CitationInput;
  item: Omit<ManifestItem, 'version' | 'modified' | 'stability_score' | 'revisit_after' | 'citation' | 'changelog'>;
}

export interface CitationInput {
  title: string;
  pageTitle: string;
  authors: string[];
  siteName: string;
  url: string;
  date: string;
  lang: string;
}

/** What the manifest stored for an item the last time it changed. */
export interface StoredItemState {
  checksum: string;
  metaHash: string;
  contentVersion: number;
  metaVersion: number;
  modified: string;
  /** When the item was first published (kept across versions). */
  firstPublished: string;
  /** ISO times of the item's content changes, oldest first (bounded). */
  history: string[];
}

export type FragmentTypeSet = ReadonlySet<FragmentType>;
