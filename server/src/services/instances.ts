import { repositories } from '../repositories';
import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { DAY_MS } from '../../../shared/constants';
import { getService } from '../utils/get-service';
import { messageOf } from '../core/errors';

const PREFIX = 'instance:';
/** Each instance says every HEARTBEAT_MS that it is alive and with which config; PRESENCE_MS without it and it is gone. */
const HEARTBEAT_MS = 60_000;
const PRESENCE_MS = 3 * HEARTBEAT_MS;

/** What an instance reports: the fingerprints of its file config and of its effective policy. */
export interface InstancePresence {
  id: string;
  /** Fingerprint of config/plugins as this instance read it (env values included). */
  file: string;
  /** Fingerprint of the effective site policy (file config and stored Settings). */
  policy: string;
  expiresAt: number;
}

/**
 * The Strapi instances serving one database (README: "Several instances"): each keeps a
 * presence lease saying which config it runs with, so that instances whose config/plugins
 * differ (an `apiUrl` taken from the port, a forgotten env value) are noticed instead of
 * re-versioning the whole site back and forth at every build.
 */
export const createInstancesService = ({ strapi }: { strapi: Core.Strapi }) => {
  const leases = repositories(strapi).locks;
  const id = randomUUID();
  let timer: ReturnType<typeof setInterval> | null = null;
  let reported = '';

  const presence = (): Omit<InstancePresence, 'id' | 'expiresAt'> => {
    const config = getService(strapi, 'config');
    return { file: config.fileFingerprint(), policy: config.policyFingerprint() };
  };

  const service = {
    id,

    /** Renew this instance's presence (with its current config) and forget long-gone ones. */
    async heartbeat(now = Date.now()): Promise<void> {
      const owner = JSON.stringify(presence());
      const name = `${PREFIX}${id}`;
      if (!(await leases.renew(name, owner, PRESENCE_MS, now))) {
        // The owner column holds what this instance reports, so a changed config is a new lease.
        await leases.release(name, reported);
        await leases.acquire(name, owner, PRESENCE_MS, now);
      }
      reported = owner;
      await leases.prune(PREFIX, now - DAY_MS);
    },

    /** The instances alive now, this one included. */
    async live(now = Date.now()): Promise<InstancePresence[]> {
      const rows = await leases.live(PREFIX, now);
      const result: InstancePresence[] = [];
      for (const row of rows) {
        try {
          const parsed = JSON.parse(row.owner) as { file?: unknown; policy?: unknown };
          if (typeof parsed.file === 'string' && typeof parsed.policy === 'string')
            result.push({
              id: row.name.slice(PREFIX.length),
              file: parsed.file,
              policy: parsed.policy,
              expiresAt: row.expiresAt,
            });
        } catch {
          // Not a presence this version wrote: ignored.
        }
      }
      return result;
    },

    /** Other live instances whose config/plugins differs from this one's. */
    async disagreeing(now = Date.now()): Promise<InstancePresence[]> {
      const mine = presence().file;
      return (await service.live(now)).filter((p) => p.id !== id && p.file !== mine);
    },

    start(): void {
      if (timer) return;
      timer = setInterval(() => {
        // Settings saved on another instance apply here within a heartbeat, build or not.
        Promise.all([service.heartbeat(), getService(strapi, 'settings').refresh()]).catch(
          (error: unknown) => {
            strapi.log.warn(`[sitemap-ai] instance heartbeat failed: ${messageOf(error)}`);
          },
        );
      }, HEARTBEAT_MS);
      timer.unref();
    },

    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await leases.release(`${PREFIX}${id}`, reported).catch(() => undefined);
    },
  };
  return service;
};

export type InstancesService = ReturnType<typeof createInstancesService>;
