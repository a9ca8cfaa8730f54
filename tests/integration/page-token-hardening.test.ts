import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePageToken } from '../../server/src/core/page-token';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * Page tokens that are validly signed but carry positions no database column can hold, and the
 * secret they are signed with (issue 9, defect 5).
 */
describe.each(testDatabases())('page tokens on %s', (client) => {
  let app: TestApp;
  const secret = () => app.strapi.plugin('sitemap-ai').service('config').tokenSecret() as string;
  const mint = (snapshot: number, after: string, feed: string) =>
    encodePageToken({ snapshot, built: 0, after, filters: '', feed }, secret());

  beforeAll(async () => {
    app = await bootPlayground(client);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 400, never 5xx, to signed tokens whose positions are out of range', async () => {
    const item = (await app.http.get(`${API}/manifest`).query({ limit: 1 }).expect(200)).body
      .items[0].id as string;
    const cases: [string, Record<string, string>][] = [
      [`${API}/manifest`, { page_token: mint(2 ** 31, '', 'manifest') }],
      [`${API}/manifest`, { page_token: mint(2 ** 53 + 2, '', 'manifest') }],
      [`${API}/delta`, { since: '1', page_token: mint(2 ** 31, '', 'delta:1') }],
      [`${API}/fragments/${item}/changelog`, { page_token: mint(1, 'abc', `changelog:${item}`) }],
      [`${API}/fragments/${item}/changelog`, { page_token: mint(1, '1e400', `changelog:${item}`) }],
      [`${API}/fragments/${item}/changelog`, { page_token: mint(1, '-5', `changelog:${item}`) }],
      [
        `${API}/fragments/${item}/changelog`,
        { page_token: mint(1, String(2 ** 31), `changelog:${item}`) },
      ],
    ];
    for (const since of ['2147483648', '9999999999']) {
      const res = await app.http.get(`${API}/delta`).query({ since });
      expect(res.status, `since=${since}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `since=${since}`).toBeLessThan(500);
    }
    for (const [path, query] of cases) {
      const res = await app.http.get(path).query(query);
      expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(400);
      expect(res.body.error.name).toBe('InvalidPageTokenError');
    }
  });

  it('signs with a secret made for this installation, not one derived from the app keys, kept across a restart', async () => {
    const keys = app.strapi.config.get('server.app.keys') as string[];
    const derived = createHmac('sha256', keys.join(','))
      .update('sitemap-ai page tokens v1')
      .digest('hex');
    const first = secret();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(first).not.toBe(derived);
    const page = await app.http.get(`${API}/manifest`).query({ limit: 2 }).expect(200);
    const token = page.body.next_page_token as string;

    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, { database: app.database });
    expect(secret()).toBe(first);
    // A traversal started before the restart goes on.
    await app.http.get(`${API}/manifest`).query({ limit: 2, page_token: token }).expect(200);
  });
});
