import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { validateItemId, validateNoParams } from '../core/params';
import { sha256Hex } from '../core/canonical';
import { InvalidParameterError } from '../core/errors';
import type { DiscoveryIndex } from '../services/discovery';
import { getService } from '../utils/get-service';
import { markServed, respondWithCache, respondWithMarkdown, snapshotTag } from './http';

/** The documents the root of the Strapi origin can answer (config `discovery.serveAtRoot`). */
export type RootDocument = 'llms' | 'llms-full' | 'tdmrep' | 'sitemap' | 'robots';

/**
 * Discovery documents (docs/protocol.md §9): the same policy as the manifest in robots.txt,
 * llms.txt, RSL, TDMRep, sitemap.xml and JSON-LD. Thin: validate, ask the discovery service,
 * answer with validators, `Cache-Control` and the policy headers.
 */
export const createDiscoveryController = ({ strapi }: { strapi: Core.Strapi }) => {
  const discovery = () => getService(strapi, 'discovery');

  function setPolicy(ctx: Context, policy: Parameters<ReturnType<typeof discovery>['headers']>[0]) {
    for (const [name, value] of Object.entries(discovery().headers(policy))) ctx.set(name, value);
  }

  /** ETag of a whole-site document: the snapshot, the policy and the discovery settings. */
  function etagOf(idx: DiscoveryIndex, name: string): string {
    const config = getService(strapi, 'config').config().discovery;
    return `"${snapshotTag(idx.snapshot)}-${name}-${idx.fingerprint}-${sha256Hex(JSON.stringify(config)).slice(0, 12)}"`;
  }

  async function siteDocument(
    ctx: Context,
    name: string,
    type: string,
    produce: () => Promise<{
      index: DiscoveryIndex;
      body?: unknown;
      stream?: NodeJS.ReadableStream;
    }>,
    policyOf: (idx: DiscoveryIndex) => DiscoveryIndex['overall'] = (idx) => idx.overall,
  ): Promise<void> {
    validateNoParams(ctx.query);
    const result = await produce();
    const idx = result.index;
    await respondWithCache(
      ctx,
      { etag: etagOf(idx, name), lastModified: idx.snapshot.builtAt },
      async () => {
        ctx.type = type;
        setPolicy(ctx, policyOf(idx));
        if (result.stream) return result.stream;
        return typeof result.body === 'string' ? result.body : JSON.stringify(result.body, null, 2);
      },
    );
  }

  const handlers = {
    policy: (ctx: Context) =>
      siteDocument(ctx, 'policy', 'application/json; charset=utf-8', () =>
        discovery().policyDocument(),
      ),
    robots: (ctx: Context) =>
      siteDocument(ctx, 'robots', 'text/plain; charset=utf-8', () => discovery().robots()),
    rsl: (ctx: Context) =>
      siteDocument(ctx, 'rsl', 'application/rsl+xml; charset=utf-8', () => discovery().rsl()),
    tdmrep: (ctx: Context) =>
      siteDocument(ctx, 'tdmrep', 'application/json; charset=utf-8', () => discovery().tdmrep()),
    // llms.txt and llms-full.txt carry only pages open to inference: theirs is the policy stated.
    llms: (ctx: Context) =>
      siteDocument(
        ctx,
        'llms',
        'text/markdown; charset=utf-8',
        () => discovery().llms(),
        (idx) => idx.inferable,
      ),
    llmsFull: async (ctx: Context) => {
      await getService(strapi, 'agents').requireVerified(ctx, 'llms-full');
      return siteDocument(
        ctx,
        'llms-full',
        'text/markdown; charset=utf-8',
        () => discovery().llmsFull(),
        (idx) => idx.inferable,
      );
    },
    sitemap: (ctx: Context) =>
      siteDocument(ctx, 'sitemap', 'application/xml; charset=utf-8', () => discovery().sitemap(0)),

    async sitemapPart(ctx: Context) {
      const raw = String(ctx.params.part ?? '');
      if (!/^[1-9][0-9]{0,5}$/.test(raw))
        throw new InvalidParameterError('part', 'must be a sitemap part number such as 1');
      const part = Number(raw);
      await siteDocument(ctx, `sitemap-${part}`, 'application/xml; charset=utf-8', () =>
        discovery().sitemap(part),
      );
    },

    async pageMarkdown(ctx: Context) {
      const id = validateItemId(ctx.params.id);
      validateNoParams(ctx.query);
      await getService(strapi, 'agents').requireVerified(ctx, 'content');
      const { snapshot, item, checksum, content } = await discovery().pageMarkdown(id);
      markServed(ctx, item);
      await respondWithMarkdown(ctx, { checksum, content, lastModified: snapshot.builtAt }, () =>
        setPolicy(ctx, item),
      );
    },

    async pageJsonLd(ctx: Context) {
      const id = validateItemId(ctx.params.id);
      validateNoParams(ctx.query);
      const { snapshot, item, body } = await discovery().pageJsonLd(id);
      markServed(ctx, item);
      const etag = `"s${snapshot.seq}-jsonld-${sha256Hex(JSON.stringify(body)).slice(0, 20)}"`;
      await respondWithCache(ctx, { etag, lastModified: snapshot.builtAt }, async () => {
        ctx.type = 'application/ld+json; charset=utf-8';
        setPolicy(ctx, item);
        return JSON.stringify(body, null, 2);
      });
    },
  };

  /**
   * A document at the origin's root. When root serving is off — or, for robots.txt, when the host
   * app has a robots.txt of its own in its public folder — the route leaves the response alone,
   * so Strapi's static files (or its plain 404) answer instead.
   */
  function atRoot(document: RootDocument, handler: (ctx: Context) => Promise<void>) {
    return async (ctx: Context) => {
      const config = getService(strapi, 'config').config().discovery;
      if (!config.serveAtRoot) return;
      if (document === 'robots') {
        const publicDir = strapi.dirs?.static?.public;
        if (publicDir && existsSync(path.join(publicDir, 'robots.txt'))) return;
      }
      await handler(ctx);
    };
  }

  return {
    ...handlers,
    rootLlms: atRoot('llms', handlers.llms),
    rootLlmsFull: atRoot('llms-full', handlers.llmsFull),
    rootTdmrep: atRoot('tdmrep', handlers.tdmrep),
    rootSitemap: atRoot('sitemap', handlers.sitemap),
    rootRobots: atRoot('robots', handlers.robots),
  };
};
