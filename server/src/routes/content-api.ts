import type { RouteKind } from '../core/access-log';
import type { Handler } from './handlers';

/**
 * Public, read-only routes (docs/protocol.md §4), served under /api/sitemap-ai. They are
 * public by their own route config (`auth: false`); the plugin does not touch
 * the users-permissions roles. The access log (README › Observability) is outermost, so
 * it records the final status of every answer, errors and 429s included.
 */
export const publicRoute = (path: string, handler: Handler, kind: RouteKind) => ({
  method: 'GET' as const,
  path,
  handler,
  config: {
    auth: false as const,
    policies: [],
    middlewares: [
      { name: 'plugin::sitemap-ai.access-log', config: { kind } },
      'plugin::sitemap-ai.errors',
      'plugin::sitemap-ai.rate-limit',
    ],
  },
});

export default {
  type: 'content-api' as const,
  routes: [
    publicRoute('/manifest', 'manifest.json', 'manifest'),
    publicRoute('/manifest.json', 'manifest.json', 'manifest'),
    publicRoute('/manifest.xml', 'manifest.xml', 'manifest'),
    publicRoute('/delta', 'manifest.delta', 'delta'),
    publicRoute('/fragments/:id', 'manifest.fragment', 'fragment'),
    publicRoute('/fragments/:id/changelog', 'manifest.changelog', 'changelog'),
    publicRoute('/fragments/:id/content', 'manifest.content', 'content'),
    publicRoute('/schema.json', 'manifest.schema', 'schema'),
    // Discovery documents (docs/protocol.md §9): the same policy in every vocabulary.
    publicRoute('/policy.json', 'discovery.policy', 'discovery'),
    publicRoute('/robots.txt', 'discovery.robots', 'discovery'),
    publicRoute('/rsl.xml', 'discovery.rsl', 'discovery'),
    publicRoute('/tdmrep.json', 'discovery.tdmrep', 'discovery'),
    publicRoute('/llms.txt', 'discovery.llms', 'discovery'),
    publicRoute('/llms-full.txt', 'discovery.llmsFull', 'discovery'),
    publicRoute('/sitemap.xml', 'discovery.sitemap', 'discovery'),
    publicRoute('/sitemap-:part.xml', 'discovery.sitemapPart', 'discovery'),
    publicRoute('/pages/:id.md', 'discovery.pageMarkdown', 'page'),
    publicRoute('/pages/:id/jsonld', 'discovery.pageJsonLd', 'page'),
    // Visits from AI assistants that front ends report (docs/protocol.md §10).
    publicRoute('/beacon', 'dashboard.beacon', 'beacon'),
  ],
};
