import { AsyncLocalStorage } from 'node:async_hooks';
import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { DAY_MS } from '../../../shared/constants';
import { extend } from '../core/objects';
import { documentDrafts, type DocumentDrafts, type SiteContext } from '../core/items';
import type { MetadataProblem } from '../core/metadata';
import {
  diffDocument,
  ITEM_CHANGELOG_DAYS,
  ITEM_CHANGELOG_MAX,
  keptAddedEntries,
  reasonsOf,
  unchangedStates,
  type UntrackedDiffInput,
  type AliasRecord,
  type ChangelogRecord,
  type StateWrite,
  type TrackedState,
} from '../core/tracking';
import type { ChangelogEntry, EntrySource, ItemDraft } from '../core/types';
import type { DirtyMark } from '../repositories/dirty-repository';
import {
  StateConflictError,
  type ComparedSource,
  type StateKeyRow,
  type StoredTrackedState,
} from '../repositories/state-repository';
import { sha256Hex, stableStringify } from '../core/canonical';
import { PackedStringSet } from '../core/packed-strings';
import { version as PLUGIN_VERSION } from '../../../package.json';
import { getService } from '../utils/get-service';
import { turnEventLoop } from '../utils/event-loop';
import {
  draftingOnThread,
  isThin,
  type EncodedData,
  type ThreadDocument,
} from '../utils/drafting-thread';
import type { EncodedContent } from '../repositories/blob-repository';
import { stateKey, type DocumentKeys } from '../workers/drafting';
import type { EnabledType } from './config';
import { LeaseLostError } from './snapshot-builder';
import { versionOfState } from '../repositories/item-repository';
import { messageOf } from '../core/errors';

const MAX_ATTEMPTS = 6;

/** Document actions that can change what is published. */
const PUBLISHED_ACTIONS = new Set(['publish', 'unpublish', 'delete', 'discardDraft']);
/** Without draft & publish, saving is publishing. */
const LIVE_ACTIONS = new Set(['create', 'update', 'delete', 'clone']);

/** A document-service action that has just run (the change-tracking middleware). */
export interface DocumentAction {
  uid: string;
  action: string;
  documentId: string | undefined;
  draftAndPublish: boolean;
}

/**
 * Documents compared per batch, each batch written in one transaction. Larger batches wait on
 * fewer commits: on SQLite's default rollback journal a commit syncs the journal and the database
 * file (at 10k articles the 400 commits of 25-document batches took 6.2 s of a 40 s first build;
 * 1.5 s with syncs turned off, to measure). What a batch holds is promoted to V8's old generation
 * at any of these sizes (at 1k, 0.65 MB a batch of 25, 2.3 MB of 50, 7 MB of 100), and the peak
 * RSS of a 10k first build is where V8 lets that generation grow before it collects, not the
 * batch: with a full collection forced every 20 batches (diagnosis) it stayed at +116 MB. First
 * build at 10k, SQLite, measured 2026-12-03 (time, peak RSS growth): 50 documents 29.7–31.9 s,
 * +305–323 MB; 100: 28.9–29.1 s, +227–304 MB; 200: 27.3–28.9 s, +241–335 MB. A batch holds the
 * database's write lock while its statements run, not while it is drafted: twice the rows per
 * transaction is twice as long a wait for a publish that arrives meanwhile.
 */
const BATCH = 100;
/** The query builder Strapi's database runs on, as a transaction hands it out. */
type Connection = Core.Strapi['db']['connection'];

/**
 * A publish's tracking waits this long for more publishes to join its batch (an editor's burst, an
 * import) — the publish itself returns at once…
 */
const SETTLE_MS = 100;
/** …but never longer than this after the first publish of the batch. */
const MAX_WAIT_MS = 1_000;

/** A document whose tracking a publish queued, with the ids of its marks. */
interface Queued {
  uid: string;
  documentId: string;
  action: string;
  marks: number[];
}

/** The locales a document publishes in (the site's default first) and the site context. */
export interface DocumentScope {
  langs: string[];
  localized: boolean;
  site: SiteContext;
}

/** What publishing a saved draft would publish and record (the tracker's dry run). */
export interface DocumentPreview {
  /** The entries read: the draft in its locale, the published versions of the others. */
  entries: EntrySource[];
  draft: EntrySource;
  /** What is wrong with the draft's editor values (docs/protocol.md §2). */
  problems: MetadataProblem[];
  /** Items the document would publish, every locale, translations linked. */
  drafts: ItemDraft[];
  /** The draft cannot fill its type's path pattern: it would publish nothing. */
  unfilled: boolean;
  /** The tracked states of the document's items, every locale. */
  states: TrackedState[];
  /** The changelog tracking the publish would record (nothing is written). */
  changelog: ChangelogRecord[];
}

/**
 * A first build publishing as it tracks (docs/protocol.md §5): each new state computed under the
 * build's policy, and passing the policy check, is made a version of snapshot `seq` in the
 * transaction that writes it, instead of waiting for the builder to read it back and publish it.
 * Whatever else the comparison writes waits, pending, as in any build.
 */
export interface FirstPublish {
  seq: number;
  /** The policy the build publishes under. */
  print: string;
  /** Throws when this instance no longer holds the build lease (nothing is written then). */
  fence(): Promise<void>;
  /** Told of each state made a version, once its transaction has committed. */
  published(state: TrackedState): void;
}

/** A document that could not be tracked (kept at its previous state). */
export interface TrackFailure {
  uid: string;
  documentId: string;
  message: string;
}

export interface TrackResult {
  changelog: ChangelogRecord[];
  /** Items whose state changed (the next snapshot publishes them). */
  changed: number;
}

/**
 * Change tracking (docs/protocol.md §3.1): compares what a document publishes now with the
 * tracked state of its items and records every change with its reason. Used
 * by the document-service middleware right after a publish, unpublish or
 * delete, and by the rebuild to reconcile what could not be recorded then. One pipeline —
 * locales, the published (or, for a preview, draft) read, the items with their translations
 * linked, the comparison — serves all three and the editors' panel, which runs it dry.
 */
