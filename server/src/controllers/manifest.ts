import { gzipSync } from 'node:zlib';
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { CHANGELOG_PAGE_DEFAULT, SPEC_VERSION } from '../../../shared/constants';
import {
  validateChangelogParams,
  validateDeltaParams,
  validateItemId,
  validateManifestParams,
  validateNoParams,
} from '../core/params';
import { MANIFEST_SCHEMA } from '../core/schema';
import { manifestPageToXml } from '../core/xml';
import { getService } from '../utils/get-service';
import { sha256Hex } from '../core/canonical';
import {
  markServed,
  matchesEtag,
  respondWithCache,
  respondWithMarkdown,
  snapshotTag,
} from './http';
import { strictestUsage } from '../core/interop';
import type { ManifestItem } from '../core/types';
import type { PublicRouteState } from '../middlewares/access-log';
import { runsAround } from '../middlewares/revalidation';
import { ByteCache } from '../core/byte-cache';

/**
 * Manifest pages kept serialised and encoded: a page of a snapshot never changes (its ETag names
 * the snapshot and the parameters), so a second agent reading it costs what sending it costs, not
 * an encoding of a string of hundreds of kilobytes (and its garbage) per request.
 */
const PAGE_CACHE_BUDGET = 32 * 2 ** 20;

interface CachedPage {
  body: Buffer;
  type: string;
  headers: Record<string, string>;
  size: number;
  /** The bytes are the page gzip-encoded. */
  gzip: boolean;
}

/**
 * Public, read-only manifest endpoints (docs/protocol.md §4). Thin: validate, ask the
 * service, answer; errors become `{ error }` bodies in the error middleware.
 */
