import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../../shared/constants';

/**
 * The plugin's small key/value records in Strapi's core store (stored Settings, the file-config
 * print, the token secret, the policy fingerprints, the last schedule tick): the one place that
 * touches `strapi.store`.
 */
export const createPluginStoreRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const store = () => strapi.store({ type: 'plugin', name: PLUGIN_ID });
  return {
    async get<T>(key: string): Promise<T | null> {
      return ((await store().get({ key })) as T | null | undefined) ?? null;
    },
    async set(key: string, value: unknown): Promise<void> {
      await store().set({ key, value });
    },
  };
};

export type PluginStoreRepository = ReturnType<typeof createPluginStoreRepository>;
