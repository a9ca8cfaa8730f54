import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManifestItem } from '../../shared/contracts/manifest';
import type { GeoMetrics } from '../../shared/contracts/admin';
import { reportAssistantVisit } from '../../client/src/client';
import { superAdminToken } from '../helpers/admin';
import { API, pathOf } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const PAGE_ID = 'article:fragment-permalinks:en';
const GPTBOT = 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)';

/**
 * GEO metrics (issue 12): an agent picks up a published change (time-to-index), asks for an
 * outdated copy (drift), and a front end reports visits that arrive from AI assistants.
 */
describe.each(testDatabases())('GEO metrics on %s', (client) => {
  let app: TestApp;
  let owner: string;

  beforeAll(async () => {
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  const auth = () => ({ Authorization: `Bearer ${owner}` });
  const plugin = () => app.strapi.plugin('sitemap-ai');
  const metrics = async (): Promise<GeoMetrics> => {
    await plugin().service('access-log').flush();
    return (await app.http.get('/sitemap-ai/geo').set(auth()).expect(200)).body.data;
  };

  it('measures time-to-index and drift from what agents fetch after a published change', async () => {
    const before = (
      await app.http.get(`${API}/fragments/${PAGE_ID}`).set('User-Agent', GPTBOT).expect(200)
    ).body.item as ManifestItem;
    const articles = app.strapi.documents('api::article.article' as never) as unknown as {
      findFirst(params: object): Promise<{ documentId: string; body: string } | null>;
      update(params: object): Promise<unknown>;
      publish(params: object): Promise<unknown>;
    };
    const doc = await articles.findFirst({
      filters: { slug: 'fragment-permalinks' },
      locale: 'en',
      status: 'draft',
    });
    await articles.update({
      documentId: doc!.documentId,
      locale: 'en',
      data: { body: `${doc!.body}\n\nA line added for the GEO test.` },
    });
    await articles.publish({ documentId: doc!.documentId, locale: 'en' });
    await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });

    // GPTBot comes back for the page, and once more with its outdated copy's validators.
    const after = (
      await app.http.get(`${API}/fragments/${PAGE_ID}`).set('User-Agent', GPTBOT).expect(200)
    ).body.item as ManifestItem;
    expect(after.version).not.toBe(before.version);
    await app.http
      .get(pathOf(after.content_url))
      .set('User-Agent', GPTBOT)
      .set('If-None-Match', `"${before.checksum.replace('sha256:', '')}"`)
      .expect(200);

    // ClaudeBot reads the delta since the snapshot before the edit: that holds the change too.
    const snapshots = (await app.strapi
      .plugin('sitemap-ai')
      .service('manifest')
      .recentSnapshots(2)) as {
      seq: number;
    }[];
    await app.http
      .get(`${API}/delta`)
      .query({ since: String(snapshots[1]!.seq) })
      .set('User-Agent', 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)')
      .expect(200);

    const data = await metrics();
    expect(data.timeToIndex.find((r) => r.agent === 'ClaudeBot')?.count).toBeGreaterThanOrEqual(1);
    const gpt = data.timeToIndex.find((r) => r.agent === 'GPTBot');
    expect(gpt?.count).toBeGreaterThanOrEqual(1);
    expect(gpt?.median).toBeGreaterThanOrEqual(0);
    expect(gpt!.p90).toBeGreaterThanOrEqual(gpt!.median!);
    const month = data.drift.at(-1)!;
    expect(month.drift).toBeGreaterThanOrEqual(1);
    expect(month.rate).toBeCloseTo(month.drift / month.fetches);
    expect(month.target).toBe(0.01);
    expect(data.agents.find((a) => a.agent === 'GPTBot')?.successRatio).toBe(1);
    expect(data.daily.some((d) => d.agent === 'GPTBot' && d.requests >= 3)).toBe(true);
    expect(data.topFragments.map((f) => f.itemId)).toContain(PAGE_ID);
  });

  it('records visits a front end reports from AI assistants, ignores others, refuses bad input', async () => {
    const page = (await app.http.get(`${API}/fragments/${PAGE_ID}`).expect(200)).body
      .item as ManifestItem;
    const beacon = (query: Record<string, string>) => app.http.get(`${API}/beacon`).query(query);
    await beacon({ url: `${page.url}#stable-anchors`, ref: 'https://chatgpt.com/c/1' }).expect(204);
    // The client kit's helper, as a front end calls it, through a live HTTP server.
    const server = app.strapi.server.httpServer;
    if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await reportAssistantVisit(base, { landing: `${page.url}?utm_source=perplexity` })).toBe(
      true,
    );
    await beacon({ url: page.url, ref: 'https://www.google.com/' }).expect(204); // not an assistant
    await beacon({ url: 'https://example.com/nowhere', ref: 'https://chatgpt.com/' }).expect(204); // no page
    await beacon({ ref: 'https://chatgpt.com/' }).expect(400);
    await beacon({ url: 'not a url', ref: 'https://chatgpt.com/' }).expect(400);
    await beacon({ url: page.url, ip: '1.2.3.4' }).expect(400);
    await app.http.post(`${API}/beacon`).send({ url: page.url }).expect(405);

    const data = await metrics();
    expect(data.assistants).toEqual([
      { assistant: 'ChatGPT', visits: 1 },
      { assistant: 'Perplexity', visits: 1 },
    ]);
    expect(data.topVisited).toContainEqual({
      itemId: PAGE_ID,
      anchor: 'stable-anchors',
      visits: 1,
    });
    const visits = (await app.strapi.db
      .query('plugin::sitemap-ai.assistant-visit')
      .findMany({})) as {
      client: string;
    }[];
    expect(visits).toHaveLength(2);
    for (const v of visits) expect(v.client).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('exports each table as CSV to owners only, and refuses unknown tables and windows', async () => {
    const csv = await app.http
      .get('/sitemap-ai/geo.csv')
      .query({ table: 'assistants' })
      .set(auth())
      .expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).toBe('day,assistant,visits');
    expect(csv.text).toContain(',ChatGPT,1');
    const drift = await app.http
      .get('/sitemap-ai/geo.csv')
      .query({ table: 'drift', days: '7' })
      .set(auth())
      .expect(200);
    expect(drift.text.split('\r\n')[0]).toBe('month,item_fetches,drift,rate,target');
    await app.http.get('/sitemap-ai/geo.csv').query({ table: 'secrets' }).set(auth()).expect(400);
    await app.http.get('/sitemap-ai/geo').query({ days: '0' }).set(auth()).expect(400);
    await app.http.get('/sitemap-ai/geo').query({ days: '400' }).set(auth()).expect(400);
    await app.http.get('/sitemap-ai/geo').expect(401);
  });
});
