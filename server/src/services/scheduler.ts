import cron, { type ScheduledTask } from 'node-cron';
import type { Core } from '@strapi/strapi';
import { stableStringify } from '../core/canonical';
import { getService } from '../utils/get-service';

/**
 * The scheduled incremental rebuild (docs/protocol.md §4): a named node-cron task started
 * in bootstrap and destroyed in destroy. Every instance ticks; the build lock
 * lets exactly one of them build. It follows the Settings itself: from `start()` on, a change
 * of the schedule ("config changed", the events service) restarts the task.
 */
export const createScheduler = ({ strapi }: { strapi: Core.Strapi }) => {
  let task: ScheduledTask | null = null;
  let ticks = 0;
  let unsubscribe: (() => void) | null = null;

  function scheduleTask(): void {
    const { schedule } = getService(strapi, 'config').config();
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
  }

  async function unschedule(): Promise<void> {
    if (!task) return;
    const stopping = task;
    task = null;
    await stopping.destroy();
  }

  const scheduler = {
    /** Schedule the rebuild (when the schedule is on) and follow changes of the schedule. */
    start(): void {
      unsubscribe ??= getService(strapi, 'events').onConfigChanged(async ({ before, after }) => {
        if (stableStringify(before.schedule) === stableStringify(after.schedule)) return;
        await unschedule();
        scheduleTask();
      });
      scheduleTask();
    },

    /** Stop the task and stop following the Settings (destroy). */
    async stop(): Promise<void> {
      unsubscribe?.();
      unsubscribe = null;
      await unschedule();
    },

    /** Whether the task is scheduled now. */
    isRunning: () => task !== null,

    ticks: () => ticks,
  };
  return scheduler;
};

export type Scheduler = ReturnType<typeof createScheduler>;