export const createTracker = ({ strapi }: { strapi: Core.Strapi }) => {
  const sources = repositories(strapi).sources;
  const states = repositories(strapi).states;
  const items = repositories(strapi).items;
  const settings = () => getService(strapi, 'config');
  /** One tracking run per document at a time in this process. */
  const queues = new Map<string, Promise<unknown>>();

  /** The locales a document of `type` publishes in (the site's default first) and the site context. */
  async function scopeOf(type: EnabledType): Promise<DocumentScope> {
    const config = settings().config();
    const { codes, defaultLocale } = await sources.locales(config.defaultLocale ?? 'en');
    const site = settings().site(defaultLocale);
    const localized = sources.isLocalized(type.uid);
    return { langs: localized ? codes : [site.defaultLocale], localized, site };
  }

  /** Items a document publishes from its entries; an entry that cannot be placed is logged when `log`. */
  function draftsOf(
    type: EnabledType,
    entries: readonly EntrySource[],
    site: SiteContext,
    log = true,
  ): { drafts: ItemDraft[]; unfilled: EntrySource[] } {
    const built = documentDrafts(entries, type.policy, site);
    if (log) logUnfilled(type, built);
    return built;
  }

  function logUnfilled(type: EnabledType, { unfilled }: DocumentDrafts): void {
    for (const entry of unfilled)
      strapi.log.warn(
        `[sitemap-ai] ${type.uid} ${entry.documentId} (${entry.lang}) left out: its path pattern "${type.policy.pathPattern}" cannot be filled`,
      );
  }

  /**
   * What a document's items are made from: its entries in every locale (`inputHash`) and what of
   * the settings and of this release shapes the items of its type (`shapeOf`, once per batch).
   * Equal hashes give equal items, so a re-compare skips a document whose states were last
   * compared with the same hash.
   */
  function shapeOf(type: EnabledType, scope: DocumentScope): string {
    return sha256Hex(
      stableStringify({
        v: 1,
        release: PLUGIN_VERSION,
        print: settings().policyFingerprint(),
        policy: type.policy,
        map: type.map,
        site: scope.site,
        langs: scope.langs,
      }),
    );
  }

  // The entries' JSON as they are read, keys in the order they come: two reads of the same entries
  // write the same JSON, and entries that differ only in the order of some keys are drafted again,
  // never skipped. A stable JSON (keys sorted) cost a first build of 10k articles ~0.3 s of the main
  // thread and 107 MB of garbage; this hash decides only whether to draft, never what an item says.
  function inputHash(shape: string, entries: readonly EntrySource[]): string {
    return sha256Hex(JSON.stringify({ shape, entries }));
  }

  /**
   * One document's entries in every locale of `scope`: the published versions, except the
   * locale `draftLang` whose saved draft is read instead (what publishing it would publish).
   */
  async function readDocument(
    type: EnabledType,
    documentId: string,
    scope: DocumentScope,
    draftLang?: string,
  ): Promise<{
    entries: EntrySource[];
    draft: { entry: EntrySource; problems: MetadataProblem[] } | null;
  }> {
    const entries: EntrySource[] = [];
    let draft: { entry: EntrySource; problems: MetadataProblem[] } | null = null;
    for (const lang of scope.langs) {
      const read = lang === draftLang ? sources.draftOne : sources.publishedOne;
      const found = await read(
        type.uid,
        type.policy.typeKey,
        type.map,
        documentId,
        scope.localized ? lang : undefined,
        lang,
      );
      if (lang === draftLang) draft = found;
      if (found) entries.push(found.entry);
    }
    return { entries, draft };
  }

  /**
   * The published entries of these documents in every locale of `scope` (a document's entries in
   * the scope's locale order), read a locale at a time for all of them; `known` holds one
   * locale's entries already read.
   */
  async function entriesOf(
    type: EnabledType,
    scope: DocumentScope,
    ids: readonly string[],
    known?: { lang: string; entries: ReadonlyMap<string, EntrySource> },
  ): Promise<Map<string, EntrySource[]>> {
    const byLang = new Map<string, ReadonlyMap<string, EntrySource>>();
    if (known) byLang.set(known.lang, known.entries);
    for (const lang of scope.langs) {
      if (byLang.has(lang)) continue;
      const entries = await sources.publishedOf(
        type.uid,
        type.policy.typeKey,
        type.map,
        ids,
        scope.localized ? lang : undefined,
        lang,
      );
      byLang.set(lang, new Map(entries.map((e) => [e.documentId, e])));
    }
    const byDocument = new Map<string, EntrySource[]>();
    for (const id of ids)
      byDocument.set(
        id,
        scope.langs.flatMap((lang) => {
          const entry = byLang.get(lang)?.get(id);
          return entry ? [entry] : [];
        }),
      );
    return byDocument;
  }

  interface DocumentRead {
    documentId: string;
    entries: EntrySource[];
    drafts: ItemDraft[];
    langs: string[];
  }

  /**
   * What tracking `documents` (of one type) writes: their new states, changelog entries and
   * aliases, from their states (`before`, or read now) and recent changelog, for all at once.
   *
   * The states a diff is written against must have been read before the entries it compares
   * with them: the write only checks that no state moved since that read, so entries read
   * earlier could hold a version another instance has published and recorded in between, and
   * writing them would undo its record (docs/protocol.md §5.1).
   */
  async function diffDocuments(
    uid: string,
    documents: readonly DocumentRead[],
    cause?: string,
    before?: readonly StoredTrackedState[],
    noChangelogBefore = false,
  ) {
    const all =
      before ??
      (await states.forDocuments(
        uid,
        documents.map((d) => d.documentId),
      ));
    const currentOf = new Map<string, (TrackedState & { pending: boolean })[]>();
    for (const state of all) {
      const list = currentOf.get(state.sourceDocument);
      if (list) list.push(state);
      else currentOf.set(state.sourceDocument, [state]);
    }
    const now = new Date().toISOString();
    const since = new Date(Date.parse(now) - ITEM_CHANGELOG_DAYS * DAY_MS).toISOString();
    const print = settings().policyFingerprint();
    // Only the states the comparison may change or describe have their stored texts and recent
    // changelog read (those read without texts; a restamped state is written again, texts and all).
    const unchanged = new Set(
      documents.flatMap(({ documentId, entries, drafts }) =>
        unchangedStates({
          states: currentOf.get(documentId) ?? [],
          drafts,
          reasons: reasonsOf(entries),
        }).filter((s) => !(s.pending && s.policyPrint !== print)),
      ),
    );
    const ids = new Set(all.map((s) => s.itemId));
    for (const document of documents) for (const draft of document.drafts) ids.add(draft.id);
    for (const state of unchanged) ids.delete(state.itemId);
    // The tracker writes an item's changelog in the transaction that writes its state, so an item
    // without a state has entries only if its state was lost behind the plugin's back — and none
    // when the changelog was empty as this comparison began (`noChangelogBefore`). A first build
    // asks for none.
    const recent =
      (noChangelogBefore && all.length === 0) || ids.size === 0
        ? new Map<string, ChangelogEntry[]>()
        : await states.recentChangelog([...ids], since, ITEM_CHANGELOG_MAX);
    await states.readTexts(all.filter((state) => !unchanged.has(state)));
    const result = {
      writes: [] as StateWrite[],
      changelog: [] as ChangelogRecord[],
      aliases: [] as AliasRecord[],
      changed: 0,
      states: all,
    };
    for (const { documentId, entries, drafts, langs } of documents) {
      const current = currentOf.get(documentId) ?? [];
      const diff = diffDocument({
        uid,
        documentId,
        drafts,
        langs,
        states: current,
        reasons: reasonsOf(entries),
        recent,
        now,
        cause,
      });
      // Every state written now was computed under today's policy; a pending state computed
      // under another one whose result is the same is stamped so the builder may publish it.
      const written = new Set(diff.writes.map((w) => w.state.itemId));
      const restamps = current
        .filter((s) => !written.has(s.itemId) && s.pending && s.policyPrint !== print)
        .map((s) => ({
          state: extend(s, { revision: s.revision + 1 }),
          expectedRevision: s.revision,
        }));
      for (const write of [...diff.writes, ...restamps])
        result.writes.push(extend(write, { state: extend(write.state, { policyPrint: print }) }));
      result.changelog.push(...diff.changelog);
      result.aliases.push(...diff.aliases);
      result.changed += diff.writes.length;
    }
    return result;
  }

  async function apply(
    uid: string,
    documentId: string,
    read: () => Promise<{ entries: EntrySource[]; drafts: ItemDraft[]; langs: string[] }>,
    cause: string | undefined,
  ): Promise<TrackResult> {
    for (let attempt = 1; ; attempt += 1) {
      // (the states first: see diffDocuments)
      const before = await states.forDocuments(uid, [documentId]);
      const diff = await diffDocuments(uid, [{ documentId, ...(await read()) }], cause, before);
      try {
        // (no hash: a document tracked on its own is compared again by the next re-compare)
        await states.write(diff.writes, diff.changelog, diff.aliases, [
          { uid, documentId, hash: null },
        ]);
        return { changelog: diff.changelog, changed: diff.changed };
      } catch (error) {
        if (!(error instanceof StateConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    queues.set(key, next);
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
    return next;
  }

  /**
   * Which documents of a batch to compare, and the hashes of what each is made from: all, or with
   * `skipUnchanged` those whose states were not last compared with what they are made from now.
   */
  async function toCompare(
    type: EnabledType,
    scope: DocumentScope,
    entriesRead: ReadonlyMap<string, EntrySource[]>,
    skipUnchanged: boolean,
  ): Promise<{ shape: string; hashes: Map<string, string>; batch: string[] }> {
    const shape = shapeOf(type, scope);
    const hashes = new Map(
      [...entriesRead].map(([documentId, entries]) => [documentId, inputHash(shape, entries)]),
    );
    let batch = [...entriesRead.keys()];
    if (skipUnchanged) {
      const compared = await states.comparedHashes(type.uid, batch);
      batch = batch.filter((documentId) => compared.get(documentId) !== hashes.get(documentId));
    }
    return { shape, hashes, batch };
  }

  /** A batch's documents to compare, their hashes, and the drafts made for them, if any. */
  interface Drafted {
    shape: string;
    hashes: Map<string, string>;
    batch: string[];
    drafts: ReadonlyMap<string, ThreadDocument> | undefined;
    /** The drafts' canonical texts the thread keyed and encoded, by item id. */
    encoded?: ReadonlyMap<string, EncodedContent>;
    /** The states of `batch`'s documents, read (without texts) after their entries. */
    states?: readonly StoredTrackedState[];
    /** Documents of `batch` whose comparison would change nothing (answered settled, no drafts). */
    settled?: ReadonlySet<string>;
    /** A first build's fresh states' data the thread encoded, by item id (ThreadDrafts `data`). */
    encodedData?: ReadonlyMap<string, EncodedData>;
    /** What the thread compared fresh documents under (DraftRequest `fresh`), if it did. */
    fresh?: UntrackedDiffInput;
  }

  /**
   * For each document of `batch`, the keys of its states a matching draft leaves as they are
   * (DocumentKeys; a draft matches when it has the state's checksum and metadata hash): its live
   * states in the pass's locales, but for a page whose entry brings an editor's reason (a reason
   * may write it again). They are all of its states (`whole`: a document whose drafts match them
   * all is settled, diffDocument would write nothing for it) unless a page was left out or one of
   * them waits under another policy (a comparison stamps it anew).
   */
  function unchangedKeys(
    batch: readonly string[],
    langs: readonly string[],
    known: readonly StateKeyRow[],
    entriesRead: ReadonlyMap<string, EntrySource[]>,
  ): DocumentKeys[] {
    const print = settings().policyFingerprint();
    const byDocument = new Map(
      batch.map((documentId) => [documentId, { keys: new Map<string, string>(), whole: true }]),
    );
    for (const state of known) {
      const document = byDocument.get(state.sourceDocument);
      if (!document || state.removed || !langs.includes(state.lang)) continue;
      if (state.pending && state.policyPrint !== print) document.whole = false;
      if (
        state.type === 'article' &&
        reasonsOf(entriesRead.get(state.sourceDocument) ?? [])[state.lang]?.trim()
      )
        document.whole = false;
      else document.keys.set(state.itemId, stateKey(state));
    }
    return [...byDocument.values()];
  }

  /**
   * toCompare, with the documents to compare handed to the drafting thread: the promise of it all,
   * to await once the batch before is written (the documents the thread has not begun by then are
   * drafted here meanwhile: `draftingOnThread`). A first build (`publish`) has the thread encode
   * the drafts' canonical texts as well: it stores every one of them. A re-compare reads only its
   * states' keys here, and the documents the thread answers settled (unchangedKeys) are left
   * uncompared.
   */
  async function draftAhead(
    type: EnabledType,
    scope: DocumentScope,
    entriesRead: ReadonlyMap<string, EntrySource[]>,
    publish: boolean,
    { cause, noChangelogBefore = false }: { cause?: string; noChangelogBefore?: boolean } = {},
  ): Promise<() => Promise<Drafted>> {
    const compared = await toCompare(type, scope, entriesRead, true);
    const { batch } = compared;
    if (batch.length === 0) return async () => extend(compared, { drafts: undefined });
    const documents = batch.map((documentId) => entriesRead.get(documentId)!);
    const byDocument = (made: { documents: ThreadDocument[] } | null) =>
      made ? new Map(batch.map((documentId, i) => [documentId, made.documents[i]!])) : undefined;
    if (publish) {
      // (the states after the entries, as the batch reads them)
      const known = await states.forDocuments(type.uid, batch, { texts: 'later' });
      // On a changelog that was empty as the build began, the thread compares the documents that
      // have no state as well (all of a first build's): every item added, what trackBatch would
      // write for them, made there and encoded there — no drafts sent here only to be compared,
      // and no item data sent back to be encoded.
      const tracked = new Set(known.map((state) => state.sourceDocument));
      const fresh: UntrackedDiffInput | undefined = noChangelogBefore
        ? {
            uid: type.uid,
            langs: scope.langs,
            now: new Date().toISOString(),
            cause,
            print: settings().policyFingerprint(),
          }
        : undefined;
      const drafting = draftingOnThread(type.policy, scope.site, documents, {
        encodeContents: true,
        shared: true,
        fresh: fresh && {
          input: fresh,
          documentIds: batch.map((documentId) => (tracked.has(documentId) ? null : documentId)),
        },
      });
      return async () => {
        const made = await drafting.result();
        return extend(compared, {
          drafts: byDocument(made),
          encoded: made?.encoded,
          encodedData: made?.data,
          states: known,
          fresh,
        });
      };
    }
    // The states' keys now (after the entries): the thread answers the drafts of items they hold
    // unchanged thin, and the documents left unsettled have their states read whole later.
    const keys = await states.keysForDocuments(type.uid, batch);
    const drafting = draftingOnThread(type.policy, scope.site, documents, {
      unchanged: unchangedKeys(batch, scope.langs, keys, entriesRead),
      shared: true,
    });
    return async () => {
      const made = await drafting.result();
      const settled = new Set(batch.filter((_, i) => made?.documents[i]!.settled !== undefined));
      return extend(compared, { drafts: byDocument(made), settled });
    };
  }

  /**
   * Track a batch of documents of one type (all their locales' entries): compared and written at
   * once; when that fails (another tracker wrote one of them first, or one cannot be recorded)
   * they are tracked one by one, each read again. `before` holds their states when they were
   * read before the entries; otherwise the states are read now and the documents that have
   * states and would change are read again before they are compared (see diffDocuments) — none
   * on a first build or a re-compare that finds nothing changed. With `skipUnchanged`, documents
   * whose states were last compared with what they are made from now (inputHash) are left as
   * they are. Returns how many items changed and the documents that could not be tracked (kept
   * at their previous state, logged).
   */
  async function trackBatch(
    type: EnabledType,
    scope: DocumentScope,
    entriesRead: ReadonlyMap<string, EntrySource[]>,
    cause?: string,
    {
      before,
      skipUnchanged = false,
      noChangelogBefore = false,
      noAliasesBefore = false,
      publish,
      drafted,
    }: {
      before?: readonly StoredTrackedState[];
      /** What to compare, found already (toCompare), with the drafts made for it (draftAhead). */
      drafted?: Drafted;
      /** A first build publishing as it tracks. */
      publish?: FirstPublish;
      skipUnchanged?: boolean;
      /** The changelog was empty when this comparison began (see diffDocuments). */
      noChangelogBefore?: boolean;
      /** No alias was recorded when this comparison began (see the states' `write`). */
      noAliasesBefore?: boolean;
    } = {},
  ): Promise<{
    changed: number;
    failures: TrackFailure[];
    /** Documents left as they are (skipUnchanged). */
    unchanged: number;
    /** Documents written as the plugin's thread compared them (DraftRequest `fresh`). */
    comparedOnThread?: number;
  }> {
    const { langs } = scope;
    const byDocument = new Map(entriesRead);
    const failures: TrackFailure[] = [];
    const { shape, hashes, batch } =
      drafted ?? (await toCompare(type, scope, entriesRead, skipUnchanged));
    const unchanged = byDocument.size - batch.length;
    if (batch.length === 0) return { changed: 0, failures, unchanged };
    const made = new Map(drafted?.drafts);
    // The documents the thread compared as it drafted them (fresh: no state, on a changelog that
    // was empty as the build began), when this comparison would have compared them alike: with
    // no state of theirs read (`drafted.states`), the same cause and the same policy. The others
    // it compared are drafted again here: their answered drafts are not what they publish.
    const fromThread = new Map<string, { writes: StateWrite[]; changelog: ChangelogRecord[] }>();
    const hadStates = new Set(drafted?.states?.map((state) => state.sourceDocument));
    const freshAlike =
      !before &&
      publish !== undefined &&
      noChangelogBefore &&
      drafted?.states !== undefined &&
      drafted.fresh !== undefined &&
      drafted.fresh.cause === cause &&
      drafted.fresh.print === settings().policyFingerprint();
    for (const [documentId, ready] of made) {
      if (!ready.diff) continue;
      if (freshAlike && !hadStates.has(documentId)) fromThread.set(documentId, ready.diff);
      made.delete(documentId);
    }
    const draftsFor = (documentId: string, entries: readonly EntrySource[]) => {
      const ready = made.get(documentId);
      if (!ready) return draftsOf(type, entries, scope.site).drafts;
      logUnfilled(type, ready);
      return ready.drafts;
    };
    // (a settled document is not compared: its states stay as they are, its hash is recorded)
    const settled = drafted?.settled ?? new Set<string>();
    for (const documentId of settled) logUnfilled(type, made.get(documentId)!);
    for (const documentId of fromThread.keys())
      logUnfilled(type, drafted!.drafts!.get(documentId)!);
    const comparing = batch.filter(
      (documentId) => !settled.has(documentId) && !fromThread.has(documentId),
    );
    const compare = async (known: readonly StoredTrackedState[]) => {
      const diff =
        comparing.length === 0
          ? { writes: [], changelog: [], aliases: [], changed: 0 }
          : await diffDocuments(
              type.uid,
              comparing.map((documentId) => {
                const entries = byDocument.get(documentId)!;
                return { documentId, entries, drafts: draftsFor(documentId, entries), langs };
              }),
              cause,
              known,
              noChangelogBefore,
            );
      if (fromThread.size === 0) return diff;
      // (in the batch's order, the order of the items' ids: their rows are appended to the
      // indexes on them, not inserted at random places)
      const compared = new Map<string, StateWrite[]>();
      for (const write of diff.writes) {
        const list = compared.get(write.state.sourceDocument);
        if (list) list.push(write);
        else compared.set(write.state.sourceDocument, [write]);
      }
      const writes: StateWrite[] = [];
      const changelog: ChangelogRecord[] = [...diff.changelog];
      let changed = diff.changed;
      for (const documentId of batch) {
        const made = fromThread.get(documentId);
        writes.push(...(made?.writes ?? compared.get(documentId) ?? []));
        compared.delete(documentId);
        if (!made) continue;
        changelog.push(...made.changelog);
        changed += made.writes.length;
      }
      // (a state of another document, if any: never dropped)
      for (const list of compared.values()) writes.push(...list);
      return { writes, changelog, aliases: diff.aliases, changed };
    };
    try {
      const known =
        before ??
        drafted?.states ??
        (await states.forDocuments(type.uid, comparing, { texts: 'later' }));
      let diff = await compare(known);
      if (!before) {
        const tracked = new Set(known.map((s) => s.sourceDocument));
        const stale = [
          ...new Set(
            diff.writes
              .map((w) => w.state.sourceDocument)
              .filter((documentId) => tracked.has(documentId)),
          ),
        ];
        if (stale.length > 0) {
          for (const [documentId, entries] of await entriesOf(type, scope, stale)) {
            made.delete(documentId);
            byDocument.set(documentId, entries);
            hashes.set(documentId, inputHash(shape, entries));
          }
          diff = await compare(known);
        }
      }
      // (a document no longer published keeps no hash: the table holds one row per live document)
      const compared: ComparedSource[] = batch.map((documentId) => ({
        uid: type.uid,
        documentId,
        hash: byDocument.get(documentId)!.length > 0 ? hashes.get(documentId)! : null,
      }));
      let published = publish ? await publishable(diff.writes, publish) : [];
      // A fresh document the thread compared whose states are not all published now (the policy
      // check refused one, or the policy changed meanwhile) is compared here: its states' data
      // came cut (workers/drafting.ts FreshData), and a state that waits stores the whole of it.
      if (fromThread.size > 0) {
        const publishedIds = new Set(published.map((state) => state.itemId));
        const waiting = [...fromThread].flatMap(([documentId, made]) =>
          made.writes.every((write) => publishedIds.has(write.state.itemId)) ? [] : [documentId],
        );
        if (waiting.length > 0) {
          for (const documentId of waiting) {
            fromThread.delete(documentId);
            comparing.push(documentId);
          }
          diff = await compare(known);
          published = publish ? await publishable(diff.writes, publish) : [];
        }
      }
      const { writes, changelog } =
        publish && noChangelogBefore ? keptInStates(diff, published) : diff;
      await states.write(writes, changelog, diff.aliases, compared, {
        noAliases: noAliasesBefore && known.length === 0,
        encoded: drafted?.encoded,
        encodedData: drafted?.encodedData,
        published:
          publish && published.length > 0
            ? {
                itemIds: new Set(published.map((state) => state.itemId)),
                insert: (refs) =>
                  items.insert(
                    published.map((state) =>
                      versionOfState(state, publish.seq, refs.get(state.itemId)!),
                    ),
                  ),
              }
            : undefined,
      });
      if (publish) for (const state of published) publish.published(state);
      return { changed: diff.changed, failures, unchanged, comparedOnThread: fromThread.size };
    } catch (error) {
      // Without the lease nothing more is written, one by one or otherwise.
      if (error instanceof LeaseLostError) throw error;
      if (!(error instanceof StateConflictError)) {
        strapi.log.warn(
          `[sitemap-ai] a batch of ${batch.length} ${type.uid} documents is tracked one by one: ${messageOf(error)}`,
        );
      }
    }
    let changed = 0;
    for (const documentId of batch) {
      try {
        const result = await serialized(`${type.uid}|${documentId}`, () =>
          apply(
            type.uid,
            documentId,
            async () => {
              const entries = (await entriesOf(type, scope, [documentId])).get(documentId)!;
              return { entries, drafts: draftsOf(type, entries, scope.site).drafts, langs };
            },
            cause,
          ),
        );
        changed += result.changed;
      } catch (error) {
        const message = messageOf(error);
        failures.push({ uid: type.uid, documentId, message });
        strapi.log.error(
          `[sitemap-ai] ${type.uid} ${documentId} kept at its previous state: ${message}`,
        );
      }
    }
    return { changed, failures, unchanged };
  }

  /**
   * A first build on a site whose changelog was empty keeps the "added" entry of each state it
   * publishes in that state (TrackedState.addedAt) when the entry says no more than the state does:
   * not a row of the changelog (at 10k articles, 140k rows and their indexes, 40 MB, a fifth of
   * the plugin's tables). The entries that say more (an editor's reason) stay rows.
   */
  function keptInStates(
    diff: { writes: StateWrite[]; changelog: ChangelogRecord[] },
    published: readonly TrackedState[],
  ): { writes: StateWrite[]; changelog: ChangelogRecord[] } {
    // (the thread keeps those of the documents it compared: their entries are not here)
    if (published.length === 0 || diff.changelog.length === 0) return diff;
    const { changelog, addedAt } = keptAddedEntries(
      diff.changelog,
      new Map(published.map((state) => [state.itemId, state])),
    );
    const writes = diff.writes.map((write) => {
      const at = addedAt.get(write.state.itemId);
      return at === undefined
        ? write
        : extend(write, { state: extend(write.state, { addedAt: at }) });
    });
    return { writes, changelog };
  }

  /**
   * What a first build publishing as it tracks makes versions of now: new, live states computed
   * under the build's policy that the policy check passes (the builder's check, run here; what it
   * refuses waits, pending, and the builder refuses it again, recording why). Fenced: only the
   * lease holder writes versions.
   */
  async function publishable(
    writes: readonly StateWrite[],
    publish: FirstPublish,
  ): Promise<TrackedState[]> {
    const fresh = writes.flatMap(({ state, expectedRevision }) =>
      expectedRevision === null && !state.removed && state.policyPrint === publish.print
        ? [state]
        : [],
    );
    if (fresh.length === 0) return [];
    const refused = await getService(strapi, 'policy').violations(
      fresh.map((state) => ({
        itemId: state.itemId,
        parent: state.parent,
        sourceUid: state.sourceUid,
        sourceDocument: state.sourceDocument,
        lang: state.lang,
        data: { license: state.data.license, usage: state.data.usage },
      })),
    );
    await publish.fence();
    return fresh.filter((state) => !refused.has(state.itemId));
  }

  /** Track one document on its own; a failure is added to `failures`. Returns the items changed. */
  async function trackOne(
    uid: string,
    documentId: string,
    cause: string | undefined,
    failures: TrackFailure[],
  ): Promise<number> {
    try {
      return (await tracker.trackDocument(uid, documentId, cause)).changed;
    } catch (error) {
      failures.push({ uid, documentId, message: messageOf(error) });
      return 0;
    }
  }

  const dirty = repositories(strapi).dirty;
  const queued = new Map<string, Queued>();
  let timer: NodeJS.Timeout | null = null;
  let firstQueuedAt = 0;
  let draining: Promise<void> = Promise.resolve();
  /** Documents whose queued tracking is being recorded now. */
  const recording = new Set<string>();
  /** Set inside a recording: the reads it makes must not wait for it (settleDocument). */
  const withinRecording = new AsyncLocalStorage<true>();

  /** Flush the queue once no publish joined it for SETTLE_MS, or MAX_WAIT_MS after its first. */
  function schedule(): void {
    const now = Date.now();
    if (timer) clearTimeout(timer);
    if (firstQueuedAt === 0) firstQueuedAt = now;
    const wait = Math.max(0, Math.min(SETTLE_MS, firstQueuedAt + MAX_WAIT_MS - now));
    timer = setTimeout(() => void tracker.flush(), wait);
  }

  /** Never throws: what cannot be recorded keeps (or gets) a mark with its error for the next rebuild. */
  async function recordQueued(batch: readonly Queued[]): Promise<void> {
    for (const entry of batch) recording.add(`${entry.uid}|${entry.documentId}`);
    try {
      await withinRecording.run(true, () => recordBatch(batch));
    } finally {
      recording.clear();
    }
  }

  /**
   * Track the documents of `batch` (one batch per type), clear the marks of those tracked and give
   * the others' marks their error. Returns the documents that could not be tracked. Never throws.
   */
  async function recordBatch(batch: readonly Queued[], cause?: string): Promise<TrackFailure[]> {
    const message = new Map(
      (await tracker.trackEachType(batch, cause)).map((f) => [
        `${f.uid}|${f.documentId}`,
        f.message,
      ]),
    );
    const failed = new Map<Queued, string>();
    for (const entry of batch) {
      const error = message.get(`${entry.uid}|${entry.documentId}`);
      if (error !== undefined) failed.set(entry, error);
    }
    try {
      await dirty.clear(
        batch.filter((entry) => !failed.has(entry)).flatMap((entry) => entry.marks),
      );
    } catch (error) {
      // The marks stay: the next rebuild tracks those documents once more, which changes nothing.
      strapi.log.warn(`[sitemap-ai] marks of tracked documents not cleared: ${messageOf(error)}`);
    }
    for (const [entry, message] of failed) {
      strapi.log.warn(
        `[sitemap-ai] change of ${entry.uid} ${entry.documentId} (${entry.action}) not recorded now, marked for the next rebuild: ${message}`,
      );
      try {
        if (entry.marks.length > 0) await dirty.failed(entry.marks, message);
        else await dirty.mark(entry.uid, entry.documentId, entry.action, message);
      } catch (markError) {
        strapi.log.error(
          `[sitemap-ai] could not mark ${entry.uid} ${entry.documentId} dirty either (${messageOf(markError)}); a full rebuild will reconcile it`,
        );
      }
    }
    return [...failed].map(([entry, message]) => ({
      uid: entry.uid,
      documentId: entry.documentId,
      message,
    }));
  }

  const tracker = {
    /**
     * Whether an action changes what is published of a tracked type: a publish, unpublish, delete
     * or discard — or any save of a type without draft & publish.
     */
    tracks({ uid, action, draftAndPublish }: Omit<DocumentAction, 'documentId'>): boolean {
      return (
        settings().trackedUids().has(uid) &&
        (draftAndPublish ? PUBLISHED_ACTIONS : LIVE_ACTIONS).has(action)
      );
    },

    /**
     * After an action `tracks` names (docs/protocol.md §3.1): queues the document's tracking once
     * the surrounding transaction commits (recording can never roll back the save). The editor
     * does not wait for it: the document is marked in the database (so any instance's rebuild
     * records it even if this process stops) and tracked in a batch moments later. Other actions
     * are ignored. Never throws.
     */
    async documentActed({
      uid,
      action,
      documentId,
      draftAndPublish,
    }: DocumentAction): Promise<void> {
      if (!documentId || !tracker.tracks({ uid, action, draftAndPublish })) return;
      // The mark is written with the action itself, in a savepoint of its transaction (the
      // middleware runs the action in one): committed with it (a commit of its own was most of
      // what the plugin added to a publish's time on SQLite), gone if it rolls back, and if the
      // mark cannot be written the action still is.
      await strapi.db.transaction(async ({ trx, onCommit }) => {
        let mark: number | null = null;
        try {
          mark = await (trx as Connection).transaction((savepoint: Connection) =>
            dirty.mark(uid, documentId, action, null, savepoint),
          );
        } catch (error) {
          strapi.log.warn(
            `[sitemap-ai] change of ${uid} ${documentId} (${action}) queued in memory only: ${messageOf(error)}`,
          );
        }
        onCommit(() => tracker.enqueue(uid, documentId, action, mark));
      });
    },

    /** Queue a marked document's tracking (`mark` null: it could not be marked). */
    enqueue(uid: string, documentId: string, action: string, mark: number | null): void {
      const key = `${uid}|${documentId}`;
      const entry = queued.get(key) ?? { uid, documentId, action, marks: [] };
      if (mark !== null) entry.marks.push(mark);
      queued.set(key, entry);
      schedule();
    },

    /**
     * Track every queued document now and wait until that (and any tracking already under way)
     * is done. Whatever reads tracked states — the rebuild, the editors' panel, the dashboard —
     * flushes first, so it sees every publish this process has returned from.
     */
    flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      firstQueuedAt = 0;
      const batch = [...queued.values()];
      queued.clear();
      const run = draining.then(() => (batch.length > 0 ? recordQueued(batch) : undefined));
      draining = run;
      return run;
    },

    /**
     * Before an action on a document whose earlier action is still queued (or being recorded):
     * record that one first, so that every publish is compared on its own — two publishes of a
     * document a moment apart get two changelog entries, each with its own reason.
     */
    async settleDocument(uid: string, documentId: string): Promise<void> {
      // The recording's own reads of a document go through the same middleware.
      if (withinRecording.getStore()) return;
      const key = `${uid}|${documentId}`;
      if (queued.has(key) || recording.has(key)) await tracker.flush();
    },

    /**
     * Record the documents that marks name (any instance's: queued by a publish, or failed
     * before), a batch per type; returns those that still cannot be tracked (their marks keep
     * the error). The rebuild runs this for what is marked in the database.
     */
    recordMarked(marks: readonly DirtyMark[], cause: string): Promise<TrackFailure[]> {
      const byDocument = new Map<string, Queued>();
      for (const mark of marks) {
        const key = `${mark.uid}|${mark.documentId}`;
        const entry = byDocument.get(key);
        if (entry) entry.marks.push(mark.id);
        else
          byDocument.set(key, {
            uid: mark.uid,
            documentId: mark.documentId,
            action: mark.action,
            marks: [mark.id],
          });
      }
      return withinRecording.run(true, () => recordBatch([...byDocument.values()], cause));
    },

    /** Stopping: what is queued is tracked now (a mark stays for what cannot be). */
    stop: (): Promise<void> => tracker.flush(),

    /**
     * Track documents of one type now, in batches (all their locales); a document that cannot be
     * tracked is returned among the failures, kept at its previous state.
     */
    async trackDocuments(
      uid: string,
      documentIds: readonly string[],
      cause?: string,
    ): Promise<{
      changed: number;
      failures: TrackFailure[];
    }> {
      const type = settings()
        .enabledTypes()
        .find((t) => t.uid === uid);
      let changed = 0;
      const failures: TrackFailure[] = [];
      for (let i = 0; i < documentIds.length; i += BATCH) {
        const part = documentIds.slice(i, i + BATCH);
        if (!type) {
          // No longer enabled: each document's items are withdrawn on their own.
          for (const documentId of part)
            changed += await trackOne(uid, documentId, cause, failures);
          continue;
        }
        const scope = await scopeOf(type);
        // (the states first: see diffDocuments)
        const before = await states.forDocuments(uid, part, { texts: 'later' });
        const result = await trackBatch(type, scope, await entriesOf(type, scope, part), cause, {
          before,
        });
        changed += result.changed;
        failures.push(...result.failures);
        await turnEventLoop();
      }
      return { changed, failures };
    },

    /**
     * Track documents of any types now, a batch per type (trackDocuments); returns those that
     * could not be tracked, kept at their previous state. Never throws.
     */
    async trackEachType(
      documents: readonly { uid: string; documentId: string }[],
      cause?: string,
    ): Promise<TrackFailure[]> {
      const byUid = new Map<string, string[]>();
      for (const { uid, documentId } of documents) {
        const ids = byUid.get(uid);
        if (ids) ids.push(documentId);
        else byUid.set(uid, [documentId]);
      }
      const failures: TrackFailure[] = [];
      for (const [uid, documentIds] of byUid) {
        try {
          failures.push(...(await tracker.trackDocuments(uid, documentIds, cause)).failures);
        } catch (error) {
          const message = messageOf(error);
          failures.push(...documentIds.map((documentId) => ({ uid, documentId, message })));
        }
      }
      return failures;
    },

    /** Track one document (all its locales) now. */
    trackDocument(uid: string, documentId: string, cause?: string): Promise<TrackResult> {
      return serialized(`${uid}|${documentId}`, async () => {
        const type = settings()
          .enabledTypes()
          .find((t) => t.uid === uid);
        return apply(
          uid,
          documentId,
          async () => {
            if (!type)
              return {
                entries: [],
                drafts: [],
                langs: [
                  ...new Set((await states.forDocuments(uid, [documentId])).map((s) => s.lang)),
                ],
              };
            const scope = await scopeOf(type);
            const { entries } = await readDocument(type, documentId, scope);
            return {
              entries,
              drafts: draftsOf(type, entries, scope.site).drafts,
              langs: scope.langs,
            };
          },
          cause,
        );
      });
    },

    /** The locales a document of an enabled type publishes in, and the site context. */
    scope: (type: EnabledType): Promise<DocumentScope> => scopeOf(type),

    /**
     * A dry run of tracking (the editors' panel, README › In the admin): what publishing the saved
     * draft of `lang` would publish — the document read and built exactly as a publish tracks it,
     * its other locales as published — and what the tracker would record, without writing
     * anything. Null when the document has no draft in `lang`.
     */
    async preview(
      type: EnabledType,
      documentId: string,
      scope: DocumentScope,
      lang: string,
    ): Promise<DocumentPreview | null> {
      await tracker.flush();
      const { entries, draft } = await readDocument(type, documentId, scope, lang);
      if (!draft) return null;
      const { drafts, unfilled } = draftsOf(type, entries, scope.site, false);
      const diff = await diffDocuments(type.uid, [
        { documentId, entries, drafts, langs: scope.langs },
      ]);
      return {
        entries,
        draft: draft.entry,
        problems: draft.problems,
        drafts,
        unfilled: unfilled.includes(draft.entry),
        states: [...diff.states],
        changelog: diff.changelog,
      };
    },

    /**
     * Compare every published document of every enabled type, and every
     * tracked document that is no longer published or enabled, with its
     * state. Used for the first build and after a change of settings.
     */
    async reconcileAll(
      cause?: string,
      /** A first build publishing as it tracks (the builder's, before the first snapshot). */
      publish?: FirstPublish,
    ): Promise<{
      documents: number;
      changed: number;
      failures: TrackFailure[];
      /** Documents made of what their states were last compared with: not compared again. */
      unchanged: number;
      /** Documents drafted on the plugin's thread (utils/drafting-thread.ts), not on this one. */
      draftedOnThread: number;
      /**
       * Documents of a batch handed to the thread that this thread drafted while it waited for
       * the thread's answer (utils/drafting-thread.ts `draftingOnThread`).
       */
      draftedBeside: number;
      /** Drafts answered thin (on either thread): items whose states the pass found unchanged. */
      answeredThin: number;
      /** Documents the thread answered settled: their states left uncompared (`unchangedKeys`). */
      settled: number;
      /**
       * Documents the thread compared as it drafted them (a first build's, with no state), written
       * as it made them (DraftRequest `fresh`).
       */
      comparedOnThread: number;
    }> {
      let documents = 0;
      let changed = 0;
      let unchanged = 0;
      let draftedOnThread = 0;
      let draftedBeside = 0;
      let answeredThin = 0;
      let settled = 0;
      let comparedOnThread = 0;
      const failures: TrackFailure[] = [];
      /** The documents compared, by type (packed: 100k ids at 100k documents). */
      const seen = new Map<string, PackedStringSet>();
      const noChangelogBefore = !(await states.anyChangelog());
      const noAliasesBefore = !(await states.anyAlias());
      // Streamed a batch of documents at a time, so memory does not grow with the site (but for
      // their ids and slugs, packed): each locale's published entries in the order of their
      // items' ids (the sources' `published`); a document first met in one locale is compared
      // with its entries of every locale, read for its batch.
      for (const type of settings().enabledTypes()) {
        const scope = await scopeOf(type);
        const { langs, localized } = scope;
        const { uid, map } = type;
        const { typeKey } = type.policy;
        const done = new PackedStringSet();
        seen.set(uid, done);
        // A batch is read and handed to the drafting thread while the batches before it are
        // compared and written, one after the other (`previous`, the last one queued). Up to two
        // wait to be written (`behind` is the one before the last): with only one, the thread
        // was given the next batch only once the batch before was written, and while it drafted
        // the main thread had nothing to write (a re-compare of 10k documents waited ~3 s for
        // drafts in all).
        let previous: Promise<void> = Promise.resolve();
        let behind: Promise<void> = Promise.resolve();
        const compareFirstMet = async (first: Map<string, EntrySource>, lang: string) => {
          const ids = [...first.keys()];
          for (const id of ids) done.add(id);
          documents += ids.length;
          let entries: Map<string, EntrySource[]>;
          let drafted: () => Promise<Drafted>;
          try {
            entries = await entriesOf(type, scope, ids, { lang, entries: first });
            drafted = await draftAhead(type, scope, entries, publish !== undefined, {
              cause,
              noChangelogBefore,
            });
          } catch (error) {
            await previous.catch(() => undefined);
            throw error;
          }
          await behind;
          const before = previous;
          behind = before;
          previous = (async () => {
            await before;
            const ready = await drafted();
            for (const made of ready.drafts?.values() ?? []) {
              if (made.here) draftedBeside += 1;
              else draftedOnThread += 1;
              answeredThin += made.settled ?? made.drafts.filter(isThin).length;
            }
            settled += ready.settled?.size ?? 0;
            const result = await trackBatch(type, scope, entries, cause, {
              skipUnchanged: true,
              noChangelogBefore,
              noAliasesBefore,
              publish,
              drafted: ready,
            });
            changed += result.changed;
            unchanged += result.unchanged;
            comparedOnThread += result.comparedOnThread ?? 0;
            failures.push(...result.failures);
            await turnEventLoop();
          })();
          // (a failure is thrown where a later batch, or the end of the type, awaits it)
          previous.catch(() => undefined);
        };
        for (const lang of langs) {
          let first = new Map<string, EntrySource>();
          for await (const { entry } of sources.published(
            uid,
            typeKey,
            map,
            localized ? lang : undefined,
            lang,
          )) {
            if (done.has(entry.documentId)) continue;
            first.set(entry.documentId, entry);
            if (first.size >= BATCH) {
              await compareFirstMet(first, lang);
              first = new Map();
            }
          }
          if (first.size > 0) await compareFirstMet(first, lang);
        }
        await previous;
      }
      for await (const { uid, documentId } of states.liveDocuments()) {
        if (seen.get(uid)?.has(documentId)) continue;
        documents += 1;
        changed += await trackOne(uid, documentId, cause, failures);
        await turnEventLoop();
      }
      return {
        documents,
        changed,
        failures,
        unchanged,
        draftedOnThread,
        draftedBeside,
        answeredThin,
        settled,
        comparedOnThread,
      };
    },
  };
  return tracker;
};

export type Tracker = ReturnType<typeof createTracker>;
