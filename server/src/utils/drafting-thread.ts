import type { DocumentDrafts, SiteContext, TypePolicy } from '../core/items';
import type { EntrySource, ItemDraft } from '../core/types';
import type { EncodedContent } from '../repositories/blob-repository';
import type { DocumentKeys, DraftAnswer, DraftRequest, ThinDraft } from '../workers/drafting';
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
 * fails, stops or throws, `draftOnThread` answers null and the caller drafts on its own thread:
 * the same core function, the same items.
 */

/** One document's drafts as the thread answers them: none for a settled one, with how many it had. */
export type ThreadDocument = DocumentDrafts & { settled?: number };

/** What the thread drafted: each document's drafts, and the canonical texts it encoded. */
export interface ThreadDrafts {
  documents: ThreadDocument[];
  /**
   * By item id, its draft's canonical text keyed and encoded (with `encodeContents`): a write's
   * `encoded`, which uses one only for a state of the same text.
   */
  encoded: Map<string, EncodedContent>;
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
 * The drafts of each document of `documents` (each its entries in every locale), made on the
 * plugin's thread: what core's documentDrafts returns for it, in order; with `encodeContents`,
 * the keys and stored bodies of their canonical texts too (a first build writes every one of
 * them); with `unchanged` (each document's DocumentKeys), the drafts that match them answered thin
 * (wholeOrGuarded) and a document they settle answered without drafts. Null when the thread is
 * not available or could not draft them (the caller drafts on its own thread then).
 */
export async function draftOnThread(
  policy: TypePolicy,
  site: SiteContext,
  documents: readonly (readonly EntrySource[])[],
  {
    encodeContents = false,
    unchanged,
  }: { encodeContents?: boolean; unchanged?: readonly DocumentKeys[] } = {},
): Promise<ThreadDrafts | null> {
  if (documents.length === 0 || !draftingFile()) return null;
  let answer: DraftAnswer;
  try {
    answer = await askThread<DraftAnswer>({
      kind: 'draft',
      policy,
      site,
      documents,
      encodeContents,
      // (a thin draft has no canonical text to encode: with `encodeContents` none is thinned)
      ...(unchanged && !encodeContents ? { unchanged } : {}),
    } satisfies Omit<DraftRequest, 'id'>);
  } catch {
    return null;
  }
  if (!answer.documents) return null;
  const encoded = new Map<string, EncodedContent>();
  if (answer.contents && answer.contentKeys) {
    const bodies = unpacked(answer.contents);
    const keys = answer.contentKeys;
    let i = 0;
    for (const { drafts } of answer.documents)
      for (const draft of drafts) {
        const text = (draft as ItemDraft).content;
        encoded.set(draft.id, { text, key: keys[i]!, body: bodies[i]! });
        i += 1;
      }
  }
  return {
    documents: answer.documents.map(({ drafts, unfilled, settled }, i) => ({
      drafts: drafts.map(wholeOrGuarded),
      unfilled: unfilled.map((position) => documents[i]![position]!),
      ...(settled === undefined ? {} : { settled }),
    })),
    encoded,
  };
}
