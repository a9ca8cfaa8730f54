import type { Core } from '@strapi/strapi';
import { getService } from './utils/get-service';

/** Forget module-level state so a reboot in the same process starts clean. */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  getService(strapi, 'settings').reset();
};
