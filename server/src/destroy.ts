import type { Core } from '@strapi/strapi';
import { getService } from './utils/get-service';

/** Stop the schedule (no orphan timers) and forget module-level state so a reboot in the same process starts clean. */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await getService(strapi, 'scheduler').stop();
  getService(strapi, 'settings').reset();
};
