import { publicRoute } from './content-api';
import type { Handler } from './handlers';

/**
 * Discovery documents at the root of the Strapi origin (config `discovery.serveAtRoot`), for
 * sites where Strapi or its proxy answers on the public domain. `config.prefix: ''` keeps them
 * out of the plugin's prefix; with root serving off they leave the response to Strapi.
 */
const atRoot = (path: string, handler: Handler) => {
  const route = publicRoute(path, handler, 'discovery');
  return { ...route, config: { ...route.config, prefix: '' } };
};

export default {
  type: 'admin' as const,
  routes: [
    atRoot('/llms.txt', 'discovery.rootLlms'),
    atRoot('/llms-full.txt', 'discovery.rootLlmsFull'),
    atRoot('/.well-known/tdmrep.json', 'discovery.rootTdmrep'),
    atRoot('/sitemap.xml', 'discovery.rootSitemap'),
    atRoot('/robots.txt', 'discovery.rootRobots'),
  ],
};
