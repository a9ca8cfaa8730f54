import type { Core } from '@strapi/strapi';

export const LOCK_UID = 'plugin::sitemap-ai.lock' as const;

/**
 * Named leases in the database (one builder at a time across Strapi instances). A lease has a
 * short expiry and is renewed while its holder works; each acquisition has its own token, so a
 * holder whose lease expired and was taken by another instance finds out at its next renewal
 * (fencing) instead of writing on. Taking a lease is one atomic statement: an update of an
 * expired or own row, or an insert (unique name).
 */
export const createLockRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(LOCK_UID);
  return {
    async acquire(name: string, token: string, ttlMs: number, now = Date.now()): Promise<boolean> {
      const expires = now + ttlMs;
      const taken = (await query().updateMany({
        where: { name, $or: [{ expires_at: { $lt: now } }, { owner: token }] },
        data: { owner: token, expires_at: expires },
      })) as { count: number };
      if (Number(taken.count) === 1) return true;
      const existing = await query().findOne({ where: { name }, select: ['id'] });
      if (existing) return false;
      try {
        await query().create({ data: { name, owner: token, expires_at: expires } });
        return true;
      } catch {
        return false;
      }
    },

    /**
     * Whether the lease is still held under `token` (another instance has not taken it): a read,
     * so a build can fence each of its writes without a commit of its own (renewal has its timer).
     */
    async holds(name: string, token: string): Promise<boolean> {
      return (await query().findOne({ where: { name, owner: token }, select: ['id'] })) !== null;
    },

    /** Extend a lease still held under `token`; false when it expired and another took it. */
    async renew(name: string, token: string, ttlMs: number, now = Date.now()): Promise<boolean> {
      const renewed = (await query().updateMany({
        where: { name, owner: token },
        data: { expires_at: now + ttlMs },
      })) as { count: number };
      return Number(renewed.count) === 1;
    },

    /** Leases whose name starts with `prefix` and that have not expired at `now`. */
    async live(
      prefix: string,
      now = Date.now(),
    ): Promise<{ name: string; owner: string; expiresAt: number }[]> {
      const rows = (await query().findMany({
        where: { name: { $startsWith: prefix }, expires_at: { $gte: now } },
        select: ['name', 'owner', 'expires_at'],
      })) as { name: string; owner: string; expires_at: number | string }[];
      return rows.map((row) => ({
        name: row.name,
        owner: row.owner,
        expiresAt: Number(row.expires_at),
      }));
    },

    /** Drop leases whose name starts with `prefix` and that expired before `now`. */
    async prune(prefix: string, now = Date.now()): Promise<void> {
      await query().deleteMany({
        where: { name: { $startsWith: prefix }, expires_at: { $lt: now } },
      });
    },

    async release(name: string, token: string): Promise<void> {
      await query().deleteMany({ where: { name, owner: token } });
    },
  };
};

export type LockRepository = ReturnType<typeof createLockRepository>;
