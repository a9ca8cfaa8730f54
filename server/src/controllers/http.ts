import type { Context } from 'koa';

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
