import { parsePluginConfig } from './core/config';

/**
 * Plugin config (`config/plugins` → `sitemap-ai.config`). Strapi calls the
 * validator at start-up; a bad value stops it with a message naming the key.
 */
export default {
  default: {},
  validator(config: unknown) {
    parsePluginConfig(config);
  },
};
