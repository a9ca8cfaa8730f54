import type { Core } from '@strapi/strapi';
import type { DocumentContext } from '../services/metadata-guard';
import { getService } from '../utils/get-service';

/** The document an action ran on: named in its parameters, else in what it returned (a create). */
function documentIdOf(ctx: DocumentContext, result: unknown): string | undefined {
  if (ctx.params?.documentId) return ctx.params.documentId;
  return result && typeof result === 'object' && 'documentId' in result
    ? String((result as { documentId: unknown }).documentId)
    : undefined;
}

/**
 * Document-service middleware (docs/protocol.md §3.1; README › In the admin), a dispatcher: before
 * the action, the metadata-guard service checks the editors' `sitemapAi` values (the only part
 * that may refuse a save) and the tracker records a still-queued earlier action on the same
 * document; after it, within the action's transaction, the tracker marks and queues what changed
 * in the published content. The recording never fails the editor's action and never rebuilds
 * (services/tracker.ts).
 */
export function createTrackChangesMiddleware({ strapi }: { strapi: Core.Strapi }) {
  return async (ctx: DocumentContext, next: () => Promise<unknown>) => {
    await getService(strapi, 'metadata-guard').guard(ctx);
    if (ctx.params?.documentId)
      await getService(strapi, 'tracker').settleDocument(ctx.uid, ctx.params.documentId);
    const tracker = getService(strapi, 'tracker');
    const action = {
      uid: ctx.uid,
      action: ctx.action,
      draftAndPublish: ctx.contentType?.options?.draftAndPublish !== false,
    };
    if (!tracker.tracks(action)) return next();
    // The action and its mark in one transaction: one commit, not the action's and then the mark's.
    return strapi.db.transaction(async () => {
      const result = await next();
      await tracker.documentActed({ ...action, documentId: documentIdOf(ctx, result) });
      return result;
    });
  };
}
