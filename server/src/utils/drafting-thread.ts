import type { DocumentDrafts, SiteContext, TypePolicy } from '../core/items';
import type { ChangelogRecord, StateWrite } from '../core/tracking';
import type { EntrySource, ItemDraft, ManifestItem } from '../core/types';
import type { EncodedContent } from '../repositories/blob-repository';
import { encodeBlob } from '../repositories/blob-codec';
import { blobKeyOfChecksum } from '../core/canonical';
import {
  MAIN,
  NOBODY,
  THREAD,
  claim,
  draftBatch,
  type DocumentKeys,
  type DraftAnswer,
  type DraftRequest,
  type ThinDraft,
} from '../workers/drafting';
import { askThread, draftingFile, unpacked } from './plugin-thread';

/**
 * Drafting on the plugin's second thread (README "Storage"): a whole-site pass (a first build, a
 * re-compare after a settings change or an upgrade) hands the next batch's documents to the thread
 * and goes on comparing and writing the batch before, so on a machine of two cores the
 * fragmenting, hashing and checksums of 10k documents run beside the database work instead of
 * before it.
 *
 * The thread loads the package's bundle of workers/drafting.ts (dist/server/drafting.js, next to
 * the server's bundle). Where that file is not (the server run from its sources) or the thread
 * fails, stops or throws, `draftingOnThread` answers null and the caller drafts on its own thread:
 * the same core function, the same items.
 */

/**
 * One document's drafts as the thread answers them: none for a settled one, with how many it had;
 * `here` when this thread drafted it (Drafting `result`).
 */
export type ThreadDocument = DocumentDrafts & {
  settled?: number;
  here?: true;
  /**
   * A fresh document's comparison, made by the thread (DraftRequest `fresh`): the states to
   * write and their changelog; its `drafts` are then empty, not what it publishes.
   */
  diff?: { writes: StateWrite[]; changelog: ChangelogRecord[] };
};

/** A fresh state's data, cut, and the stored body of the whole of it (ThreadDrafts). */
export interface EncodedData {
  data: ManifestItem;
  body: Buffer;
}

/**
 * A fresh state's data as answered (workers/drafting.ts FreshData), made impossible to store: a
 * write that would serialize it instead of taking its body (ThreadDrafts `data`) throws, and the
 * tracker then tracks the batch again document by document, drafted on this thread.
 */
function cutData(data: ManifestItem): ManifestItem {
  return Object.defineProperty(data, 'toJSON', {
    value: () => {
      throw new Error(`the data of ${data.url} was answered cut: only its encoded body is stored`);
    },
  });
}

/** What the thread drafted: each document's drafts, and the canonical texts it encoded. */
export interface ThreadDrafts {
  documents: ThreadDocument[];
  /**
   * By item id, its draft's canonical text keyed and encoded (with `encodeContents`): a write's
   * `encoded`, which uses one only for a state of the same text.
   */
  encoded: Map<string, EncodedContent>;
  /**
   * By item id, a fresh state's data encoded (DraftRequest `fresh`): a write's `encodedData`,
   * which uses one only for a state holding that very object.
   */
  data: Map<string, EncodedData>;
}

/**
 * A draft as the comparison takes it. A thin one (its item's state unchanged) is given accessors
 * in place of its item, canonical text and citation that throw: only a comparison that would
 * write the item reads them, and a batch whose comparison throws is tracked again document by
 * document, drafted on this thread — a thin draft can never be written as an item.
 */
export function wholeOrGuarded(draft: ItemDraft | ThinDraft): ItemDraft {
  if (!('thin' in draft)) return draft;
  const missing = (): never => {
    throw new Error(`the draft of ${draft.id} was answered without its item (its state unchanged)`);
  };
  // (enumerable: a copy of the draft, a spread, throws too)
  const guard = { get: missing, enumerable: true };
  return Object.defineProperties(draft, {
    item: guard,
    content: guard,
    citationInput: guard,
    citationOverride: guard,
  }) as unknown as ItemDraft;
}

/** Whether the thread answered `draft` thin (wholeOrGuarded): its item's state is unchanged. */
export const isThin = (draft: ItemDraft): boolean => 'thin' in draft;

/**
 * How long a batch's result waits for the thread to begin it before it waits for the answer alone
 * (`draftingOnThread`).
 */
const BEGIN_WAIT_MS = 1_000;

/** `Atomics.waitAsync` (ES2024; Node 16+), typed here as the project targets ES2022. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeout: number,
    ): { async: boolean; value: Promise<string> | string };
  }
).waitAsync;

/** A batch handed to the plugin's thread (draftingOnThread). */
export interface Drafting {
  /**
   * The drafts of each document (each its entries in every locale), made on the plugin's thread:
   * what core's documentDrafts returns for it, in order; with `encodeContents`, the keys and
   * stored bodies of their canonical texts too (a first build writes every one of them); with
   * `unchanged` (each document's DocumentKeys), the drafts that match them answered thin
   * (wholeOrGuarded) and a document they settle answered without drafts. Null when the thread is
   * not available or could not draft them (the caller drafts on its own thread then). With
   * `shared`, while the thread has not answered, this thread drafts the documents it has not
   * begun, from the last back.
   */
  result(): Promise<ThreadDrafts | null>;
}

/**
 * A batch handed to the plugin's thread now, its drafts awaited later (`result`). With `shared`,
 * the batch is drafted from both ends once its result is awaited: a whole-site pass awaits a
 * batch's drafts with nothing else to do (its batch before written), and on a machine of two cores
 * that wait left the main thread idle while the plugin's thread drafted alone. A re-compare of every document of 10k articles is
 * bound by the drafting: medians of ten runs 4.85 → 4.67 s (docs/measurements.md). The same
 * function drafts on either side (workers/drafting.ts `draftBatch`), so the items are the same
 * whichever thread made them; each document is claimed by one side only (`claims`).
 */
