'use strict';

module.exports = ({ env }) => ({
  rest: {
    // The plugin follows the app's REST prefix (tests boot it under another one).
    prefix: env('API_REST_PREFIX', '/api'),
    defaultLimit: 25,
    maxLimit: 100,
    withCount: true,
  },
});
