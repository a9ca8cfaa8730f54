import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Context } from 'koa';
import { validateEntryPanelRequest } from '../core/params';
import { getService } from '../utils/get-service';

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
    const { uid, documentId, locale } = validateEntryPanelRequest(ctx.params ?? {}, ctx.query);
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
