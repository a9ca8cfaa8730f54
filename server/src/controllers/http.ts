import type { Context } from 'koa';
import type { ManifestItem } from '../../../shared/contracts/manifest';
import type { PublicRouteState } from '../middlewares/access-log';

/**
 * Say which item the answer serves (its current id, version and checksum), for the access log
 * (README › Observability): set in `ctx.state` before the answer, 304s included.
 */
export function markServed(
  ctx: Context,
  item: Pick<ManifestItem, 'id' | 'type' | 'version' | 'checksum'>,
): void {
  (ctx.state as PublicRouteState).sitemapAiServed = {
    itemId: item.id,
    type: item.type,
    version: item.version,
    checksum: item.checksum,
  };
}

/**
 * What names a snapshot in validators and cache keys: its number and when it was built. The number
 * alone repeats when the plugin's tables are emptied and the site is built anew from snapshot 1,
 * and a client's validator of the old snapshot 1 must not be answered `304` for the new one.
 */
export function snapshotTag(snapshot: { seq: number; builtAt: string }): string {
  return `s${snapshot.seq}.${Date.parse(snapshot.builtAt).toString(36)}`;
}

/** Does an If-None-Match header name this ETag (or `*`)? */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const weakless = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || weakless(tag) === weakless(etag));
}

/**
 * Answer with ETag / Last-Modified, or 304 when the client's copy is current
 * (docs/protocol.md §4). The body is only computed when it will be sent.
 */
export async function respondWithCache(
  ctx: Context,
  validators: { etag: string; lastModified?: string },
  body: () => Promise<unknown>,
): Promise<void> {
  ctx.set('ETag', validators.etag);
  if (validators.lastModified)
    ctx.set('Last-Modified', new Date(validators.lastModified).toUTCString());
  ctx.set('Cache-Control', 'public, max-age=60');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (matchesEtag(ctx.get('If-None-Match'), validators.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = await body();
}

/**
 * Answer canonical Markdown (docs/protocol.md §4.4): its checksum is the ETag, the
 * `Content-Digest` and `X-Sitemap-AI-Checksum`; `headers` adds the item's policy headers.
 */
export async function respondWithMarkdown(
  ctx: Context,
  answer: { checksum: string; content: string; lastModified: string },
  headers: () => void,
): Promise<void> {
  const hex = answer.checksum.replace(/^sha256:/, '');
  await respondWithCache(ctx, { etag: `"${hex}"`, lastModified: answer.lastModified }, async () => {
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.set('Content-Digest', `sha-256=:${Buffer.from(hex, 'hex').toString('base64')}:`);
    ctx.set('X-Sitemap-AI-Checksum', answer.checksum);
    headers();
    return answer.content;
  });
}
