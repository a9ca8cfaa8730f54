import type { Core } from '@strapi/strapi';

export const LOCK_UID = 'plugin::sitemap-ai.lock' as const;

/**
 * Named locks with an expiry in the database (SPEC §6: one builder per tick
 * across Strapi instances). Taking a lock is one atomic statement: an insert
 * (unique name) or an update of an expired or own row.
 */
export const createLockRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(LOCK_UID);
  return {
    async acquire(name: string, owner: string, ttlMs: number, now = Date.now()): Promise<boolean> {
      const expires = now + ttlMs;
      const taken = (await query().updateMany({
        where: { name, $or: [{ expires_at: { $lt: now } }, { owner }] },
        data: { owner, expires_at: expires },
      })) as { count: number };
      if (Number(taken.count) === 1) return true;
      const existing = await query().findOne({ where: { name }, select: ['id'] });
      if (existing) return false;
      try {
        await query().create({ data: { name, owner, expires_at: expires } });
        return true;
      } catch {
        return false;
      }
    },

    async release(name: string, owner: string): Promise<void> {
      await query().deleteMany({ where: { name, owner } });
    },
  };
};

export type LockRepository = ReturnType<typeof createLockRepository>;
