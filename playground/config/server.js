'use strict';

// Demo defaults only: set APP_KEYS (and the secrets in config/admin.js) in any real deployment.
const DEV_APP_KEYS = [
  'sitemapAiPlaygroundKeyOne==',
  'sitemapAiPlaygroundKeyTwo==',
  'sitemapAiPlaygroundKeyThree==',
  'sitemapAiPlaygroundKeyFour==',
];

module.exports = ({ env }) => ({
  host: env('HOST', '0.0.0.0'),
  port: env.int('PORT', 1337),
  ...(env('PUBLIC_URL') ? { url: env('PUBLIC_URL') } : {}),
  app: {
    keys: env.array('APP_KEYS', DEV_APP_KEYS),
  },
  logger: {
    updates: { enabled: false },
    startup: { enabled: false },
  },
});
