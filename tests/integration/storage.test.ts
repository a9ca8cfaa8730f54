import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const CHANGELOG = 'plugin::sitemap-ai.changelog-entry';

interface Documents {
  findFirst(p: object): Promise<{ documentId: string; body: string }>;
  update(p: object): Promise<unknown>;
  publish(p: object): Promise<unknown>;
  unpublish(p: object): Promise<unknown>;
}

/**
 * Issue 9, storage hygiene: the changelog keeps what its retention says — every entry younger
 * than `changelogRetention.days`, and of older ones each served item's latest `keepPerItem` —
 * and the history of an item no longer served goes whole.
 */
describe.each(testDatabases())('changelog retention on %s', (client) => {
  let app: TestApp;
  const builder = () => app.strapi.plugin('sitemap-ai').service('snapshot-builder');
  const documents = () => app.strapi.documents(ARTICLE as never) as unknown as Documents;
  const rows = async (where: object = {}) =>
    (await app.strapi.db.query(CHANGELOG).findMany({ where, orderBy: { id: 'asc' } })) as {
      id: number;
      item_id: string;
      version: string;
    }[];

  async function edit(slug: string, n: number): Promise<void> {
    const doc = await documents().findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
    await documents().update({
      documentId: doc.documentId,
      locale: 'en',
      data: { body: `${doc.body}\n\nEdit number ${n}.` },
    });
    await documents().publish({ documentId: doc.documentId, locale: 'en' });
    await builder().rebuild({ trigger: 'test' });
  }

  beforeAll(async () => {
    // Everything is "old" (0 days) and each item keeps its latest 2; collected on demand only.
    app = await bootPlayground(client, {
      env: {
        SITEMAP_AI_CHANGELOG_DAYS: '0',
        SITEMAP_AI_CHANGELOG_KEEP: '2',
        SITEMAP_AI_CHANGELOG_COLLECT_MINUTES: '1440',
      },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('keeps the latest entries of each served item and the whole history of nothing that is gone', async () => {
    // Given a page edited four times (five entries: added + four edits) and a page taken down
    const page = 'article:geo-index:en';
    for (let n = 1; n <= 4; n += 1) await edit('geo-index', n);
    expect((await rows({ item_id: page })).map((r) => r.version)).toEqual([
      'v1.0',
      'v2.0',
      'v3.0',
      'v4.0',
      'v5.0',
    ]);
    const gone = await documents().findFirst({
      filters: { slug: 'tdm-licensing' },
      locale: 'en',
      status: 'draft',
    });
    await documents().unpublish({ documentId: gone.documentId, locale: 'en' });
    await builder().rebuild({ trigger: 'test' });
    expect(
      (await rows({ item_id: { $startsWith: 'article:tdm-licensing:en' } })).length,
    ).toBeGreaterThan(0);
    const total = (await rows()).length;
    const removedBefore = Number(
      await app.strapi.db
        .query('plugin::sitemap-ai.fragment-state')
        .count({ where: { removed: true } }),
    );
    expect(removedBefore).toBeGreaterThan(0);

    // When the changelog is collected
    const deleted = (await builder().collectChangelog()) as number;

    // Then each served item keeps its latest two, the page taken down keeps nothing
    const after = await rows();
    expect(deleted).toBe(total - after.length + removedBefore);
    expect((await rows({ item_id: page })).map((r) => r.version)).toEqual(['v4.0', 'v5.0']);
    expect(await rows({ item_id: { $startsWith: 'article:tdm-licensing:en' } })).toEqual([]);
    const removedStates = await app.strapi.db
      .query('plugin::sitemap-ai.fragment-state')
      .count({ where: { item_id: { $startsWith: 'article:tdm-licensing:en' } } });
    expect(Number(removedStates)).toBe(0);
    const perItem = new Map<string, number>();
    for (const row of after) perItem.set(row.item_id, (perItem.get(row.item_id) ?? 0) + 1);
    expect(Math.max(...perItem.values())).toBeLessThanOrEqual(2);

    // And the public changelog serves what is kept, newest first
    const served = await app.http.get(`${API}/fragments/${page}/changelog`).expect(200);
    expect(served.body.entries.map((c: { version: string }) => c.version)).toEqual([
      'v5.0',
      'v4.0',
    ]);

    // And collecting again finds nothing more
    expect(await builder().collectChangelog()).toBe(0);
  });
});

/**
 * Issue 9: the access log flushes on shutdown. `record` only queues; what is queued when Strapi
 * stops is written by `destroy`, so a clean stop loses nothing.
 */
describe.each(testDatabases())('access log at shutdown on %s', (client) => {
  let app: TestApp;

  afterAll(async () => {
    await app?.close();
  });

  it('writes every queued entry before Strapi stops', async () => {
    app = await bootPlayground(client, { env: { PLAYGROUND_SEED: 'false' } });
    const entries = () =>
      app.strapi.db.query('plugin::sitemap-ai.access-log-entry').count({}) as Promise<number>;
    const before = Number(await entries());
    const log = app.strapi.plugin('sitemap-ai').service('access-log');
    const N = 3_000;
    for (let i = 0; i < N; i += 1)
      log.record({
        at: new Date().toISOString(),
        agent: 'GPTBot',
        route: 'manifest',
        itemId: null,
        status: 200,
        ip: `198.51.100.${i % 250}`,
        validators: { versions: [], checksums: [] },
      });
    // Stop at once, with most of them still queued
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, {
      database: app.database,
      env: { PLAYGROUND_SEED: 'false' },
    });
    expect(Number(await entries()) - before).toBe(N);
  });
});
