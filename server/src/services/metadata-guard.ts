import { repositories } from '../repositories';
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { ACTIONS, actionUid } from '../core/actions';
import { stableStringify } from '../core/canonical';
import { METADATA_ATTRIBUTE } from '../../../shared/constants';
import { entryMetadataSchema } from '../../../shared/metadata-schema';
import { settingsIssues } from '../../../shared/settings-schema';
import { getService } from '../utils/get-service';

/** What the document service tells its middlewares about an action. */
export interface DocumentContext {
  uid: string;
  action: string;
  contentType?: {
    options?: { draftAndPublish?: boolean };
    attributes?: Record<string, { type?: string }>;
  };
  params?: { documentId?: string; locale?: string; data?: unknown };
}

/** Document actions that write an entry's data (and so maybe its `sitemapAi`). */
const WRITE_ACTIONS = new Set(['create', 'update', 'clone']);

export interface Ability {
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
 * The server-side guard of the editors' `sitemapAi` values (README › In the admin), run by the
 * change-tracking middleware before every document action; it checks creates, updates and clones.
 */
export const createMetadataGuardService = ({ strapi }: { strapi: Core.Strapi }) => {
  const sources = repositories(strapi).sources;

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
    if (!WRITE_ACTIONS.has(ctx.action)) return;
    const data = ctx.params?.data;
    if (typeof data !== 'object' || data === null || !Object.hasOwn(data, METADATA_ATTRIBUTE))
      return;
    const attribute = ctx.contentType?.attributes
      ? ctx.contentType.attributes[METADATA_ATTRIBUTE]
      : getService(strapi, 'config').schemas.attribute(ctx.uid, METADATA_ATTRIBUTE);
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

  return { guard };
};

export type MetadataGuardService = ReturnType<typeof createMetadataGuardService>;
