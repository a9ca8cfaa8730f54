import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { SPEC_VERSION } from '../../../shared/constants';
import {
  DeltaTooOldError,
  InvalidParameterError,
  ItemNotFoundError,
  NoSnapshotError,
  SnapshotGoneError,
} from '../core/errors';
import { servedItem, withPageLinks } from '../core/items';
import {
  changelogPosition,
  encodePageToken,
  PAGE_FEEDS,
  pageFilters,
  readPageToken,
  snapshotBuilt,
  tokenSnapshotMatches,
} from '../core/page-token';
import type { ManifestItem } from '../core/types';
import { type ServedRow } from '../repositories/item-repository';
import { type SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';
import type { DeltaParams } from '../core/params';
import type {
  ChangelogPage,
  DeltaPage,
  ManifestPage,
  ManifestQuery,
  Tombstone,
} from '../../../shared/contracts/manifest';

/** Where a delta request reads from: its `since` snapshot, the snapshot it reads and its position. */
export interface ResolvedDelta {
  since: number;
  snapshot: SnapshotRecord;
  after: string;
}

function snapshotRef(snapshot: SnapshotRecord): ManifestPage['snapshot'] {
  return { id: String(snapshot.seq), created_at: snapshot.builtAt };
}

/** Reads the manifest from stored snapshots (docs/protocol.md §5); never from live content. */
/**
 * How long a newest snapshot read answers revalidations: a build another instance publishes stops
 * validating older copies within this (one this instance publishes, at once).
 */
export const REVALIDATE_MS = 1_000;

export const createManifestService = ({ strapi }: { strapi: Core.Strapi }) => {
  const items = repositories(strapi).items;
  const snapshots = repositories(strapi).snapshots;
  const states = repositories(strapi).states;
  const secret = () => getService(strapi, 'config').tokenSecret();
  const manifestPath = () => `${getService(strapi, 'config').apiPath()}/manifest`;

  function serve(row: ServedRow, snapshot: SnapshotRecord): ManifestItem {
    return withPageLinks(
      servedItem(row.data, row.history, row.stabilityPin, new Date(snapshot.builtAt)),
    );
  }

  async function current(): Promise<SnapshotRecord> {
    const latest = await snapshots.latest();
    if (!latest) throw new NoSnapshotError();
    return latest;
  }

  const service = {
    current,

    /**
     * The newest snapshot this instance has seen within REVALIDATE_MS (docs/protocol.md §6): what a
     * first page's ETag is compared with, and whose first pages are sent from the bytes cached for
     * them; a page not cached is read at `current()`.
     */
    async seen(): Promise<SnapshotRecord> {
      const latest = await snapshots.latestSeen(REVALIDATE_MS);
      if (!latest) throw new NoSnapshotError();
      return latest;
    },

    recentSnapshots: (limit: number) => snapshots.list(limit),

    /** The snapshot a request reads: the one its token names, else the newest. */
    async resolve(query: ManifestQuery): Promise<{ snapshot: SnapshotRecord; after: string }> {
      if (!query.page_token) return { snapshot: await current(), after: '' };
      const position = readPageToken(query.page_token, secret(), {
        feed: PAGE_FEEDS.manifest(),
        filters: pageFilters(query),
      });
      const snapshot = await snapshots.find(position.snapshot);
      if (!snapshot || !tokenSnapshotMatches(position, snapshot))
        throw new SnapshotGoneError(position.snapshot);
      return { snapshot, after: position.after };
    },

    /** One page of the manifest (docs/protocol.md §4 envelope). */
    async page(
      query: ManifestQuery,
      resolved: { snapshot: SnapshotRecord; after: string },
    ): Promise<ManifestPage> {
      const { snapshot, after } = resolved;
      const rows = await items.page({
        snapshot: snapshot.seq,
        after,
        limit: query.limit,
        type: query.type,
        lang: query.lang,
      });
      const pageRows = rows.slice(0, query.limit);
      const more = rows.length > query.limit;
      const last = pageRows[pageRows.length - 1];
      return {
        spec: SPEC_VERSION,
        snapshot: snapshotRef(snapshot),
        items: pageRows.map((row) => serve(row, snapshot)),
        next_page_token:
          more && last
            ? encodePageToken(
                {
                  snapshot: snapshot.seq,
                  built: snapshotBuilt(snapshot),
                  after: last.itemId,
                  filters: pageFilters(query),
                  feed: PAGE_FEEDS.manifest(),
                },
                secret(),
              )
            : null,
      };
    },

    /**
     * What a delta request reads (docs/protocol.md §5): the snapshot its `since` stands for,
     * checked against the retained history, and the snapshot and position its page token names
     * (else the newest). Reads a few snapshot rows, never the whole history.
     */
    async resolveDelta(params: DeltaParams, sinceText: string): Promise<ResolvedDelta> {
      const [newest, oldest] = await Promise.all([snapshots.latest(), snapshots.oldest()]);
      if (!newest || !oldest) throw new NoSnapshotError();
      let since: number;
      if ('snapshot' in params.since) {
        since = params.since.snapshot;
        if (since > newest.seq)
          throw new InvalidParameterError(
            'since',
            `snapshot ${since} does not exist yet; the newest is ${newest.seq}`,
          );
        if (since < oldest.seq && !(since === 0 && oldest.seq === 1))
          throw new DeltaTooOldError(sinceText, oldest.seq, manifestPath());
      } else {
        const before = await snapshots.latestBuiltBy(params.since.time);
        if (before) since = before.seq;
        else if (oldest.seq === 1) since = 0;
        else throw new DeltaTooOldError(sinceText, oldest.seq, manifestPath());
      }
      if (!params.page_token) return { since, snapshot: newest, after: '' };
      const position = readPageToken(params.page_token, secret(), {
        feed: PAGE_FEEDS.delta(since),
        filters: pageFilters(params),
      });
      const found =
        position.snapshot === newest.seq ? newest : await snapshots.find(position.snapshot);
      if (!found || !tokenSnapshotMatches(position, found))
        throw new SnapshotGoneError(position.snapshot);
      return { since, snapshot: found, after: position.after };
    },

    /**
     * One page of the delta since a snapshot or a time (docs/protocol.md §5): items added
     * or changed, and tombstones of removed ones, merged in id order.
     */
    async deltaPage(
      params: DeltaParams,
      sinceText: string,
      resolved: ResolvedDelta,
    ): Promise<DeltaPage> {
      const { since, snapshot, after } = resolved;
      const q = { after, limit: params.limit, type: params.type, lang: params.lang };
      const [opened, removed] = await Promise.all([
        items.openedSince(since, snapshot.seq, q),
        items.removedSince(since, snapshot.seq, q),
      ]);
      type Entry = { id: string; row?: ServedRow; removedIn?: number };
      const merged: Entry[] = [
        ...opened.map((row) => ({ id: row.itemId, row })),
        ...removed.map((r) => ({ id: r.itemId, removedIn: r.removedIn })),
      ].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const pageEntries = merged.slice(0, params.limit);
      const more = merged.length > params.limit;
      const removedEntries = pageEntries.filter((e) => e.removedIn !== undefined);
      const builtAt = await snapshots.builtAt(removedEntries.map((e) => e.removedIn!));
      const successors = new Map<string, string>();
      for (const { id } of removedEntries) {
        const target = await states.resolveAlias(id);
        if (target && (await items.findServed(snapshot.seq, target))) successors.set(id, target);
      }
      const tombstones: Tombstone[] = removedEntries.map((e) => ({
        id: e.id,
        removed_at: builtAt.get(e.removedIn!) ?? snapshot.builtAt,
        // A tombstone says which id went and when, nothing of its text or its history: the
        // item may have gone because its entry became sensitive or its fragment was excluded.
        ...(successors.has(e.id) ? { replaced_by: successors.get(e.id)! } : {}),
      }));
      const last = pageEntries[pageEntries.length - 1];
      return {
        spec: SPEC_VERSION,
        since: sinceText,
        snapshot: snapshotRef(snapshot),
        items: pageEntries.filter((e) => e.row).map((e) => serve(e.row!, snapshot)),
        removed: tombstones,
        next_page_token:
          more && last
            ? encodePageToken(
                {
                  snapshot: snapshot.seq,
                  built: snapshotBuilt(snapshot),
                  after: last.id,
                  filters: pageFilters(params),
                  feed: PAGE_FEEDS.delta(since),
                },
                secret(),
              )
            : null,
        next_since: String(snapshot.seq),
      };
    },

    /** A delta page and what it spans, in one call (the readiness check walks the delta so). */
    async delta(
      params: DeltaParams,
      sinceText: string,
    ): Promise<{ page: DeltaPage; snapshot: SnapshotRecord; since: number }> {
      const resolved = await service.resolveDelta(params, sinceText);
      const page = await service.deltaPage(params, sinceText, resolved);
      return { page, snapshot: resolved.snapshot, since: resolved.since };
    },

    /** The whole history of one item, newest first (docs/protocol.md §3.1), paged. */
    async changelog(
      id: string,
      params: { limit: number; page_token?: string },
    ): Promise<ChangelogPage> {
      // History is served for what the manifest serves now (an item, or an old id of one): a
      // removed item's history may name what an editor has since marked sensitive or excluded.
      const snapshot = await current();
      if (!(await items.findServed(snapshot.seq, id))) {
        const target = await states.resolveAlias(id);
        if (!target || !(await items.findServed(snapshot.seq, target)))
          throw new ItemNotFoundError(id);
      }
      let before: number | null = null;
      const feed = PAGE_FEEDS.changelog(id);
      if (params.page_token)
        before = changelogPosition(
          readPageToken(params.page_token, secret(), { feed, filters: '' }).after,
        );
      // Changes this process has returned a publish for are in it (services/tracker.ts).
      await getService(strapi, 'tracker').flush();
      const rows = await states.changelogPage(id, before, params.limit + 1);
      const page = rows.slice(0, params.limit);
      const last = page[page.length - 1];
      return {
        spec: SPEC_VERSION,
        id,
        entries: page.map(({ record }) => ({
          date: record.at,
          version: record.version,
          kind: record.kind,
          desc: record.desc,
          checksum_before: record.checksumBefore,
          checksum_after: record.checksumAfter,
        })),
        next_page_token:
          rows.length > params.limit && last
            ? encodePageToken(
                { snapshot: 1, built: 0, after: String(last.rowId), filters: '', feed },
                secret(),
              )
            : null,
      };
    },

    /** One item; an old id (alias) answers with its renamed successor and says so. */
    async item(
      id: string,
    ): Promise<{ snapshot: SnapshotRecord; item: ManifestItem; aliasOf?: string }> {
      const snapshot = await current();
      const row = await items.findServed(snapshot.seq, id);
      if (row) return { snapshot, item: serve(row, snapshot) };
      const target = await states.resolveAlias(id);
      const aliased = target ? await items.findServed(snapshot.seq, target) : null;
      if (!aliased) throw new ItemNotFoundError(id);
      return { snapshot, item: serve(aliased, snapshot), aliasOf: target! };
    },

    async content(
      id: string,
    ): Promise<{ snapshot: SnapshotRecord; checksum: string; content: string; aliasOf?: string }> {
      const snapshot = await current();
      const found = await items.findContent(snapshot.seq, id);
      if (found) return { snapshot, ...found };
      const target = await states.resolveAlias(id);
      const aliased = target ? await items.findContent(snapshot.seq, target) : null;
      if (!aliased) throw new ItemNotFoundError(id);
      return { snapshot, ...aliased, aliasOf: target! };
    },
  };
  return service;
};

export type ManifestService = ReturnType<typeof createManifestService>;
/** A published snapshot as the controllers see it. */
export type { SnapshotRecord };
