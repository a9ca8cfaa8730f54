'use strict';

// Demo defaults only: override every secret through the environment outside the playground.
module.exports = ({ env }) => ({
  auth: {
    secret: env('ADMIN_JWT_SECRET', 'sitemap-ai-playground-admin-jwt-secret'),
  },
  apiToken: {
    salt: env('API_TOKEN_SALT', 'sitemap-ai-playground-api-token-salt'),
  },
  transfer: {
    token: {
      salt: env('TRANSFER_TOKEN_SALT', 'sitemap-ai-playground-transfer-token-salt'),
    },
  },
  secrets: {
    encryptionKey: env('ENCRYPTION_KEY', 'sitemap-ai-playground-encryption-key'),
  },
  rateLimit: {
    enabled: env.bool('ADMIN_RATE_LIMIT', true),
  },
  flags: {
    nps: false,
    promoteEE: false,
  },
});
