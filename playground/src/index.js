'use strict';

const { seed, ensureLocales } = require('./seed');

module.exports = {
  register() {},

  /**
   * Creates the sk locale and seeds the demo content on first boot.
   * PLAYGROUND_SEED=false boots an empty site (locales are still created).
   */
  async bootstrap({ strapi }) {
    if (process.env.PLAYGROUND_SEED === 'false') {
      await ensureLocales(strapi);
      return;
    }
    await seed(strapi);
  },
};