export function draftingOnThread(
  policy: TypePolicy,
  site: SiteContext,
  documents: readonly (readonly EntrySource[])[],
  {
    encodeContents = false,
    unchanged,
    shared = false,
    fresh,
  }: {
    encodeContents?: boolean;
    unchanged?: readonly DocumentKeys[];
    shared?: boolean;
    /** With `encodeContents`: the documents the thread compares too (DraftRequest `fresh`). */
    fresh?: DraftRequest['fresh'];
  } = {},
): Drafting {
  if (documents.length === 0 || !draftingFile()) return { result: async () => null };
  // (a thin draft has no canonical text to encode: with `encodeContents` none is thinned)
  const keys = unchanged && !encodeContents ? unchanged : undefined;
  const claims = shared ? new Int32Array(new SharedArrayBuffer(4 * documents.length)) : undefined;
  let answered = false;
  const asked = askThread<DraftAnswer>({
    kind: 'draft',
    policy,
    site,
    documents,
    encodeContents,
    ...(keys ? { unchanged: keys } : {}),
    ...(claims ? { claims } : {}),
    ...(fresh && encodeContents ? { fresh } : {}),
  } satisfies Omit<DraftRequest, 'id'>).then(
    (answer) => answer,
    () => null,
  );
  void asked.then(() => (answered = true));
  return {
    async result() {
      /** Documents drafted here, by position, with their texts encoded when asked. */
      const here = new Map<number, DraftedHere>();
      // Only a batch the thread has begun (its first document claimed) is drafted here too: one
      // it has not begun waits behind another or for the thread to start, and the thread stays the
      // one that drafts every batch's first documents.
      if (claims && !answered && Atomics.load(claims, 0) === NOBODY) {
        const begun = waitAsync(claims, 0, NOBODY, BEGIN_WAIT_MS);
        if (begun.async) await Promise.race([begun.value, asked]);
      }
      const begun = claims !== undefined && Atomics.load(claims, 0) === THREAD;
      for (let i = documents.length - 1; begun && i >= 0 && !answered; i -= 1) {
        if (!claim(claims, i, MAIN)) break;
        here.set(i, draftedHere(policy, site, documents[i]!, keys?.[i], encodeContents));
        // (the thread's answer is taken between two documents)
        await new Promise((resolve) => setImmediate(resolve));
      }
      const answer = await asked;
      if (!answer?.documents) return null;
      return merged(answer, documents, here);
    },
  };
}

/** One document drafted on this thread (Drafting's `result`), as the thread would answer it. */
interface DraftedHere {
  document: NonNullable<DraftAnswer['documents']>[number];
  encoded: EncodedContent[];
}

function draftedHere(
  policy: TypePolicy,
  site: SiteContext,
  entries: readonly EntrySource[],
  keys: DocumentKeys | undefined,
  encodeContents: boolean,
): DraftedHere {
  const answer = draftBatch({
    kind: 'draft',
    id: -1,
    policy,
    site,
    documents: [entries],
    ...(keys ? { unchanged: [keys] } : {}),
  });
  // (drafting threw: the thread meets the same error and the whole batch is drafted again)
  const document = answer.documents?.[0] ?? { drafts: [], unfilled: [], stolen: true as const };
  const encoded = encodeContents
    ? document.drafts.map((draft) => {
        const text = (draft as ItemDraft).content;
        return { text, key: blobKeyOfChecksum(draft.checksum), body: encodeBlob(text) };
      })
    : [];
  return { document, encoded };
}

/** The thread's answer with the documents it left to this thread (`here`) in their places. */
function merged(
  answer: DraftAnswer,
  documents: readonly (readonly EntrySource[])[],
  here: ReadonlyMap<number, DraftedHere>,
): ThreadDrafts | null {
  const encoded = new Map<string, EncodedContent>();
  const data = new Map<string, EncodedData>();
  const bodies = answer.contents ? unpacked(answer.contents) : [];
  const keys = answer.contentKeys ?? [];
  const dataBodies = answer.data ? unpacked(answer.data) : [];
  let next = 0;
  let nextData = 0;
  const result: ThreadDocument[] = [];
  for (const [i, fromThread] of answer.documents!.entries()) {
    const mine = fromThread.stolen ? here.get(i) : undefined;
    // (a document neither drafted: the batch is drafted again by the caller)
    if (fromThread.stolen && (!mine || mine.document.stolen)) return null;
    const { drafts, unfilled, settled } = mine ? mine.document : fromThread;
    const diff = mine ? undefined : fromThread.diff;
    // (a fresh document's texts follow its writes, each with its data's body)
    for (const { state } of diff?.writes ?? []) {
      const body = dataBodies[nextData];
      const key = keys[next];
      const contentBody = bodies[next];
      if (!body || key === undefined || !contentBody) return null;
      encoded.set(state.itemId, { text: state.content, key, body: contentBody });
      data.set(state.itemId, { data: cutData(state.data), body });
      next += 1;
      nextData += 1;
    }
    for (const [k, draft] of drafts.entries()) {
      if (mine) {
        const made = mine.encoded[k];
        if (made) encoded.set(draft.id, made);
      } else if (answer.contentKeys) {
        const text = (draft as ItemDraft).content;
        encoded.set(draft.id, { text, key: keys[next]!, body: bodies[next]! });
        next += 1;
      }
    }
    result.push({
      drafts: drafts.map(wholeOrGuarded),
      unfilled: unfilled.map((position) => documents[i]![position]!),
      ...(settled === undefined ? {} : { settled }),
      ...(mine ? { here: true } : {}),
      ...(diff ? { diff } : {}),
    });
  }
  return { documents: result, encoded, data };
}
