import type { FragmentType, ItemType } from '../../../shared/constants';
import type {
  EntryMetadata,
  EvidenceLink,
  MetadataOverride,
} from '../../../shared/contracts/admin';
import type {
  BoundingBox,
  ChangelogEntry,
  Citation,
  Column,
  EmbeddingHint,
  ManifestItem,
  Usage,
} from '../../../shared/contracts/manifest';

/** Editors' values: defined once in the admin contract, which the admin panel edits. */
export type { EntryMetadata, EvidenceLink, MetadataOverride };
/** The published item and its parts: defined once in the public contract. */
export type { BoundingBox, ChangelogEntry, Citation, Column, EmbeddingHint, ManifestItem, Usage };

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
  /** Canonical Markdown (docs/protocol.md §1.2 `checksum` is over this text). */
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
  item: Omit<
    ManifestItem,
    'version' | 'modified' | 'stability_score' | 'revisit_after' | 'citation' | 'changelog'
  >;
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
