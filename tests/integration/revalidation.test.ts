import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, type TestApp } from '../helpers/strapi';
import { API } from '../helpers/manifest';
import { accessLogOf } from '../helpers/stored';

/**
 * A manifest page's revalidation (`If-None-Match`) is answered ahead of the router
 * (middlewares/revalidation.ts): what it must keep of the route is everything an agent or the
 * site owner sees — the app's headers, the rate limit, the access log, the error bodies — each
 * once per request, whether the answer is the 304, a page or an error.
 */
describe('a manifest page revalidated', () => {
  let app: TestApp;
  const accessLog = () => accessLogOf(app.strapi);

  beforeAll(async () => {
    app = await bootPlayground('sqlite', { env: { SITEMAP_AI_RATE_LIMIT_MAX: '5' } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is answered 304 with the headers of the app and the route, counted and logged once a request', async () => {
    await accessLog().flush();
    const logged = (await accessLog().list()).length;
    const page = await app.http.get(`${API}/manifest`).query({ limit: '5' }).expect(200);
    const etag = String(page.headers.etag);
    expect(page.headers['ratelimit-remaining']).toBe('4');

    // The 304: the route's ETag and caching headers, the app's security headers, one count
    const revalidated = await app.http
      .get(`${API}/manifest`)
      .query({ limit: '5' })
      .set('If-None-Match', etag)
      .expect(304);
    expect(revalidated.headers.etag).toBe(etag);
    expect(revalidated.headers['last-modified']).toBe(page.headers['last-modified']);
    expect(revalidated.headers['cache-control']).toBe(page.headers['cache-control']);
    expect(String(revalidated.headers.vary)).toMatch(/Accept-Encoding/i);
    expect(revalidated.headers['x-frame-options']).toBeDefined();
    expect(revalidated.headers['x-frame-options']).toBe(page.headers['x-frame-options']);
    expect(revalidated.headers['x-powered-by']).toBe(page.headers['x-powered-by']);
    expect(revalidated.headers['ratelimit-remaining']).toBe('3');
    expect(revalidated.text).toBe('');

    // An ETag of another page (or snapshot) goes on to the route: the page, counted once
    const stale = await app.http
      .get(`${API}/manifest`)
      .query({ limit: '5' })
      .set('If-None-Match', '"1-0-json-0000"')
      .expect(200);
    expect(stale.body.items).toEqual(page.body.items);
    expect(stale.headers['ratelimit-remaining']).toBe('2');

    // A bad parameter is the route's 400, whatever the validator
    const bad = await app.http
      .get(`${API}/manifest`)
      .query({ limit: 'many' })
      .set('If-None-Match', etag)
      .expect(400);
    expect(bad.body.error).toMatchObject({ status: 400 });
    expect(bad.headers['ratelimit-remaining']).toBe('1');

    // The XML page has its own ETag, and its 304
    const xml = await app.http.get(`${API}/manifest.xml`).query({ limit: '5' }).expect(200);
    expect(xml.headers.etag).not.toBe(etag);
    // … by now over the limit: the 429, revalidating or not
    const limited = await app.http
      .get(`${API}/manifest.xml`)
      .query({ limit: '5' })
      .set('If-None-Match', String(xml.headers.etag))
      .expect(429);
    expect(limited.body.error).toMatchObject({ status: 429, name: 'RateLimitError' });

    // And the access log holds one entry a request, with the status it was answered
    await accessLog().flush();
    const entries = (await accessLog().list()).slice(logged);
    expect(entries.map((entry) => [entry.route, entry.status])).toEqual([
      ['manifest', 200],
      ['manifest', 304],
      ['manifest', 200],
      ['manifest', 400],
      ['manifest', 200],
      ['manifest', 429],
    ]);
  });
});
