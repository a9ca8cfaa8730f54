/**
 * Public contract of the sitemap-ai content API (docs/protocol.md §4): request parameters
 * and response envelopes, shared by the server and the admin.
 */
import type { ChunkRule, ItemType, UsageKind, UsageValue } from '../constants';
import type { EvidenceLink } from './admin';

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

/** A manifest item as published (docs/protocol.md §1.2), snake_case. */
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
  /** Page items: the clean Markdown copy and the schema.org JSON-LD (docs/protocol.md §9.3). */
  markdown_url?: string;
  jsonld_url?: string;
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

export interface ManifestQuery {
  limit: number;
  page_token?: string;
  type?: ManifestItem['type'];
  lang?: string;
}

export interface SnapshotRef {
  id: string;
  created_at: string;
}

export interface ManifestPage {
  spec: 'sitemap-ai/1';
  snapshot: SnapshotRef;
  items: ManifestItem[];
  next_page_token: string | null;
}

export interface ErrorBody {
  error: { status: number; name: string; message: string; details?: Record<string, unknown> };
}

export interface Tombstone {
  id: string;
  removed_at: string;
  /** Set when the item was renamed: its old id is an alias of this one. */
  replaced_by?: string;
}

export interface DeltaPage {
  spec: 'sitemap-ai/1';
  since: string;
  snapshot: SnapshotRef;
  items: ManifestItem[];
  removed: Tombstone[];
  next_page_token: string | null;
  next_since: string;
}

export interface ChangelogPage {
  spec: 'sitemap-ai/1';
  id: string;
  entries: {
    date: string;
    version: string;
    kind: 'added' | 'content' | 'metadata' | 'removed';
    desc: string;
    checksum_before: string | null;
    checksum_after: string | null;
  }[];
  next_page_token: string | null;
}
