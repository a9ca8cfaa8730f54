import { DAY_MS, HOUR_MS } from '../../../shared/constants';
import { repositories } from '../repositories';
import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { type NewItemVersion, versionOfState } from '../repositories/item-repository';
import { type SnapshotRecord } from '../repositories/snapshot-repository';
import { type StoredTrackedState } from '../repositories/state-repository';
import { BLOB_GRACE_MS } from '../repositories/blob-repository';
import { extend } from '../core/objects';
import { getService } from '../utils/get-service';
import { turnEventLoop } from '../utils/event-loop';
import type { FirstPublish, TrackFailure } from './tracker';
import type { PolicyCandidate } from './policy';
import { messageOf } from '../core/errors';

export interface RebuildOptions {
  trigger?: string;
  /** Compare every published entry, not only the ones marked changed. */
  full?: boolean;
  /**
   * The scheduled time of a cron tick (ISO, whole seconds). Every instance
   * ticks; the first to take the lock claims the tick, the others skip it —
   * even if they get the lock later in the same tick.
   */
  tick?: string;
}

export interface RebuildResult {
  snapshot: SnapshotRecord | null;
  /** True when nothing changed (the previous snapshot stays current) or another instance is building. */
  skipped: boolean;
  /** Another Strapi instance holds the build lock. */
  locked: boolean;
  /** Entries that could not be fragmented: their previous items are kept. */
  failures: TrackFailure[];
}

const LOCK_NAME = 'rebuild';
/**
 * The build lease: renewed every LEASE_RENEW_MS while a build runs, so a builder that crashed
 * blocks the next build for at most LEASE_MS.
 */
export const LEASE_MS = 20_000;
const LEASE_RENEW_MS = 5_000;
/**
 * Pending states published per batch, each batch's versions inserted in one transaction: a batch
 * holds only its states' data references and what the policy check reads, so it can be larger
 * than the tracker's (fewer commits: 8 instead of 29 for a 1k site's first build).
 */
const PENDING_BATCH = 2000;
const FINGERPRINT_KEY = 'settings-fingerprint';
const FILE_FINGERPRINT_KEY = 'file-config-fingerprint';
const LAST_TICK_KEY = 'last-scheduled-tick';
/**
 * The policy a first build publishing as it tracks runs under, kept until its snapshot is
 * published: a first build interrupted under the policy that is still the site's is resumed, not
 * started again (see `rebuild`).
 */
const FIRST_BUILD_KEY = 'first-build-policy';
/** Page items read a page at a time when a resumed first build announces its pages. */
const PAGES_BATCH = 500;

/** The build's lease was taken by another instance (it had expired): nothing was published. */
export class LeaseLostError extends Error {
  constructor() {
    super('the build lease expired and another instance took it; this build published nothing');
    this.name = 'LeaseLostError';
  }
}

/**
 * Builds the next snapshot incrementally (docs/protocol.md §5): reconciles entries marked
 * dirty, then publishes the tracked states that changed since the last
 * snapshot — unchanged items are not touched. One builder at a time across
 * instances (a lock in the database); a crashed builder's lock expires.
 */
/** Counts per item type after adding `delta` to `counts`; types that reach zero are left out. */
function applyCountDelta(
  counts: Readonly<Record<string, number>>,
  delta: ReadonlyMap<string, number>,
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const type of new Set([...Object.keys(counts), ...delta.keys()])) {
    const n = (counts[type] ?? 0) + (delta.get(type) ?? 0);
    if (n > 0) result[type] = n;
  }
  return result;
}

