import { PLUGIN_ID } from '../pluginId';

/** The full translation id of a plugin message (`sitemap-ai.<key>`), as registerTrads registers it. */
export const getTranslation = (key: string): string => `${PLUGIN_ID}.${key}`;
