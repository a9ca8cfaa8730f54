/**
 * Public contract of the sitemap-ai content API (SPEC §6): request parameters
 * and response envelopes, shared by the server and the admin.
 */
import type { ManifestItem } from '../../server/src/core/types';

export type { ManifestItem };

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
  changelog?: { date: string; version: string; desc: string }[];
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
