import type { Core } from '@strapi/strapi';
import { getService } from './utils/get-service';

/**
 * Checks the enabled types against their schemas (a bad field name stops
 * start-up, naming the config key) and builds the first snapshot when none
 * exists yet.
 */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = getService(strapi, 'settings');
  settings.enabledTypes();
  if (!settings.config().rebuildOnBootstrap) return;
  const current = await getService(strapi, 'manifest')
    .current()
    .catch(() => null);
  if (current) return;
  try {
    await getService(strapi, 'snapshot-builder').rebuild({ trigger: 'bootstrap' });
  } catch (error) {
    strapi.log.error(`[sitemap-ai] first snapshot failed: ${error instanceof Error ? error.stack : String(error)}`);
  }
};
