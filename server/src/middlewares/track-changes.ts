import type { Core } from '@strapi/strapi';
import { createDirtyRepository } from '../repositories/dirty-repository';
import { getService } from '../utils/get-service';

/** Document actions that can change what is published. */
const PUBLISHED_ACTIONS = new Set(['publish', 'unpublish', 'delete', 'discardDraft']);
/** Without draft & publish, saving is publishing. */
const LIVE_ACTIONS = new Set(['create', 'update', 'delete', 'clone']);

interface DocumentContext {
  uid: string;
  action: string;
  contentType?: { options?: { draftAndPublish?: boolean } };
  params?: { documentId?: string };
}

/**
 * Document-service middleware (SPEC §4): after a publish, unpublish, delete or
 * discard of an enabled type — or any save of a type without draft & publish —
 * it records what changed in the published content, with the editor's reason.
 * It never fails the editor's action: what cannot be recorded is marked dirty
 * (and logged) for the next rebuild to reconcile. It never rebuilds.
 */
export function createTrackChangesMiddleware({ strapi }: { strapi: Core.Strapi }) {
  const dirty = createDirtyRepository({ strapi });

  async function record(uid: string, documentId: string, action: string): Promise<void> {
    try {
      await getService(strapi, 'tracker').trackDocument(uid, documentId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      strapi.log.warn(`[sitemap-ai] change of ${uid} ${documentId} (${action}) not recorded now, marked for the next rebuild: ${message}`);
      try {
        await dirty.mark(uid, documentId, action, message);
      } catch (markError) {
        strapi.log.error(
          `[sitemap-ai] could not mark ${uid} ${documentId} dirty either (${markError instanceof Error ? markError.message : String(markError)}); a full rebuild will reconcile it`,
        );
      }
    }
  }

  return async (ctx: DocumentContext, next: () => Promise<unknown>) => {
    const result = await next();
    const settings = getService(strapi, 'settings');
    if (!settings.trackedUids().has(ctx.uid)) return result;
    const draftAndPublish = ctx.contentType?.options?.draftAndPublish !== false;
    const relevant = draftAndPublish ? PUBLISHED_ACTIONS : LIVE_ACTIONS;
    if (!relevant.has(ctx.action)) return result;
    const documentId =
      ctx.params?.documentId ??
      (result && typeof result === 'object' && 'documentId' in result ? String((result as { documentId: unknown }).documentId) : undefined);
    if (!documentId) return result;
    const run = () => record(ctx.uid, documentId, ctx.action);
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
