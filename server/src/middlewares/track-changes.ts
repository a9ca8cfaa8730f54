import type { Core } from '@strapi/strapi';
import type { DocumentContext } from '../services/metadata-guard';
import { getService } from '../utils/get-service';

/** Document actions that can change what is published. */
const PUBLISHED_ACTIONS = new Set(['publish', 'unpublish', 'delete', 'discardDraft']);
/** Without draft & publish, saving is publishing. */
const LIVE_ACTIONS = new Set(['create', 'update', 'delete', 'clone']);

/** Document actions that write an entry's data (and so maybe its `sitemapAi`). */
const WRITE_ACTIONS = new Set(['create', 'update', 'clone']);

/**
 * Document-service middleware (docs/protocol.md §3.1; README › In the admin): before a create, update or clone
 * it guards the editors' `sitemapAi` values (the metadata-guard service); after a publish, unpublish, delete or
 * discard of an enabled type — or any save of a type without draft & publish —
 * it records what changed in the published content, with the editor's reason.
 * Only the guard refuses a save; the recording never fails the editor's action: what cannot be recorded is marked dirty
 * (and logged) for the next rebuild to reconcile. It never rebuilds.
 */
export function createTrackChangesMiddleware({ strapi }: { strapi: Core.Strapi }) {
  return async (ctx: DocumentContext, next: () => Promise<unknown>) => {
    if (WRITE_ACTIONS.has(ctx.action)) await getService(strapi, 'metadata-guard').guard(ctx);
    const result = await next();
    const settings = getService(strapi, 'config');
    if (!settings.trackedUids().has(ctx.uid)) return result;
    const draftAndPublish = ctx.contentType?.options?.draftAndPublish !== false;
    const relevant = draftAndPublish ? PUBLISHED_ACTIONS : LIVE_ACTIONS;
    if (!relevant.has(ctx.action)) return result;
    const documentId =
      ctx.params?.documentId ??
      (result && typeof result === 'object' && 'documentId' in result
        ? String((result as { documentId: unknown }).documentId)
        : undefined);
    if (!documentId) return result;
    const run = () => getService(strapi, 'tracker').recordChange(ctx.uid, documentId, ctx.action);
    if (strapi.db.inTransaction()) {
      // Record after the surrounding transaction commits, outside it: a failure here must not roll back the save.
      await strapi.db.transaction(async ({ onCommit }) => {
        onCommit(() => void run());
      });
    } else {
      await run();
    }
    return result;
  };
}
