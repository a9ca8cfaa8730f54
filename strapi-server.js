'use strict';

// Strapi requires this file; the server is compiled from TypeScript by `npm run build`.
module.exports = require('./dist/server/src/index.js').default;
