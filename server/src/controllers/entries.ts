import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context } from 'koa';
import { InvalidParameterError } from '../core/errors';
import { getService } from '../utils/get-service';

const UID = /^(api|plugin)::[a-z0-9-]+\.[a-z0-9-]+$/;
/** Strapi 5 document ids are short lowercase alphanumerics; accept a little more, nothing that could be a path. */
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

interface Ability {
  can(action: string, subject?: unknown): boolean;
}

/** The editors' panel data (README › In the admin). Admin JWT + `fields.edit` (routes/admin.ts). */
export const createEntriesController = ({ strapi }: { strapi: Core.Strapi }) => ({
  /** Content types enabled for the manifest now: where the panel shows. */
  async types(ctx: Context) {
    ctx.body = { data: getService(strapi, 'config').enabledContentTypes() };
  },

  async panel(ctx: Context) {
    const { uid, documentId } = ctx.params as { uid?: string; documentId?: string };
    if (typeof uid !== 'string' || !UID.test(uid))
      throw new InvalidParameterError(
        'uid',
        'must be a content-type UID such as api::article.article',
      );
    if (typeof documentId !== 'string' || !DOCUMENT_ID.test(documentId))
      throw new InvalidParameterError('documentId', 'must be a document id');
    const { locale, ...rest } = ctx.query;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidParameterError(unknown[0]!, 'unknown parameter; allowed is locale');
    if (locale !== undefined && (typeof locale !== 'string' || !LOCALE.test(locale))) {
      throw new InvalidParameterError('locale', 'must be one BCP-47 language tag such as en or sk');
    }
    // The panel shows a draft: only to whom the Content Manager shows that type.
    const ability = (ctx.state as { userAbility?: Ability }).userAbility;
    if (!ability?.can('plugin::content-manager.explorer.read', uid)) {
      // PolicyError: the ForbiddenError whose message Strapi's router passes on.
      throw new errors.PolicyError(
        `Reading ${uid} in the Content Manager is not allowed for this user`,
      );
    }
    ctx.body = { data: await getService(strapi, 'entry-panel').panel(uid, documentId, locale) };
  },
});
