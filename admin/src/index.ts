import type { StrapiApp } from '@strapi/strapi/admin';
import { ChartBubble } from '@strapi/icons';
import { SitemapAiPanel } from './components/SitemapAiPanel';
import { PERMISSIONS } from './permissions';
import { PLUGIN_ID } from './pluginId';
import { getTranslation } from './utils/getTranslation';

type TranslationModule = { default: Record<string, string> };
type ContentManagerApis = { addEditViewSidePanel: (panels: (typeof SitemapAiPanel)[]) => void };

/**
 * Admin entry (README › In the admin): the dashboard (the plugin's own page), the Settings
 * page, and the Content Manager's edit-view side panel for editors.
 */
export default {
  register(app: StrapiApp) {
    app.registerPlugin({ id: PLUGIN_ID, name: PLUGIN_ID });

    app.addMenuLink({
      to: `plugins/${PLUGIN_ID}`,
      icon: ChartBubble,
      intlLabel: { id: getTranslation('plugin.name'), defaultMessage: 'Sitemap AI' },
      permissions: PERMISSIONS.readDashboard,
      Component: () => import('./pages/App'),
    });

    app.addSettingsLink(
      {
        id: PLUGIN_ID,
        intlLabel: { id: getTranslation('plugin.name'), defaultMessage: 'Sitemap AI' },
      },
      {
        id: `${PLUGIN_ID}-settings`,
        to: PLUGIN_ID,
        intlLabel: { id: getTranslation('settings.link'), defaultMessage: 'Configuration' },
        permissions: PERMISSIONS.readSettings,
        Component: () => import('./pages/SettingsPage'),
      },
    );
  },

  bootstrap(app: Pick<StrapiApp, 'getPlugin'>) {
    const contentManager = app.getPlugin('content-manager');
    (contentManager.apis as ContentManagerApis).addEditViewSidePanel([SitemapAiPanel]);
  },

  async registerTrads({ locales }: { locales: string[] }) {
    return Promise.all(
      locales.map(async (locale) => {
        try {
          const { default: data } = (await import(
            `./translations/${locale}.json`
          )) as TranslationModule;
          const prefixed = Object.fromEntries(
            Object.entries(data).map(([key, value]) => [getTranslation(key), value]),
          );
          return { data: prefixed, locale };
        } catch {
          return { data: {}, locale };
        }
      }),
    );
  },
};
