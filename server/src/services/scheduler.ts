import cron, { type ScheduledTask } from 'node-cron';
import type { Core } from '@strapi/strapi';
import { getService } from '../utils/get-service';

/**
 * The scheduled incremental rebuild (docs/protocol.md §4): a named node-cron task started
 * in bootstrap and destroyed in destroy. Every instance ticks; the build lock
 * lets exactly one of them build.
 */
export const createScheduler = ({ strapi }: { strapi: Core.Strapi }) => {
  let task: ScheduledTask | null = null;
  let ticks = 0;

  const scheduler = {
    start(): void {
      const { schedule } = getService(strapi, 'settings').config();
      if (!schedule.enabled || task) return;
      task = cron.schedule(
        schedule.cron,
        async (context) => {
          ticks += 1;
          // The tick's scheduled time, the same on every instance: at most one of them builds for it.
          const tick = new Date(Math.floor(context.date.getTime() / 1000) * 1000).toISOString();
          try {
            await getService(strapi, 'snapshot-builder').rebuild({ trigger: 'schedule', tick });
          } catch (error) {
            strapi.log.error(
              `[sitemap-ai] scheduled rebuild failed: ${error instanceof Error ? error.stack : String(error)}`,
            );
          }
        },
        { name: 'sitemap-ai-rebuild', noOverlap: true },
      );
    },

    async stop(): Promise<void> {
      if (!task) return;
      const stopping = task;
      task = null;
      await stopping.destroy();
    },

    /** Stop, then start with the current schedule (a change in Settings). */
    async restart(): Promise<void> {
      await scheduler.stop();
      scheduler.start();
    },

    /** Whether the task is scheduled now. */
    isRunning: () => task !== null,

    ticks: () => ticks,
  };
  return scheduler;
};
