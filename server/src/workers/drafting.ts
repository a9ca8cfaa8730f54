import { documentDrafts, type SiteContext, type TypePolicy } from '../core/items';
import {
  diffUntracked,
  keptAddedEntries,
  type ChangelogRecord,
  type StateWrite,
  type UntrackedDiffInput,
} from '../core/tracking';
import type { EntrySource, ItemDraft, ManifestItem } from '../core/types';

// The key a canonical text is stored under, from its draft's checksum: the thread keys what it
// encodes (`encodeContents`).
export { blobKeyOfChecksum } from '../core/canonical';

/**
 * What the plugin's thread drafts (utils/plugin-thread.ts loads this module's bundle,
 * dist/server/drafting.js, on the first batch it is asked to draft): the items each document of
 * a batch publishes, made by the same core function the main thread calls. Runs outside Strapi:
 * it imports only core/.
 */

/** What the main thread asks: one batch of documents of one type. */
export interface DraftRequest {
  kind: 'draft';
  id: number;
  policy: TypePolicy;
  site: SiteContext;
  documents: readonly (readonly EntrySource[])[];
  /** Answer with each draft's canonical text encoded too (done by the thread, not here). */
  encodeContents?: boolean;
  /**
   * For each document, in order: its items whose tracked state nothing in a draft can change,
   * each with its stateKey. A draft of the same key is answered thin (ThinDraft); a document all
   * of whose drafts are, one for each of these states when they are all its states (`whole`), is
   * answered settled. Never with `encodeContents`.
   */
  unchanged?: readonly DocumentKeys[];
  /**
   * Who drafts each document, shared with the main thread (utils/drafting-thread.ts): NOBODY
   * until one side claims it. The thread claims from the first document on (and notifies the
   * first's claim), the main thread from the last back while it waits for the answer of a batch
   * the thread has begun; a document the main thread claimed is answered `stolen`, without drafts.
   */
  claims?: Int32Array;
  /**
   * A first build's documents none of whose items has a state (their ids by position, null for
   * the others), compared where they are drafted (core/tracking.ts `diffUntracked`): answered
   * with the states to write instead of their drafts. Only with `encodeContents`.
   */
  fresh?: { input: UntrackedDiffInput; documentIds: readonly (string | null)[] };
}

/** A document's claim (DraftRequest `claims`): not yet drafted, taken by the thread, by the main thread. */
export const NOBODY = 0;
export const THREAD = 1;
export const MAIN = 2;

/** Claim document `index` for `who`: whether nobody had (always, without claims). */
export function claim(claims: Int32Array | undefined, index: number, who: number): boolean {
  return !claims || Atomics.compareExchange(claims, index, NOBODY, who) === NOBODY;
}

/** The keys of one document's live states in a pass's locales (DraftRequest `unchanged`). */
export interface DocumentKeys {
  /** By item id: the stateKey of each state a matching draft leaves as it is. */
  keys: ReadonlyMap<string, string>;
  /** Whether `keys` holds every live state of the document in the pass's locales. */
  whole: boolean;
}

/**
 * What a draft must match of an item's tracked state for the comparison to leave the state as it
 * is: its checksum and metadata hash (core/tracking.ts `unchangedStates`).
 */
export const stateKey = ({ checksum, metaHash }: { checksum: string; metaHash: string }): string =>
  `${checksum} ${metaHash}`;

/**
 * A draft without its item, canonical text and citation input: what the main thread compares of
 * a draft whose item is unchanged. A re-compare that finds nothing changed sent each document's
 * whole drafts back and forth between the threads (structured clone on both sides, and the
 * garbage of it) only to compare two hashes.
 */
export type ThinDraft = Omit<
  ItemDraft,
  'item' | 'content' | 'citationInput' | 'citationOverride'
> & {
  thin: true;
};

/** The draft as the main thread needs it: whole, or thin when `unchanged` holds its key. */
function answered(draft: ItemDraft, unchanged: ReadonlyMap<string, string> | undefined) {
  if (unchanged?.get(draft.id) !== stateKey(draft)) return draft;
  const { id, type, lang, parent, sourceUid, documentId, checksum, metaHash } = draft;
  const thin: ThinDraft = {
    id,
    type,
    lang,
    sourceUid,
    documentId,
    checksum,
    metaHash,
    sourceModified: draft.sourceModified,
    thin: true,
  };
  if (parent !== undefined) thin.parent = parent;
  if (draft.stabilityPin !== undefined) thin.stabilityPin = draft.stabilityPin;
  return thin;
}

/**
 * Whether a document's drafts leave every one of its states as it is (DocumentKeys): each matches
 * the key of one of them, and there are as many, all different. The comparison would write
 * nothing for it (tracker.ts).
 */
function settles(drafts: readonly ItemDraft[], known: DocumentKeys | undefined): boolean {
  if (!known?.whole || drafts.length !== known.keys.size) return false;
  const ids = new Set<string>();
  for (const draft of drafts) {
    if (known.keys.get(draft.id) !== stateKey(draft)) return false;
    ids.add(draft.id);
  }
  return ids.size === drafts.length;
}

