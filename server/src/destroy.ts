import type { Core } from '@strapi/strapi';
import { getService } from './utils/get-service';
import { releaseHeapBudget } from './utils/heap-budget';
import { stopPluginThread } from './utils/plugin-thread';

/** Track what publishes queued, stop the access-log writer, the schedule, the webhook delivery loop and the plugin's thread (text encoding, drafting) (no orphan timers or threads) and forget module-level state so a reboot in the same process starts clean. */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await getService(strapi, 'tracker').stop();
  await getService(strapi, 'access-log').stop();
  await getService(strapi, 'rate-limit').stop();
  await getService(strapi, 'scheduler').stop();
  await getService(strapi, 'webhooks').stopDeliveryLoop();
  await getService(strapi, 'instances').stop();
  getService(strapi, 'config').reset();
  releaseHeapBudget(strapi);
  await stopPluginThread();
};
