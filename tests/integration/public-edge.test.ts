import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/** The public paths' edge: wrong methods, malformed bodies, unknown parameters, caching. */
describe.each(testDatabases())(
  'the public paths answer callers’ mistakes with 4xx on %s',
  (client) => {
    let app: TestApp;
    let item: string;

    beforeAll(async () => {
      app = await bootPlayground(client);
      item = (await app.http.get(`${API}/manifest`).query({ limit: 1 }).expect(200)).body.items[0]
        .id as string;
    });

    afterAll(async () => {
      await app?.close();
    });

    const paths = () => [
      `${API}/manifest`,
      `${API}/manifest.json`,
      `${API}/manifest.xml`,
      `${API}/delta`,
      `${API}/schema.json`,
      `${API}/fragments/${item}`,
      `${API}/fragments/${item}/changelog`,
      `${API}/fragments/${item}/content`,
      ...['policy.json', 'robots.txt', 'rsl.xml', 'tdmrep.json', 'llms.txt', 'llms-full.txt'].map(
        (doc) => `${API}/${doc}`,
      ),
      `${API}/sitemap.xml`,
      `${API}/sitemap-1.xml`,
      `${API}/pages/article:geo-index:en.md`,
      `${API}/pages/article:geo-index:en/jsonld`,
    ];

    it('answers any other method than GET and HEAD with a JSON 405 and Allow, whatever the body', async () => {
      const snapshots = () =>
        app.strapi.db.query('plugin::sitemap-ai.snapshot').count({}) as Promise<number>;
      const before = await snapshots();
      const bodies: [string, string][] = [
        ['multipart/form-data; boundary=----broken', '------broken\r\nContent-Disposition: form'],
        ['multipart/form-data', 'no boundary at all'],
        ['application/json', '{"unterminated": '],
        ['application/x-www-form-urlencoded', 'a=%E0%A4%A'],
      ];
      for (const path of paths()) {
        for (const method of ['post', 'put', 'patch', 'delete'] as const) {
          for (const [type, body] of bodies) {
            const res = await app.http[method](path).set('Content-Type', type).send(body);
            expect(res.status, `${method} ${path} ${type}`).toBe(405);
            expect(res.headers.allow).toBe('GET, HEAD');
            expect(res.body.error).toMatchObject({ status: 405, name: 'MethodNotAllowedError' });
          }
        }
      }
      expect(await snapshots()).toBe(before);
    });

    it('still serves GET and HEAD, and leaves other plugins’ and the app’s paths alone', async () => {
      await app.http.get(`${API}/manifest`).expect(200);
      await app.http.head(`${API}/schema.json`).expect(200);
      // Not a path of ours: Strapi answers as it always does (its router's plain-text 405, or a 401).
      for (const path of [`${API}/no-such-route`, '/api/articles']) {
        const res = await app.http.post(path).send({});
        expect(res.body?.error?.name, path).not.toBe('MethodNotAllowedError');
      }
      expect((await app.http.post('/api/articles').send({})).status).toBe(401);
    });

    it('refuses unknown query parameters on every route, naming them', async () => {
      for (const path of [
        `${API}/fragments/${item}`,
        `${API}/fragments/${item}/content`,
        `${API}/schema.json`,
      ]) {
        const res = await app.http.get(path).query({ utm_source: 'x' });
        expect(res.status, path).toBe(400);
        expect(res.body.error.name).toBe('InvalidParameterError');
        expect(res.body.error.message).toContain('utm_source');
      }
    });

    it('answers oversized headers and URLs with a 4xx, not a 5xx', async () => {
      const headers = await app.http.get(`${API}/manifest`).set('X-Padding', 'x'.repeat(20_000));
      expect(headers.status).toBe(431);
      const url = await app.http.get(`${API}/fragments/${'a'.repeat(12_000)}`);
      expect(url.status).toBeGreaterThanOrEqual(400);
      expect(url.status).toBeLessThan(500);
    });

    it('sends an ETag with an item’s changelog and answers 304 to it', async () => {
      const first = await app.http.get(`${API}/fragments/${item}/changelog`).expect(200);
      expect(first.headers.etag).toMatch(/^"changelog-[0-9a-f]+"$/);
      await app.http
        .get(`${API}/fragments/${item}/changelog`)
        .set('If-None-Match', String(first.headers.etag))
        .expect(304);
    });
  },
);

describe.runIf(testDatabases().includes('sqlite'))(
  'the public paths under another REST prefix of the app (api.rest.prefix)',
  () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await bootPlayground('sqlite', { env: { API_REST_PREFIX: '/v2' } });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('serves the manifest, its content URLs and the 405 guard below that prefix, nothing below /api', async () => {
      const page = (await app.http.get('/v2/sitemap-ai/manifest').query({ limit: 20 }).expect(200))
        .body as { items: { id: string; content_url: string }[] };
      expect(page.items.length).toBeGreaterThan(0);
      for (const item of page.items)
        expect(new URL(item.content_url).pathname).toBe(
          `/v2/sitemap-ai/fragments/${item.id}/content`,
        );
      await app.http.get(new URL(page.items[0]!.content_url).pathname).expect(200);
      await app.http.get('/api/sitemap-ai/manifest').expect(404);
      const refused = await app.http.post('/v2/sitemap-ai/manifest').send({ a: 1 });
      expect(refused.status).toBe(405);
      expect(refused.headers.allow).toBe('GET, HEAD');
    });
  },
);
