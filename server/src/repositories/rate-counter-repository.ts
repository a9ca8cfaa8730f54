import type { Core } from '@strapi/strapi';
import type { CounterDelta, CounterStore } from '../core/rate-limit';

export const RATE_COUNTER_UID = 'plugin::sitemap-ai.rate-counter' as const;

/** Buckets per statement (well under every database's parameter limit). */
const CHUNK = 300;

/**
 * The shared rate-limit counts in the database (the default store). Each instance writes only
 * its own row per bucket — an increment, or an insert the first time — so instances never
 * contend for a row; the total of a bucket is the sum over the instances' rows. One
 * transaction per sync.
 */
export const createRateCounterRepository = (
  { strapi }: { strapi: Core.Strapi },
  instance: string,
): CounterStore => {
  const table = () => strapi.db.metadata.get(RATE_COUNTER_UID).tableName;
  return {
    async add(deltas: readonly CounterDelta[], now: number): Promise<Map<string, number>> {
      const totals = new Map<string, number>();
      if (deltas.length === 0) return totals;
      await strapi.db.connection.transaction(async (trx) => {
        for (const { bucket, delta, expiresAt } of deltas) {
          const updated = await trx(table()).where({ bucket, instance }).increment('hits', delta);
          if (Number(updated) === 0)
            await trx(table()).insert({ bucket, instance, hits: delta, expires_at: expiresAt });
        }
        for (let i = 0; i < deltas.length; i += CHUNK) {
          const buckets = deltas.slice(i, i + CHUNK).map((d) => d.bucket);
          const rows = (await trx(table())
            .whereIn('bucket', buckets)
            .andWhere('expires_at', '>', now)
            .groupBy('bucket')
            .select('bucket')
            .sum({ total: 'hits' })) as { bucket: string; total: number | string | null }[];
          for (const row of rows) totals.set(row.bucket, Number(row.total ?? 0));
        }
      });
      return totals;
    },

    async prune(now: number): Promise<void> {
      await strapi.db.connection(table()).where('expires_at', '<=', now).delete();
    },

    async close(): Promise<void> {},
  };
};
