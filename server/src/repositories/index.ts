import type { Core } from '@strapi/strapi';
import { createAccessLogRepository } from './access-log-repository';
import { createAgentKeyRepository } from './agent-key-repository';
import { createBlobRepository } from './blob-repository';
import { createDirtyRepository } from './dirty-repository';
import { createGeoRepository } from './geo-repository';
import { createItemRepository } from './item-repository';
import { createLockRepository } from './lock-repository';
import { createPluginStoreRepository } from './plugin-store-repository';
import { createSnapshotRepository } from './snapshot-repository';
import { createSourceRepository } from './source-repository';
import { createStateRepository } from './state-repository';
import { createWebhookRepository } from './webhook-repository';

const factories = {
  accessLog: createAccessLogRepository,
  agentKeys: createAgentKeyRepository,
  blobs: createBlobRepository,
  dirty: createDirtyRepository,
  geo: createGeoRepository,
  items: createItemRepository,
  locks: createLockRepository,
  store: createPluginStoreRepository,
  snapshots: createSnapshotRepository,
  sources: createSourceRepository,
  states: createStateRepository,
  webhooks: createWebhookRepository,
};

export type Repositories = { [K in keyof typeof factories]: ReturnType<(typeof factories)[K]> };

const perApp = new WeakMap<Core.Strapi, Partial<Repositories>>();

/**
 * The plugin's repositories of one Strapi app: each created once, on first use, and shared by
 * every service (the rate counters, which depend on the instance service, are the rate limiter's
 * own).
 */
export function repositories(strapi: Core.Strapi): Repositories {
  let made = perApp.get(strapi);
  if (!made) perApp.set(strapi, (made = {}));
  const cache = made;
  return new Proxy({} as Repositories, {
    get(_target, name: string) {
      const key = name as keyof Repositories;
      if (!(key in factories)) return undefined;
      return (cache[key] ??= factories[key]({ strapi }) as never);
    },
  });
}