export const createManifestController = ({ strapi }: { strapi: Core.Strapi }) => {
  const manifest = () => getService(strapi, 'manifest');
  const apiPath = () => getService(strapi, 'config').apiPath();

  /**
   * The policy headers (docs/protocol.md §9): an item's own policy, or for a page of many items
   * the strictest of them, so no header ever allows more than an item it carries.
   */
  function policyOf(items: readonly ManifestItem[]): Record<string, string> {
    const usage = strictestUsage(items.map((item) => item.usage));
    if (!usage) return {};
    const licenses = new Set(items.map((item) => item.license));
    const license =
      licenses.size === 1
        ? items[0]!.license
        : getService(strapi, 'config').config().defaults.license;
    return getService(strapi, 'discovery').headers({ usage, license });
  }

  function setPolicy(ctx: Context, items: readonly ManifestItem[]): void {
    for (const [name, value] of Object.entries(policyOf(items))) ctx.set(name, value);
  }

  const pages = new ByteCache<CachedPage>(PAGE_CACHE_BUDGET);

  /** A manifest page's parameters, as validated, and its ETag in a snapshot (gzip: its own). */
  function representation(ctx: Context, format: 'json' | 'xml') {
    const settings = getService(strapi, 'config').config();
    const params = validateManifestParams(ctx.query, settings.pageSize);
    // Agents that take gzip get the page compressed once per snapshot: a representation of its own.
    const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    const paramsHash = sha256Hex(JSON.stringify(params)).slice(0, 20);
    const etagOf = (snapshot: Parameters<typeof snapshotTag>[0]) =>
      `"${snapshotTag(snapshot)}-${format}-${paramsHash}${gzip ? '-gz' : ''}"`;
    ctx.vary('Accept-Encoding');
    return { settings, params, gzip, paramsHash, etagOf };
  }

  type Representation = ReturnType<typeof representation>;

  /** Each config's hash, by the config object (the config service makes a new one on a change). */
  const configTags = new WeakMap<object, string>();
  const configTag = (settings: object) => {
    let tag = configTags.get(settings);
    if (tag === undefined) {
      tag = sha256Hex(JSON.stringify(settings)).slice(0, 20);
      configTags.set(settings, tag);
    }
    return tag;
  };

  /** Where a page's bytes are kept: item URLs and policy headers also follow the config. */
  const cacheKey = (
    shown: Representation,
    format: 'json' | 'xml',
    snapshot: Parameters<typeof snapshotTag>[0],
  ) => `${snapshotTag(snapshot)}|${format}|${shown.paramsHash}|${configTag(shown.settings)}`;

  /** The cached page's headers set; its bytes, as the representation asked encodes them. */
  function send(ctx: Context, cached: CachedPage): Buffer {
    for (const [name, value] of Object.entries(cached.headers)) ctx.set(name, value);
    ctx.type = cached.type;
    if (cached.gzip) ctx.set('Content-Encoding', 'gzip');
    return cached.body;
  }

  /**
   * A first page answered from what this instance holds (docs/protocol.md §6), without reading the
   * newest snapshot again: compared with the newest snapshot seen within a second, the `304` when
   * the client's ETag is that snapshot's, else that snapshot's page when its bytes are cached here.
   * Whether it was. A crawler revalidating a first page is the commonest request; reading the
   * same first page again, the next.
   */
  async function answeredFromSeen(
    ctx: Context,
    shown: Representation,
    format: 'json' | 'xml',
  ): Promise<boolean> {
    if (shown.params.page_token) return false;
    const seen = await manifest().seen();
    const etag = shown.etagOf(seen);
    const revalidated = matchesEtag(ctx.get('If-None-Match'), etag);
    let cached: CachedPage | undefined;
    if (!revalidated) {
      const key = cacheKey(shown, format, seen);
      cached = pages.get(shown.gzip ? `${key}|gz` : key);
      if (!cached) return false;
    }
    await respondWithCache(ctx, { etag, lastModified: seen.builtAt }, async () =>
      cached ? send(ctx, cached) : null,
    );
    return true;
  }

  async function page(ctx: Context, format: 'json' | 'xml'): Promise<void> {
    const shown = representation(ctx, format);
    // (asked already ahead of the router when the request comes from there: not answered so)
    if (!runsAround(ctx) && (await answeredFromSeen(ctx, shown, format))) return;
    const { params, gzip, etagOf } = shown;
    const resolved = await manifest().resolve(params);
    const etag = etagOf(resolved.snapshot);
    await respondWithCache(ctx, { etag, lastModified: resolved.snapshot.builtAt }, async () => {
      const key = cacheKey(shown, format, resolved.snapshot);
      let cached = pages.get(key);
      if (!cached) {
        const body = await manifest().page(params, resolved);
        const text = format === 'xml' ? manifestPageToXml(body) : JSON.stringify(body);
        const bytes = Buffer.from(text, 'utf8');
        cached = {
          body: bytes,
          type:
            format === 'xml' ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8',
          headers: policyOf(body.items),
          size: bytes.length,
          gzip: false,
        };
        pages.set(key, cached);
      }
      if (!gzip) return send(ctx, cached);
      let compressed = pages.get(`${key}|gz`);
      if (!compressed) {
        const bytes = gzipSync(cached.body);
        compressed = { ...cached, body: bytes, size: bytes.length, gzip: true };
        pages.set(`${key}|gz`, compressed);
      }
      return send(ctx, compressed);
    });
  }

  return {
    json: (ctx: Context) => page(ctx, 'json'),
    xml: (ctx: Context) => page(ctx, 'xml'),
    /** A first page answered ahead of the router (middlewares/revalidation.ts): whether it was. */
    answeredFromSeen: (ctx: Context, format: 'json' | 'xml') =>
      answeredFromSeen(ctx, representation(ctx, format), format),

    async delta(ctx: Context) {
      const settings = getService(strapi, 'config').config();
      const params = validateDeltaParams(ctx.query, settings.pageSize);
      const sinceText = String(ctx.query.since);
      const resolved = await manifest().resolveDelta(params, sinceText);
      const { snapshot, since } = resolved;
      // The access log records which snapshots this delta spans (GEO time-to-index, §10).
      (ctx.state as PublicRouteState).sitemapAiDelta = { since, snapshot: snapshot.seq };
      const etag = `"${snapshotTag(snapshot)}-delta-${sha256Hex(JSON.stringify(params)).slice(0, 20)}"`;
      // The page is read only when it is sent: a 304 costs the snapshot lookup alone.
      await respondWithCache(ctx, { etag, lastModified: snapshot.builtAt }, async () => {
        const page = await manifest().deltaPage(params, sinceText, resolved);
        setPolicy(ctx, page.items);
        return page;
      });
    },

    async changelog(ctx: Context) {
      const id = validateItemId(ctx.params.id);
      const settings = getService(strapi, 'config').config();
      const params = validateChangelogParams(ctx.query, {
        default: CHANGELOG_PAGE_DEFAULT,
        max: settings.pageSize.max,
      });
      const body = await manifest().changelog(id, params);
      const etag = `"changelog-${sha256Hex(JSON.stringify(body)).slice(0, 24)}"`;
      const { item } = await manifest().item(id);
      markServed(ctx, item);
      await respondWithCache(ctx, { etag }, async () => {
        setPolicy(ctx, [item]);
        return body;
      });
    },

    async fragment(ctx: Context) {
      const id = validateItemId(ctx.params.id);
      validateNoParams(ctx.query);
      const { snapshot, item, aliasOf } = await manifest().item(id);
      const etag = `"${snapshotTag(snapshot)}-${sha256Hex(id).slice(0, 16)}-${item.version}"`;
      if (aliasOf) ctx.set('Content-Location', `${apiPath()}/fragments/${aliasOf}`);
      markServed(ctx, item);
      await respondWithCache(ctx, { etag, lastModified: snapshot.builtAt }, async () => {
        setPolicy(ctx, [item]);
        return {
          spec: SPEC_VERSION,
          snapshot: { id: String(snapshot.seq), created_at: snapshot.builtAt },
          ...(aliasOf ? { alias: { requested: id, current: aliasOf } } : {}),
          item,
        };
      });
    },

    async content(ctx: Context) {
      const id = validateItemId(ctx.params.id);
      validateNoParams(ctx.query);
      await getService(strapi, 'agents').requireVerified(ctx, 'content');
      const { snapshot, checksum, content, aliasOf } = await manifest().content(id);
      const { item } = await manifest().item(id);
      if (aliasOf) ctx.set('Content-Location', `${apiPath()}/fragments/${aliasOf}/content`);
      markServed(ctx, item);
      await respondWithMarkdown(ctx, { checksum, content, lastModified: snapshot.builtAt }, () =>
        setPolicy(ctx, [item]),
      );
    },

    async schema(ctx: Context) {
      validateNoParams(ctx.query);
      await respondWithCache(
        ctx,
        { etag: `"schema-${sha256Hex(JSON.stringify(MANIFEST_SCHEMA)).slice(0, 20)}"` },
        async () => {
          ctx.type = 'application/schema+json; charset=utf-8';
          return JSON.stringify(MANIFEST_SCHEMA, null, 2);
        },
      );
    },
  };
};
