import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { PAGE_LIMIT_MAX } from '../../../shared/constants';
import { NoSnapshotError, messageOf } from '../core/errors';
import {
  READINESS_CHECK_IDS,
  READINESS_FAILURES_MAX,
  PagingCheck,
  ReadinessTally,
  manifestValidators,
  type ReadinessCheckId,
  contentManagerEditPath,
  type ItemCheckResult,
  type ItemFailure,
  type DeltaListing,
  deltaListingProblems,
} from '../core/readiness';
import { MANIFEST_SCHEMA } from '../core/schema';
import type { ManifestItem } from '../core/types';
import type { SnapshotRecord } from '../repositories/snapshot-repository';
import { getService } from '../utils/get-service';
import { turnEventLoop } from '../utils/event-loop';
import type { ReadinessCheck, ReadinessFailure } from '../../../shared/contracts/admin';

/** The readiness checklist of one snapshot. */
export interface ReadinessReport {
  /** The snapshot checked (null: none published yet). */
  snapshot: string | null;
  checkedAt: string;
  checks: ReadinessCheck[];
  /** Share of fragments with at least one evidence link. */
  evidenceCoverage: number;
  items: number;
  durationMs: number;
}

/** Changes of a delta read by the check: a first build's delta is the whole site, read once already. */
const DELTA_CHECK_MAX_ENTRIES = 2000;

/** The delta a snapshot is checked against, and what paging the snapshot found of its items. */
interface BaseDelta {
  base: number;
  read: { items: number; removed: number; nextSince: string; complete: boolean };
  entries: DeltaListing[];
  /** Ids the delta lists. */
  listed: ReadonlySet<string>;
  /** Id → version in the snapshot of each listed item paging found. */
  found: Map<string, string>;
}

/** A report is reused for the same snapshot this long (the 90-day window moves slowly). */
const REPORT_TTL_MS = 10 * 60_000;

let validators: ReturnType<typeof manifestValidators> | undefined;

/** Validators of the published schema, compiled once per process. */
function schemaValidators(): ReturnType<typeof manifestValidators> {
  validators ??= manifestValidators(MANIFEST_SCHEMA);
  return validators;
}

/**
 * The seed's pre-deployment checklist (README › Observability) over the current snapshot.
 * One pass: the first pages of the delta since the previous snapshot are read,
 * then the snapshot page by page through the manifest service (which also
 * checks that paging answers correctly); each item goes through every item
 * check, the delta's items are looked for, and it is dropped. Then the delta's
 * answers are checked, and the failing items (at most 50 per check) are linked
 * to the entries they come from. What is kept grows with the site by each
 * page's URL and a fingerprint of each item's id and each fragment's
 * permalink (ReadinessTally, PagingCheck), not by the items read.
 */
