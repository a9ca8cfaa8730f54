import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { ACTIONS, actionUid } from '../core/actions';
import { stableStringify } from '../core/canonical';
import { METADATA_ATTRIBUTE } from '../../../shared/constants';
import { entryMetadataSchema } from '../core/metadata';
import { createDirtyRepository } from '../repositories/dirty-repository';
import { createSourceRepository } from '../repositories/source-repository';
import { settingsIssues } from '../../../shared/settings-schema';
import { getService } from '../utils/get-service';

/** Document actions that can change what is published. */
const PUBLISHED_ACTIONS = new Set(['publish', 'unpublish', 'delete', 'discardDraft']);
/** Without draft & publish, saving is publishing. */
const LIVE_ACTIONS = new Set(['create', 'update', 'delete', 'clone']);

/** Document actions that write an entry's data (and so maybe its `sitemapAi`). */
const WRITE_ACTIONS = new Set(['create', 'update', 'clone']);

interface DocumentContext {
  uid: string;
  action: string;
  contentType?: {
    options?: { draftAndPublish?: boolean };
    attributes?: Record<string, { type?: string }>;
  };
  params?: { documentId?: string; locale?: string; data?: unknown };
}

interface Ability {
  can(action: string, subject?: unknown): boolean;
}

/** A stored or submitted `sitemapAi` value, compared by content: null, undefined and `{}` are all "nothing set". */
function normalised(value: unknown): string {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return stableStringify(value);
    }
  }
  if (parsed === undefined || parsed === null) return 'null';
  if (typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 0)
    return 'null';
  return stableStringify(parsed);
}

/**
 * Document-service middleware (docs/protocol.md §3.1; README › In the admin): before a create, update or clone
 * it guards the editors' `sitemapAi` values (see `guard`); after a publish, unpublish, delete or
 * discard of an enabled type — or any save of a type without draft & publish —
 * it records what changed in the published content, with the editor's reason.
 * Only the guard refuses a save; the recording never fails the editor's action: what cannot be recorded is marked dirty
 * (and logged) for the next rebuild to reconcile. It never rebuilds.
 */
export function createTrackChangesMiddleware({ strapi }: { strapi: Core.Strapi }) {
  const dirty = createDirtyRepository({ strapi });
  const sources = createSourceRepository({ strapi });

  /**
   * The server-side guard of the editors' values (docs/protocol.md §7; README › In the admin), before the
   * save: a `sitemapAi` value that does not validate is refused with a 400
   * naming the field (nothing is saved); an admin request that changes it
   * needs the plugin's "edit AI fields" permission (403 otherwise) — field-level
   * RBAC of the Content Manager cannot protect a hidden attribute. Calls
   * without a request context (scripts, seeds, the document service in
   * tests) and content-API calls are not admin requests and are not checked
   * for the permission.
   */
  async function guard(ctx: DocumentContext): Promise<void> {
    const data = ctx.params?.data;
    if (typeof data !== 'object' || data === null || !Object.hasOwn(data, METADATA_ATTRIBUTE))
      return;
    const attribute = (ctx.contentType?.attributes ??
      (strapi.contentType(ctx.uid as never) as DocumentContext['contentType'])?.attributes)?.[
      METADATA_ATTRIBUTE
    ];
    if (attribute?.type !== 'json') return;
    const value = (data as Record<string, unknown>)[METADATA_ATTRIBUTE];
    if (value !== null && value !== undefined) {
      const parsed = entryMetadataSchema.safeParse(value);
      if (!parsed.success) {
        const problems = settingsIssues(parsed.error.issues, (path) => [
          METADATA_ATTRIBUTE,
          ...path,
        ]);
        throw new errors.ValidationError(problems.map((p) => p.message).join('; '), {
          errors: problems.map((p) => ({
            path: p.path,
            message: p.message,
            name: 'ValidationError',
          })),
        });
      }
    }
    const ability = (strapi.requestContext.get()?.state as { userAbility?: Ability } | undefined)
      ?.userAbility;
    if (!ability || ability.can(actionUid(ACTIONS.editFields))) return;
    const stored =
      ctx.action === 'create' || !ctx.params?.documentId
        ? undefined
        : await sources.storedMetadata(ctx.uid, ctx.params.documentId, ctx.params.locale);
    if (normalised(value) === normalised(stored)) return;
    // A PolicyError is the ForbiddenError whose message Strapi's router passes on (it answers a plain one with "Forbidden").
    throw new errors.PolicyError(
      `Changing the AI fields of an entry (${METADATA_ATTRIBUTE}) needs the permission "Edit AI fields of entries" (${actionUid(ACTIONS.editFields)})`,
    );
  }

  async function record(uid: string, documentId: string, action: string): Promise<void> {
    try {
      await getService(strapi, 'tracker').trackDocument(uid, documentId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      strapi.log.warn(
        `[sitemap-ai] change of ${uid} ${documentId} (${action}) not recorded now, marked for the next rebuild: ${message}`,
      );
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
    if (WRITE_ACTIONS.has(ctx.action)) await guard(ctx);
    const result = await next();
    const settings = getService(strapi, 'settings');
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
