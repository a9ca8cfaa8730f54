import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../shared/constants';
import { ACTIONS } from './core/actions';
import { repositories } from './repositories';
import { getService } from './utils/get-service';
import { setHeapBudget } from './utils/heap-budget';
import { createRevalidation } from './middlewares/revalidation';

const ACTION_NAMES: Record<string, { displayName: string; subCategory: string }> = {
  [ACTIONS.readSettings]: { displayName: 'Read settings', subCategory: 'settings' },
  [ACTIONS.updateSettings]: { displayName: 'Update settings', subCategory: 'settings' },
  [ACTIONS.editFields]: { displayName: 'Edit AI fields of entries', subCategory: 'editing' },
  [ACTIONS.rebuild]: { displayName: 'Rebuild the manifest', subCategory: 'manifest' },
  [ACTIONS.readDashboard]: { displayName: 'Read the dashboard', subCategory: 'manifest' },
};

/**
 * Registers the plugin's permissions, checks the enabled types against their
 * schemas (a bad field name stops start-up, naming the config key), builds
 * the first snapshot when none exists, and starts the schedule and the
 * webhook delivery loop.
 */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  // After the app's middlewares, before the router: a manifest page's 304 (middlewares/revalidation.ts).
  strapi.server.use(createRevalidation(strapi));
  const permission = strapi.admin.services.permission;
  if (!permission) throw new Error('sitemap-ai needs the admin permission service of Strapi 5');
  await permission.actionProvider.registerMany(
    Object.entries(ACTION_NAMES).map(([uid, { displayName, subCategory }]) => ({
      section: 'plugins',
      displayName,
      uid,
      subCategory,
      pluginName: PLUGIN_ID,
    })),
  );
  const config = getService(strapi, 'config');
  // The Settings saved in the admin go on top of the file config from here on (nothing follows
  // the config yet: the schedule starts below with what is loaded now).
  await config.load();
  await config.loadTokenSecret();
  config.enabledTypes();
  setHeapBudget(config.config().buildHeapBudgetMb, strapi);
  // A change of config/plugins since the last start is logged here and applied by the next rebuild.
  await getService(strapi, 'settings').noticeFileConfig();
  await repositories(strapi).states.movePendingMarks();
  // This instance's presence (and config) for the others on the database.
  const instances = getService(strapi, 'instances');
  await instances.heartbeat();
  instances.start();
  if (config.config().rebuildOnBootstrap) {
    const current = await getService(strapi, 'manifest')
      .current()
      .catch(() => null);
    // A published snapshot whose items are not in the database: the site's data was moved without
    // the plugin's own tables (`strapi transfer` and `strapi export` carry content types only,
    // and states, versions, changelog and texts are plain tables). Built again from the entries.
    const lost =
      current !== null &&
      current.itemCount > 0 &&
      !(await repositories(strapi).items.anyValidIn(current.seq));
    if (lost)
      strapi.log.warn(
        `[sitemap-ai] snapshot ${current.seq} is published but none of its ${current.itemCount} items is in the database (data moved without the plugin's tables?): building the manifest again from the entries`,
      );
    if (!current || lost) {
      try {
        await getService(strapi, 'snapshot-builder').rebuild({ trigger: 'bootstrap', full: lost });
      } catch (error) {
        strapi.log.error(
          `[sitemap-ai] first snapshot failed: ${error instanceof Error ? error.stack : String(error)}`,
        );
      }
    }
  }
  getService(strapi, 'scheduler').start();
  getService(strapi, 'webhooks').startDeliveryLoop();
  getService(strapi, 'access-log').start();
};
