'use strict';

// LOG_LEVEL alone does nothing in Strapi 5: the winston level has to be set here.
// Merged over @strapi/logger's defaults (console transport, pretty print).
module.exports = ({ env }) => ({
  level: env('LOG_LEVEL', 'info'),
});