/**
 * Each document's items and the positions of its entries that cannot be placed; or, when drafting
 * threw, only why (the main thread then drafts the batch itself, and meets the same error there).
 * A settled document (`settled`: how many drafts it had) is answered without its drafts: the main
 * thread would only have compared their keys again.
 */
export interface DraftAnswer {
  id: number;
  documents?: {
    drafts: (ItemDraft | ThinDraft)[];
    unfilled: number[];
    settled?: number;
    /** Claimed by the main thread first: drafted there, not here (DraftRequest `claims`). */
    stolen?: true;
    /**
     * A fresh document's comparison (DraftRequest `fresh`), made of its drafts (not answered),
     * its states' data cut to FreshData, the "added" entries they imply kept in them (`addedAt`).
     */
    diff?: { writes: StateWrite[]; changelog: ChangelogRecord[] };
  }[];
  error?: string;
  /** With `encodeContents`: the stored body of each draft's content, in order, end to end. */
  contents?: { bytes: Uint8Array; lengths: Uint32Array };
  /** With `encodeContents`: the key of each draft's content (blobKey), in the same order. */
  contentKeys?: string[];
  /**
   * With `encodeContents`: the stored body of each fresh state's data (JSON), in the order of
   * their writes, end to end. A fresh document's contents above follow its writes too.
   */
  data?: { bytes: Uint8Array; lengths: Uint32Array };
}

/**
 * What the main thread reads of a fresh state's data: its title, page, licence and usages (the
 * policy check, the "added" entry it implies, the pages announced). The whole of it is stored
 * from the body the thread encoded (DraftAnswer `data`): sent whole, the data of a first build's
 * states took the two threads more to copy across (structured clone of 140k nested objects,
 * ~4 s at 10k articles) than to encode.
 */
export type FreshData = Pick<ManifestItem, 'title' | 'url' | 'license' | 'usage'> & {
  signals?: { canonical?: string };
};

/**
 * A fresh state's write as answered: stamped with the policy it was computed under, as the
 * tracker stamps every state it writes, with the time of the "added" entry it keeps, and its
 * data cut to FreshData. The state is changed in place: it is this thread's own, made for this
 * answer by diffUntracked, and its whole data is encoded already (a copy of each of a first
 * build's 140k states of ~20 fields was ~0.55 s of this thread's 21 s at 10k articles).
 */
function answeredFresh(write: StateWrite, print: string, addedAt: string | undefined): StateWrite {
  const state = write.state;
  const { title, url, license, usage, signals } = state.data;
  const data: FreshData = { title, url, license, usage };
  if (signals?.canonical !== undefined) data.signals = { canonical: signals.canonical };
  state.policyPrint = print;
  state.data = data as ManifestItem;
  if (addedAt !== undefined) state.addedAt = addedAt;
  return write;
}

/**
 * Draft a batch; `between` is called after each document it drafts, with its drafts, and for a
 * fresh one the states to write (the thread encodes their canonical texts there when asked, and
 * the fresh states' data, and answers what was asked of it meanwhile, see utils/plugin-thread.ts).
 */
export function draftBatch(
  { id, policy, site, documents, unchanged, claims, fresh }: DraftRequest,
  between: (drafts: readonly ItemDraft[], writes?: readonly StateWrite[]) => void = () => undefined,
): DraftAnswer {
  try {
    return {
      id,
      documents: documents.map((entries, i) => {
        if (!claim(claims, i, THREAD)) return { drafts: [], unfilled: [], stolen: true };
        // (the main thread drafts a batch's documents only once this thread has begun it)
        if (claims && i === 0) Atomics.notify(claims, 0);
        const { drafts, unfilled } = documentDrafts(entries, policy, site);
        const positions = unfilled.map((entry) => entries.indexOf(entry));
        const documentId = fresh?.documentIds[i];
        if (fresh && typeof documentId === 'string') {
          const diff = diffUntracked(fresh.input, documentId, entries, drafts);
          between(drafts, diff.writes);
          // Its "added" entries that say no more than their states are kept in them (`addedAt`),
          // as the tracker keeps a first build's that it publishes (services/tracker.ts
          // `keptInStates`; a document any of whose states is not published now is compared
          // again there); those that say more (an editor's reason) stay entries.
          const { changelog, addedAt } = keptAddedEntries(
            diff.changelog,
            new Map(diff.writes.map(({ state }) => [state.itemId, state])),
          );
          return {
            drafts: [],
            unfilled: positions,
            diff: {
              writes: diff.writes.map((write) =>
                answeredFresh(write, fresh.input.print, addedAt.get(write.state.itemId)),
              ),
              changelog,
            },
          };
        }
        between(drafts);
        const known = unchanged?.[i];
        if (settles(drafts, known))
          return { drafts: [], unfilled: positions, settled: drafts.length };
        return {
          drafts: drafts.map((draft) => answered(draft, known?.keys)),
          unfilled: positions,
        };
      }),
    };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}