export const createSnapshotBuilder = ({ strapi }: { strapi: Core.Strapi }) => {
  const items = repositories(strapi).items;
  const snapshots = repositories(strapi).snapshots;
  const states = repositories(strapi).states;
  const dirty = repositories(strapi).dirty;
  const locks = repositories(strapi).locks;
  const blobs = repositories(strapi).blobs;
  const owner = randomUUID();
  let running: Promise<RebuildResult> | null = null;

  const store = repositories(strapi).store;
  let lastChangelogCollect = 0;

  /**
   * Storage hygiene, at most every `changelogRetention.collectEveryMinutes` per instance: the
   * changelog beyond its retention goes.
   */
  async function collectChangelog(latest: number, force = false): Promise<number> {
    const { changelogRetention } = getService(strapi, 'config').config();
    const now = Date.now();
    if (!force && now - lastChangelogCollect < changelogRetention.collectEveryMinutes * 60_000)
      return 0;
    lastChangelogCollect = now;
    const before = new Date(now - changelogRetention.days * DAY_MS).toISOString();
    const deleted =
      (await states.collectChangelog(before, changelogRetention.keepPerItem, latest)) +
      (await states.collectRemovedStates(before));
    const texts = await collectTexts();
    if (texts > 0)
      strapi.log.info(`[sitemap-ai] ${texts} stored texts no state or version references deleted`);
    if (deleted > 0)
      strapi.log.info(
        `[sitemap-ai] changelog: ${deleted} entries and removed items' states past retention deleted`,
      );
    return deleted;
  }

  /**
   * Storage hygiene: the stored texts (item data, canonical text) that no state or retained
   * version references any more and nobody touched within `graceMs`.
   */
  function collectTexts(graceMs = BLOB_GRACE_MS): Promise<number> {
    return blobs.collect(Date.now() - graceMs, [states.references(), items.references()]);
  }

  /** What is marked in the database (publishes queued on any instance, earlier failures). */
  async function reconcileDirty(failures: RebuildResult['failures']): Promise<void> {
    const marks = await dirty.list(1000);
    if (marks.length > 0)
      failures.push(
        ...(await getService(strapi, 'tracker').recordMarked(marks, 'recorded at rebuild')),
      );
  }

  function toVersion(state: StoredTrackedState, seq: number): NewItemVersion {
    return versionOfState(
      state,
      seq,
      state.dataRef && state.contentRef
        ? { dataRef: state.dataRef, contentRef: state.contentRef }
        : state.dataInRow && state.contentRef
          ? { dataBody: state.dataInRow, contentRef: state.contentRef }
          : state.dataInRow && state.contentInRow
            ? { dataBody: state.dataInRow, contentBody: state.contentInRow }
            : { data: state.data, content: state.content },
    );
  }

  async function build(
    options: RebuildOptions,
    fence: () => Promise<void>,
  ): Promise<RebuildResult> {
    const started = Date.now();
    // Settings saved on another instance apply here from this build on.
    await getService(strapi, 'settings').refresh();
    const failures: RebuildResult['failures'] = [];
    const previous = await snapshots.latest();
    const print = getService(strapi, 'config').policyFingerprint();
    const filePrint = getService(strapi, 'config').fileFingerprint();
    const stored = await store.get<string>(FINGERPRINT_KEY);
    const storedFile = await store.get<string>(FILE_FINGERPRINT_KEY);
    if (previous && stored !== null && stored !== print) {
      // Another live instance reads config/plugins differently and built the published snapshot
      // with its policy: re-comparing here would re-version the site, and there at its next build.
      const instances = getService(strapi, 'instances');
      await instances.heartbeat();
      const other = (await instances.disagreeing()).find((p) => p.policy === stored);
      if (other) {
        const message =
          `instances disagree on config/plugins: instance ${other.id} published with another ` +
          'effective config than this one; this instance builds nothing until they agree ' +
          '(compare their config/plugins and environment, e.g. apiUrl or siteUrl)';
        strapi.log.error(`[sitemap-ai] ${message}`);
        return {
          snapshot: previous,
          skipped: true,
          locked: false,
          failures: [{ uid: '', documentId: '', message }],
        };
      }
    }
    const seq = (previous?.seq ?? 0) + 1;
    // A first build interrupted under the policy that is still the site's left versions of
    // snapshot 1 that are right as they are: each made from a state computed under this policy, in
    // the transaction that wrote it, after the policy check; anything changed since waits, pending,
    // and replaces its version below. They are kept and the build goes on where it stopped, so a
    // large site's first build gets done across restarts instead of starting over at each.
    const resumed =
      !previous &&
      (await store.get<string>(FIRST_BUILD_KEY)) === print &&
      (await items.onlyOpenOf(seq));
    // Rows of snapshot `seq` are invisible until it is published; an interrupted build's go here.
    if (!resumed) {
      await states.keepFieldsOfVersionsFrom(seq);
      await items.discardUnpublished(seq);
    }
    const changes = { added: 0, changed: 0, removed: 0 };
    /** Items per type gained (+) or lost (−) against the previous snapshot. */
    const countDelta = new Map<string, number>();
    const count = (type: string, by: number) =>
      countDelta.set(type, (countDelta.get(type) ?? 0) + by);
    const changedPages = new Set<string>();
    // The pages changed are announced to IndexNow, and only then collected: a first build of
    // 100k articles otherwise held the URLs of all their pages for nothing.
    const announcePages = getService(strapi, 'config').config().indexNow.enabled;
    const pageChanged = (url: () => string) => {
      if (announcePages) changedPages.add(url());
    };
    /** The page of an item, from its data. */
    const pageOf = (data: StoredTrackedState['data']) =>
      String(data.signals?.canonical ?? data.url);
    let written = 0;
    if (!previous || options.full || stored !== print) {
      // The changelog says where the change came from: config/plugins or the Settings page.
      const fileChanged = storedFile !== null && storedFile !== filePrint;
      const cause =
        previous && stored && stored !== print
          ? fileChanged
            ? 'plugin config changed (config/plugins)'
            : 'site settings changed'
          : undefined;
      // A site's first build publishes as it tracks (no state yet: nothing else can have been
      // compared), and so does one that resumes it. States without a snapshot that no first build
      // under this policy wrote (publishes recorded before any build, or a first build
      // interrupted under another policy) all wait again.
      let publish: FirstPublish | undefined;
      if (!previous) {
        if (!resumed && (await states.anyState())) {
          await store.set(FIRST_BUILD_KEY, null);
          await states.pendAllUnpublished();
        } else {
          await store.set(FIRST_BUILD_KEY, print);
          publish = {
            seq,
            print,
            fence,
            // A first snapshot's counts and changes are counted from its items once published.
            published: (state) => {
              pageChanged(() => pageOf(state.data));
              written += 1;
            },
          };
        }
      }
      const result = await getService(strapi, 'tracker').reconcileAll(cause, publish);
      failures.push(...result.failures);
      await store.set(FINGERPRINT_KEY, print);
    }
    if (storedFile !== filePrint) await store.set(FILE_FINGERPRINT_KEY, filePrint);
    await reconcileDirty(failures);
    // Pending states computed under another policy (an interrupted re-compare or first build, an
    // instance that had not seen the latest Settings) are computed again under this one, in
    // batches as publishes are (after an interrupted first build, that is every document).
    failures.push(
      ...(await getService(strapi, 'tracker').trackEachType(
        await states.stalePendingDocuments(print),
        'recomputed under the current site policy',
      )),
    );

    // Before the first snapshot no version is open (none can be, unless rows were left behind):
    // its pending states are not looked up for one, a query per 200 of them.
    const anyOpen = previous !== null || (await items.anyOpen());
    // Written a batch at a time (memory stays flat on large sites).
    const settled: { itemId: string; revision: number }[] = [];
    let heldBack = 0;
    let after = '';
    for (;;) {
      const batch = await states.pending(PENDING_BATCH, after);
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.itemId;
      const open = new Map(
        anyOpen ? (await items.openFor(batch.map((s) => s.itemId))).map((v) => [v.itemId, v]) : [],
      );
      let inserts: NewItemVersion[] = [];
      let closes: number[] = [];
      let batchSettled: { itemId: string; revision: number }[] = [];
      const closeOf = new Map<string, number>();
      /** Versions this build wrote as it tracked (a first build), replaced: discarded, not closed (an empty range). */
      const ownRows = new Set<number>();
      /** What the policy check reads of each insert's data (decoded once per state). */
      const dataOf = new Map<string, PolicyCandidate['data']>();
      for (const state of batch) {
        if (state.policyPrint !== print) {
          // Never publish a licence or usage computed under another policy: it waits, pending.
          heldBack += 1;
          continue;
        }
        batchSettled.push({ itemId: state.itemId, revision: state.revision });
        const current = open.get(state.itemId);
        if (current?.seqFrom === seq) ownRows.add(current.rowId);
        if (state.removed) {
          if (current) {
            closes.push(current.rowId);
            changes.removed += 1;
            count(state.type, -1);
            pageChanged(() => pageOf(state.data));
          }
          continue;
        }
        const same =
          current &&
          current.state.checksum === state.checksum &&
          current.state.metaHash === state.metaHash &&
          current.state.contentVersion === state.contentVersion &&
          current.state.metaVersion === state.metaVersion &&
          current.stabilityPin === state.stabilityPin;
        if (same) continue;
        if (current) {
          closes.push(current.rowId);
          closeOf.set(state.itemId, current.rowId);
          changes.changed += 1;
        } else {
          changes.added += 1;
          count(state.type, 1);
        }
        inserts.push(toVersion(state, seq));
        const data = state.data;
        dataOf.set(state.itemId, { license: data.license, usage: data.usage });
        pageChanged(() => pageOf(data));
      }

      // The invariant, checked against the entries as published now: whatever is refused keeps
      // its previous version, stays pending and is recomputed at the next build.
      const refused = new Set(
        (
          await getService(strapi, 'policy').violations(
            inserts.map((v) => extend(v, { data: dataOf.get(v.itemId)! })),
          )
        ).keys(),
      );
      if (refused.size > 0) {
        const refusedVersions = inserts.filter((v) => refused.has(v.itemId));
        for (const version of refusedVersions) {
          const replaced = closeOf.get(version.itemId);
          if (replaced !== undefined) {
            changes.changed -= 1;
          } else {
            changes.added -= 1;
            count(version.type, -1);
          }
        }
        const keptCloses = new Set([...refused].map((id) => closeOf.get(id)));
        inserts = inserts.filter((v) => !refused.has(v.itemId));
        closes = closes.filter((rowId) => !keptCloses.has(rowId));
        batchSettled = batchSettled.filter((s) => !refused.has(s.itemId));
        heldBack += refused.size;
        await states.invalidate([...refused]);
        const marked = new Set<string>();
        for (const version of refusedVersions) {
          const key = `${version.sourceUid}|${version.sourceDocument}`;
          if (marked.has(key)) continue;
          marked.add(key);
          await dirty.mark(
            version.sourceUid,
            version.sourceDocument,
            'policy-check',
            'licence or usage differed from the current policy',
          );
        }
        strapi.log.error(
          `[sitemap-ai] policy check refused ${refused.size} items whose licence or usage differ from the current settings and entries: ${[...refused].slice(0, 5).join(', ')}${refused.size > 5 ? ' …' : ''}`,
        );
      }
      if (inserts.length > 0 || closes.length > 0) {
        // Fencing: only the lease holder writes the snapshot.
        await fence();
        await items.close(
          closes.filter((rowId) => !ownRows.has(rowId)),
          seq,
        );
        await items.discard(closes.filter((rowId) => ownRows.has(rowId)));
        await items.insert(inserts);
        written += inserts.length + closes.length;
      }
      // States published as new versions are settled from those versions after the publish (a
      // first build's would be every item of the site, held here until then); the rest by list.
      const versioned = new Set(inserts.map((v) => v.itemId));
      for (const state of batchSettled) if (!versioned.has(state.itemId)) settled.push(state);
      // Not "a short page is the last": a pending row whose state is gone (deleted behind the
      // plugin's back) shortens its page, and the states after it must still be published.
      await turnEventLoop();
    }
    if (heldBack > 0) {
      strapi.log.error(
        `[sitemap-ai] ${heldBack} changed items were held back: computed under another site policy and not recomputed (see the failures)`,
      );
    }
    if (previous && written === 0) {
      await states.settle(settled);
      return { snapshot: previous, skipped: true, locked: false, failures };
    }
    await fence();
    // The previous snapshot's counts and this build's additions and removals; counted afresh for
    // a first snapshot (the readiness checklist compares them with what paging reads), and so
    // are its changes: everything it serves is added, whichever run of its build wrote it.
    const counts = previous
      ? applyCountDelta(previous.counts, countDelta)
      : await items.countByType(seq);
    const itemCount = Object.values(counts).reduce((a, b) => a + b, 0);
    if (!previous) Object.assign(changes, { added: itemCount, changed: 0, removed: 0 });
    if (resumed && announcePages) {
      // The pages of the versions the interrupted run wrote are announced too.
      let after = '';
      for (;;) {
        const pages = await items.pagesOpenedIn(seq, after, PAGES_BATCH);
        for (const page of pages.slice(0, PAGES_BATCH)) changedPages.add(page.url);
        if (pages.length <= PAGES_BATCH) break;
        after = pages[PAGES_BATCH - 1]!.itemId;
      }
    }
    const record: SnapshotRecord = {
      seq,
      builtAt: new Date(started).toISOString(),
      itemCount,
      counts,
      changes,
      trigger: options.trigger ?? 'manual',
      durationMs: Date.now() - started,
    };
    await fence();
    await snapshots.publish(record);
    if (!previous) await store.set(FIRST_BUILD_KEY, null);
    await states.settle(settled);
    await states.settleVersioned(seq);
    const { snapshotRetention, snapshotRetentionHours } = getService(strapi, 'config').config();
    const oldest = await snapshots.collect(snapshotRetention, snapshotRetentionHours * HOUR_MS);
    if (oldest !== null) await items.collect(oldest);
    // Hygiene never fails a published build: logged, and tried again at the next interval.
    await collectChangelog(seq).catch((error: unknown) =>
      strapi.log.error(`[sitemap-ai] changelog collection failed: ${messageOf(error)}`),
    );
    strapi.log.info(
      `[sitemap-ai] snapshot ${seq} published: ${record.itemCount} items (+${changes.added} ~${changes.changed} -${changes.removed}) in ${record.durationMs} ms`,
    );
    await getService(strapi, 'events').snapshotPublished(record, previous, [...changedPages]);
    return { snapshot: record, skipped: false, locked: false, failures };
  }

  return {
    /** Delete the changelog past its retention now (README "Storage"); returns how many entries went. */
    async collectChangelog(): Promise<number> {
      const latest = await snapshots.latest();
      return latest ? collectChangelog(latest.seq, true) : 0;
    },

    /**
     * Delete the stored texts nothing references and nobody touched within `graceMs` now (also
     * part of the changelog hygiene); returns how many went.
     */
    collectTexts(graceMs = BLOB_GRACE_MS): Promise<number> {
      return collectTexts(graceMs);
    },

    /**
     * Build the next snapshot. Concurrent calls in this process share one
     * build; while another instance builds, this one skips.
     */
    rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
      if (!running) {
        running = (async () => {
          // What this process's publishes queued is tracked before the snapshot is taken.
          await getService(strapi, 'tracker').flush();
          const token = `${owner}:${randomUUID()}`;
          if (!(await locks.acquire(LOCK_NAME, token, LEASE_MS))) {
            return {
              snapshot: await snapshots.latest(),
              skipped: true,
              locked: true,
              failures: [],
            };
          }
          let lost = false;
          const renewal = setInterval(() => {
            locks
              .renew(LOCK_NAME, token, LEASE_MS)
              .then((held) => {
                if (!held) lost = true;
              })
              .catch(() => undefined);
          }, LEASE_RENEW_MS);
          renewal.unref();
          // Checked before each write of the build. A read, not a renewal: a renewal is a commit,
          // and on SQLite every commit is a journal write and an fsync (a 1k first build fenced
          // 30 times: 177 ms); the timer above keeps the lease alive.
          const fence = async () => {
            if (lost || !(await locks.holds(LOCK_NAME, token))) throw new LeaseLostError();
          };
          try {
            if (options.tick) {
              const claimed = await store.get<string>(LAST_TICK_KEY);
              if (claimed && claimed >= options.tick) {
                return {
                  snapshot: await snapshots.latest(),
                  skipped: true,
                  locked: false,
                  failures: [],
                };
              }
              await store.set(LAST_TICK_KEY, options.tick);
            }
            return await build(options, fence);
          } catch (error) {
            if (!(error instanceof LeaseLostError)) throw error;
            strapi.log.warn(`[sitemap-ai] ${error.message}`);
            return {
              snapshot: await snapshots.latest(),
              skipped: true,
              locked: true,
              failures: [],
            };
          } finally {
            clearInterval(renewal);
            await locks.release(LOCK_NAME, token);
          }
        })().finally(() => {
          running = null;
        });
      }
      return running;
    },
  };
};

export type SnapshotBuilder = ReturnType<typeof createSnapshotBuilder>;