export const createReadinessService = ({ strapi }: { strapi: Core.Strapi }) => {
  const items = repositories(strapi).items;
  let cached: { seq: number; policy: string; at: number; report: ReadinessReport } | null = null;
  /**
   * The checklist being computed, shared by whoever asks for the same snapshot and policy while it
   * runs: a crawl of the whole snapshot (11.5 s and +52 MB at 10k articles), which two admins
   * opening the dashboard, or one reloading it, must not run twice at once.
   */
  let running: { key: string; report: Promise<ReadinessReport> } | null = null;

  /** Page through snapshot S with the manifest service: its paging problems are in `paging`. */
  async function crawl(
    snapshot: SnapshotRecord,
    tally: ReadinessTally,
    paging: PagingCheck,
    pageLimit: number,
    onPage: (items: ManifestItem[]) => Promise<void>,
  ): Promise<void> {
    const manifest = getService(strapi, 'manifest');
    let resolved = { snapshot, after: '' };
    let count = 0;
    for (;;) {
      const page = await manifest.page({ limit: pageLimit }, resolved);
      const goesOn = paging.add(page);
      for (const item of page.items) {
        count += 1;
        tally.add(item);
      }
      await onPage(page.items);
      if (!page.next_page_token || !goesOn) break;
      // Minutes at 100k articles: requests (the dashboard's own, which waits 4 s) are answered
      // between pages, and the heap is kept within the build's budget.
      await turnEventLoop();
      resolved = await manifest.resolve({ limit: pageLimit, page_token: page.next_page_token });
      if (resolved.snapshot.seq !== snapshot.seq) {
        paging.problems.push(
          `the token of page ${paging.pageCount()} leads to snapshot ${resolved.snapshot.seq}, not ${snapshot.seq}`,
        );
        break;
      }
    }
    if (count !== snapshot.itemCount)
      paging.problems.push(`paging gave ${count} items, the snapshot holds ${snapshot.itemCount}`);
  }

  /**
   * Read a delta page by page, at most `maxEntries` items and tombstones;
   * `complete` says whether its last page was reached.
   */
  async function readDelta(
    since: number,
    pageLimit: number,
    maxEntries: number,
    visit: (entry: DeltaListing) => void = () => undefined,
  ): Promise<{ items: number; removed: number; nextSince: string; complete: boolean }> {
    const manifest = getService(strapi, 'manifest');
    const result = { items: 0, removed: 0, nextSince: '', complete: false };
    let token: string | undefined;
    for (;;) {
      const { page } = await manifest.delta(
        { limit: pageLimit, since: { snapshot: since }, ...(token ? { page_token: token } : {}) },
        String(since),
      );
      result.items += page.items.length;
      result.removed += page.removed.length;
      result.nextSince = page.next_since;
      for (const item of page.items) visit({ id: item.id, removed: false, version: item.version });
      for (const tombstone of page.removed) visit({ id: tombstone.id, removed: true });
      token = page.next_page_token ?? undefined;
      if (!token) {
        result.complete = true;
        return result;
      }
      if (result.items + result.removed >= maxEntries) return result;
      await turnEventLoop();
    }
  }

  /**
   * The delta since the snapshot before S (since 0 for the first), read before S is paged
   * through, so that only the items it lists are looked for there. A delta larger than
   * DELTA_CHECK_MAX_ENTRIES (a first build: the whole site) is read on its first pages only.
   * Null when S has no previous snapshot left to compare with.
   */
  async function readBaseDelta(
    snapshot: SnapshotRecord,
    pageLimit: number,
  ): Promise<BaseDelta | null> {
    const recent = await getService(strapi, 'manifest').recentSnapshots(2);
    const previous = recent[1]?.seq === snapshot.seq - 1 ? recent[1] : undefined;
    const base = previous ? previous.seq : snapshot.seq === 1 ? 0 : null;
    if (base === null) return null;
    const entries: DeltaListing[] = [];
    const read = await readDelta(base, pageLimit, DELTA_CHECK_MAX_ENTRIES, (entry) =>
      entries.push(entry),
    );
    return { base, read, entries, found: new Map(), listed: new Set(entries.map((e) => e.id)) };
  }

  /**
   * The delta since the previous snapshot lists exactly its changes (every
   * item it lists is in the snapshot at that version, every tombstone is
   * gone), and the delta since the current snapshot is empty. `delta` has
   * been read before the snapshot was paged through and holds what paging
   * found of the items it lists.
   */
  async function deltaProblems(
    snapshot: SnapshotRecord,
    pageLimit: number,
    delta: BaseDelta | null,
  ): Promise<{ problems: string[]; note: string }> {
    const problems: string[] = [];
    let note = '';
    if (delta) {
      const { base, read } = delta;
      const wrong = deltaListingProblems(delta.entries, delta.found, snapshot.seq);
      problems.push(...wrong.slice(0, 10).map((w) => `delta since ${base}: ${w}`));
      const expected =
        base === 0
          ? { items: snapshot.itemCount, removed: 0 }
          : {
              items: snapshot.changes.added + snapshot.changes.changed,
              removed: snapshot.changes.removed,
            };
      if (read.complete && (read.items !== expected.items || read.removed !== expected.removed)) {
        problems.push(
          `the delta since ${base} lists ${read.items} items and ${read.removed} tombstones; snapshot ${snapshot.seq} changed ${expected.items} and removed ${expected.removed}`,
        );
      }
      if (!read.complete)
        note = ` (its first ${read.items + read.removed} of ${expected.items + expected.removed} changes read)`;
      if (read.nextSince !== String(snapshot.seq))
        problems.push(
          `the delta since ${base} answers next_since ${read.nextSince}, not ${snapshot.seq}`,
        );
    }
    const empty = await readDelta(snapshot.seq, pageLimit, 1);
    if (empty.items !== 0 || empty.removed !== 0)
      problems.push(
        `the delta since the current snapshot ${snapshot.seq} is not empty (${empty.items} items, ${empty.removed} tombstones)`,
      );
    if (empty.nextSince !== String(snapshot.seq))
      problems.push(`the delta since ${snapshot.seq} answers next_since ${empty.nextSince}`);
    return { problems, note };
  }

  /** Link failing items to their entries' edit views. */
  async function linkFailures(
    seq: number,
    results: readonly { failures: readonly ItemFailure[] }[],
  ): Promise<Map<string, Omit<ReadinessFailure, 'detail' | 'title'>>> {
    const ids = results.flatMap((r) => r.failures.map((f) => f.itemId)).filter((id) => id !== '');
    const described = await items.describe(seq, ids);
    const schemas = getService(strapi, 'config').schemas;
    const links = new Map<string, Omit<ReadinessFailure, 'detail' | 'title'>>();
    for (const [itemId, item] of described) {
      const locale = schemas.isLocalized(item.sourceUid) ? item.lang : null;
      links.set(itemId, {
        itemId,
        uid: item.sourceUid,
        documentId: item.sourceDocument,
        locale,
        editPath: contentManagerEditPath({
          uid: item.sourceUid,
          documentId: item.sourceDocument,
          locale,
          singleType: schemas.isSingleType(item.sourceUid),
        }),
      });
    }
    return links;
  }

  function toFailure(
    failure: ItemFailure,
    link: Omit<ReadinessFailure, 'detail' | 'title'> | undefined,
  ): ReadinessFailure {
    return {
      itemId: failure.itemId,
      title: failure.title,
      uid: link?.uid ?? '',
      documentId: link?.documentId ?? '',
      locale: link?.locale ?? null,
      editPath: link?.editPath ?? '',
      detail: failure.detail,
    };
  }

  async function compute(
    snapshot: SnapshotRecord,
    now: Date,
    pageLimit: number,
  ): Promise<ReadinessReport> {
    const started = Date.now();
    const { item: validateItem, page: validatePage } = schemaValidators();
    const tally = new ReadinessTally({ now, validateItem });
    const feedFailed = (error: unknown) => ({
      problems: [`the delta feed failed: ${messageOf(error)}`],
      note: '',
    });
    // Read first: paging then keeps the versions of the items the delta lists, not of every item.
    const read = await readBaseDelta(snapshot, pageLimit).then(
      (delta) => ({ delta }),
      (error: unknown) => ({ delta: null, failed: feedFailed(error) }),
    );
    const { delta } = read;
    const paging = new PagingCheck({
      limit: pageLimit,
      snapshot: String(snapshot.seq),
      validatePage,
    });
    // Items whose licence or usage is not what the settings and entries give now, with why.
    const policy = new Map<string, { title: string; detail: string }>();
    let policyCount = 0;
    await crawl(snapshot, tally, paging, pageLimit, async (page) => {
      if (delta)
        for (const item of page)
          if (delta.listed.has(item.id)) delta.found.set(item.id, item.version);
      const described = await items.describe(
        snapshot.seq,
        page.map((item) => item.id),
      );
      const candidates = page.flatMap((item) => {
        const source = described.get(item.id);
        return source
          ? [
              {
                itemId: item.id,
                ...(item.parent ? { parent: item.parent } : {}),
                sourceUid: source.sourceUid,
                sourceDocument: source.sourceDocument,
                lang: source.lang,
                data: item,
              },
            ]
          : [];
      });
      const found = await getService(strapi, 'policy').violations(candidates);
      policyCount += found.size;
      for (const item of page) {
        const detail = found.get(item.id);
        if (detail && policy.size < READINESS_FAILURES_MAX)
          policy.set(item.id, { title: item.title ?? item.id, detail });
      }
    });
    const feed =
      'failed' in read
        ? read.failed
        : await deltaProblems(snapshot, pageLimit, delta).catch(feedFailed);
    const results: (Omit<ItemCheckResult, 'id'> & { id: ReadinessCheckId })[] = [
      ...tally.finish(),
      {
        id: 'policy' as const,
        ok: policyCount === 0,
        summary:
          policyCount === 0
            ? `all ${snapshot.itemCount} items say the licence and usage the current settings and entries give`
            : `${policyCount} of ${snapshot.itemCount} items say another licence or usage than the current settings and entries give (or may not be published); the next build corrects them`,
        failures: [...policy].map(([itemId, { title, detail }]) => ({ itemId, title, detail })),
        failureCount: policyCount,
        checked: snapshot.itemCount,
      },
    ];
    const links = await linkFailures(snapshot.seq, results);
    const byId = new Map<string, ReadinessCheck>(
      results.map((r) => [
        r.id,
        {
          id: r.id,
          ok: r.ok,
          summary: r.summary,
          failures: r.failures.map((f) => toFailure(f, links.get(f.itemId))),
          failureCount: r.failureCount,
        },
      ]),
    );
    const feedProblems = [...paging.problems, ...feed.problems];
    byId.set('delta-and-paging', {
      id: 'delta-and-paging',
      ok: feedProblems.length === 0,
      summary:
        feedProblems.length === 0
          ? `paging read all ${snapshot.itemCount} items of snapshot ${snapshot.seq}; the delta feed answers its changes${feed.note}`
          : feedProblems.slice(0, 3).join('; ') +
            (feedProblems.length > 3 ? `; and ${feedProblems.length - 3} more` : ''),
      failures: [],
      failureCount: 0,
      problems: feedProblems.slice(0, 50),
    });
    return {
      snapshot: String(snapshot.seq),
      checkedAt: now.toISOString(),
      checks: READINESS_CHECK_IDS.map((id) => byId.get(id)!),
      evidenceCoverage: tally.evidenceCoverage(),
      items: tally.itemCount(),
      durationMs: Date.now() - started,
    };
  }

  return {
    /** The last checklist computed, of whichever snapshot (null before the first). */
    latest(): ReadinessReport | null {
      return cached?.report ?? null;
    },

    /**
     * The checklist of the current snapshot; reused for that snapshot for ten
     * minutes unless `fresh`, and shared with every caller while it is computed.
     * `pageLimit` is the page size read (tests).
     */
    async check(
      options: { fresh?: boolean; now?: Date; pageLimit?: number } = {},
    ): Promise<ReadinessReport> {
      const now = options.now ?? new Date();
      let snapshot: SnapshotRecord;
      try {
        snapshot = await getService(strapi, 'manifest').current();
      } catch (error) {
        if (!(error instanceof NoSnapshotError)) throw error;
        return {
          snapshot: null,
          checkedAt: now.toISOString(),
          checks: READINESS_CHECK_IDS.map((id) => ({
            id,
            ok: false,
            summary: 'no snapshot has been published yet',
            failures: [],
            failureCount: 0,
          })),
          evidenceCoverage: 0,
          items: 0,
          durationMs: 0,
        };
      }
      // A checklist at another time or page size (tests) is neither cached nor shared.
      if (options.now || options.pageLimit)
        return compute(snapshot, now, options.pageLimit ?? PAGE_LIMIT_MAX);
      const policy = getService(strapi, 'config').policyFingerprint();
      if (
        !options.fresh &&
        cached &&
        cached.seq === snapshot.seq &&
        cached.policy === policy &&
        Date.now() - cached.at < REPORT_TTL_MS
      ) {
        return cached.report;
      }
      const key = `${snapshot.seq}|${policy}`;
      // Asked for fresh while one runs for this snapshot and policy: that one is as fresh.
      if (running?.key === key) return running.report;
      const report = compute(snapshot, now, PAGE_LIMIT_MAX).then((done) => {
        cached = { seq: snapshot.seq, policy, at: Date.now(), report: done };
        return done;
      });
      const entry = { key, report };
      running = entry;
      const clear = () => {
        if (running === entry) running = null;
      };
      report.then(clear, clear);
      return report;
    },
  };
};

export type ReadinessService = ReturnType<typeof createReadinessService>;
