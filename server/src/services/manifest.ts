import type { Core } from '@strapi/strapi';
import { SPEC_VERSION } from '../core/constants';
import { InvalidPageTokenError, ItemNotFoundError, NoSnapshotError, SnapshotGoneError } from '../core/errors';
import { servedItem } from '../core/items';
import { decodePageToken, encodePageToken } from '../core/page-token';
import type { ManifestItem } from '../core/types';
import { createItemRepository, type ServedRow } from '../repositories/item-repository';
import { createSnapshotRepository, type SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';
import type { ManifestPage, ManifestQuery } from '../../../shared/contracts/manifest';

const FEED_MANIFEST = 'manifest';

function filterKey(query: Pick<ManifestQuery, 'type' | 'lang'>): string {
  return `type=${query.type ?? ''}&lang=${query.lang ?? ''}`;
}

function snapshotRef(snapshot: SnapshotRecord): ManifestPage['snapshot'] {
  return { id: String(snapshot.seq), created_at: snapshot.builtAt };
}

/** Reads the manifest from stored snapshots (SPEC §6); never from live content. */
export const createManifestService = ({ strapi }: { strapi: Core.Strapi }) => {
  const items = createItemRepository({ strapi });
  const snapshots = createSnapshotRepository({ strapi });
  const secret = () => getService(strapi, 'settings').tokenSecret();

  function serve(row: ServedRow, snapshot: SnapshotRecord): ManifestItem {
    return servedItem(row.data, row.history, row.stabilityPin, new Date(snapshot.builtAt));
  }

  async function current(): Promise<SnapshotRecord> {
    const latest = await snapshots.latest();
    if (!latest) throw new NoSnapshotError();
    return latest;
  }

  return {
    current,

    /** The snapshot a request reads: the one its token names, else the newest. */
    async resolve(query: ManifestQuery): Promise<{ snapshot: SnapshotRecord; after: string }> {
      if (!query.page_token) return { snapshot: await current(), after: '' };
      const position = decodePageToken(query.page_token, secret());
      if (position.feed !== FEED_MANIFEST) throw new InvalidPageTokenError('the token belongs to another feed');
      if (position.filters !== filterKey(query)) {
        throw new InvalidPageTokenError('the token was issued for other filters (type/lang); repeat the filters of the first page');
      }
      const snapshot = await snapshots.find(position.snapshot);
      if (!snapshot) throw new SnapshotGoneError(position.snapshot);
      return { snapshot, after: position.after };
    },

    /** One page of the manifest (SPEC §6 envelope). */
    async page(query: ManifestQuery, resolved: { snapshot: SnapshotRecord; after: string }): Promise<ManifestPage> {
      const { snapshot, after } = resolved;
      const rows = await items.page({ snapshot: snapshot.seq, after, limit: query.limit, type: query.type, lang: query.lang });
      const pageRows = rows.slice(0, query.limit);
      const more = rows.length > query.limit;
      const last = pageRows[pageRows.length - 1];
      return {
        spec: SPEC_VERSION,
        snapshot: snapshotRef(snapshot),
        items: pageRows.map((row) => serve(row, snapshot)),
        next_page_token:
          more && last
            ? encodePageToken({ snapshot: snapshot.seq, after: last.itemId, filters: filterKey(query), feed: FEED_MANIFEST }, secret())
            : null,
      };
    },

    async item(id: string): Promise<{ snapshot: SnapshotRecord; item: ManifestItem }> {
      const snapshot = await current();
      const row = await items.findServed(snapshot.seq, id);
      if (!row) throw new ItemNotFoundError(id);
      return { snapshot, item: serve(row, snapshot) };
    },

    async content(id: string): Promise<{ snapshot: SnapshotRecord; checksum: string; content: string }> {
      const snapshot = await current();
      const found = await items.findContent(snapshot.seq, id);
      if (!found) throw new ItemNotFoundError(id);
      return { snapshot, ...found };
    },
  };
};

export type ManifestService = ReturnType<typeof createManifestService>;
