/**
 * Public, read-only routes (SPEC §6), served under /api/sitemap-ai. They are
 * public by their own route config (`auth: false`); the plugin does not touch
 * the users-permissions roles.
 */
const publicRoute = (path: string, handler: string) => ({
  method: 'GET' as const,
  path,
  handler,
  config: { auth: false as const, policies: [], middlewares: ['plugin::sitemap-ai.errors', 'plugin::sitemap-ai.rate-limit'] },
});

export default {
  type: 'content-api' as const,
  routes: [
    publicRoute('/manifest', 'manifest.json'),
    publicRoute('/manifest.json', 'manifest.json'),
    publicRoute('/manifest.xml', 'manifest.xml'),
    publicRoute('/delta', 'manifest.delta'),
    publicRoute('/fragments/:id', 'manifest.fragment'),
    publicRoute('/fragments/:id/changelog', 'manifest.changelog'),
    publicRoute('/fragments/:id/content', 'manifest.content'),
    publicRoute('/schema.json', 'manifest.schema'),
  ],
};
