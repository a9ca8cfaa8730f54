import { PLUGIN_ID } from './pluginId';

type TranslationModule = { default: Record<string, string> };

/**
 * Admin entry. The editor panel, settings and dashboard come with the admin
 * issue; for now the plugin registers itself and its translations.
 */
export default {
  register(app: { registerPlugin: (plugin: { id: string; name: string }) => void }) {
    app.registerPlugin({ id: PLUGIN_ID, name: PLUGIN_ID });
  },
  async registerTrads({ locales }: { locales: string[] }) {
    return Promise.all(
      locales.map(async (locale) => {
        try {
          const { default: data } = (await import(`./translations/${locale}.json`)) as TranslationModule;
          const prefixed = Object.fromEntries(Object.entries(data).map(([key, value]) => [`${PLUGIN_ID}.${key}`, value]));
          return { data: prefixed, locale };
        } catch {
          return { data: {}, locale };
        }
      }),
    );
  },
};
