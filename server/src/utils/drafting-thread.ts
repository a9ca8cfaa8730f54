import type { DocumentDrafts, SiteContext, TypePolicy } from '../core/items';
import type { EntrySource } from '../core/types';
import type { DraftAnswer, DraftRequest } from '../workers/drafting';
import { askThread, draftingFile } from './plugin-thread';

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

/**
 * The drafts of each document of `documents` (each its entries in every locale), made on the
 * plugin's thread: what core's documentDrafts returns for it, in order. Null when the thread is
 * not available or could not draft them (the caller drafts on its own thread then).
 */
export async function draftOnThread(
  policy: TypePolicy,
  site: SiteContext,
  documents: readonly (readonly EntrySource[])[],
): Promise<DocumentDrafts[] | null> {
  if (documents.length === 0 || !draftingFile()) return null;
  let answer: DraftAnswer;
  try {
    answer = await askThread<DraftAnswer>({
      kind: 'draft',
      policy,
      site,
      documents,
    } satisfies Omit<DraftRequest, 'id'>);
  } catch {
    return null;
  }
  if (!answer.documents) return null;
  return answer.documents.map(({ drafts, unfilled }, i) => ({
    drafts,
    unfilled: unfilled.map((position) => documents[i]![position]!),
  }));
}
