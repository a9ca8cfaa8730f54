import { documentDrafts, type SiteContext, type TypePolicy } from '../core/items';
import type { EntrySource, ItemDraft } from '../core/types';

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
}

/**
 * Each document's items and the positions of its entries that cannot be placed; or, when drafting
 * threw, only why (the main thread then drafts the batch itself, and meets the same error there).
 */
export interface DraftAnswer {
  id: number;
  documents?: { drafts: ItemDraft[]; unfilled: number[] }[];
  error?: string;
  /** With `encodeContents`: the stored body of each draft's content, in order, end to end. */
  contents?: { bytes: Uint8Array; lengths: Uint32Array };
}

/**
 * Draft a batch; `between` is called after each document (the thread answers there what was asked
 * of it meanwhile, see utils/plugin-thread.ts).
 */
export function draftBatch(
  { id, policy, site, documents }: DraftRequest,
  between: () => void = () => undefined,
): DraftAnswer {
  try {
    return {
      id,
      documents: documents.map((entries) => {
        const { drafts, unfilled } = documentDrafts(entries, policy, site);
        between();
        return { drafts, unfilled: unfilled.map((entry) => entries.indexOf(entry)) };
      }),
    };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}
