import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getService } from '../utils/get-service';

/** The plugin's public paths, below `<api prefix>/sitemap-ai` (routes/content-api.ts). */
const PUBLIC_PATH =
  /^\/(?:manifest(?:\.json|\.xml)?|delta|schema\.json|fragments\/[^/]+(?:\/changelog|\/content)?|policy\.json|robots\.txt|rsl\.xml|tdmrep\.json|llms(?:-full)?\.txt|sitemap(?:-[0-9]+)?\.xml|pages\/[^/]+(?:\.md|\/jsonld)|beacon)\/?$/;
const ALLOWED = 'GET, HEAD';

/**
 * Answers a request to one of the plugin's public, read-only paths with any method but GET,
 * HEAD or OPTIONS (CORS preflight) with a JSON `405` and `Allow`, and any such request to
 * another path below the plugin's prefix with a JSON `404`, before Strapi's body parser reads
 * anything: a malformed body sent to our paths can never become a 5xx. Registered on the
 * server in `register`, so it runs ahead of the app's middlewares (README: "What the plugin
 * registers").
 */
export function createMethodGuard(strapi: Core.Strapi) {
  const prefix = getService(strapi, 'config').apiPath();
  return async (ctx: Context, next: Next) => {
    const method = ctx.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const path = ctx.path;
    if (path !== prefix && !path.startsWith(`${prefix}/`)) return next();
    if (!PUBLIC_PATH.test(path.slice(prefix.length))) {
      ctx.status = 404;
      ctx.body = {
        data: null,
        error: { status: 404, name: 'NotFoundError', message: `no route ${method} ${path}` },
      };
      return undefined;
    }
    ctx.status = 405;
    ctx.set('Allow', ALLOWED);
    ctx.body = {
      data: null,
      error: {
        status: 405,
        name: 'MethodNotAllowedError',
        message: `${method} is not allowed on ${path}: it is read-only (${ALLOWED})`,
      },
    };
  };
}
