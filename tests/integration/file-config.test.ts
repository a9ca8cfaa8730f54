import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsData } from '../../shared/contracts/admin';
import type { ChangelogPage, ManifestItem } from '../../shared/contracts/manifest';
import { loginToken, superAdminToken } from '../helpers/admin';
import { API, crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const GEO = 'article:geo-index:en';

describe.each(testDatabases())('a change of config/plugins between two starts on %s', (client) => {
  let app: TestApp;
  let owner: string;

  const auth = () => ({ Authorization: `Bearer ${owner}` });
  const readSettings = async (): Promise<SettingsData> =>
    (await app.http.get('/sitemap-ai/settings').set(auth()).expect(200)).body.data as SettingsData;
  const rebuild = () =>
    app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
  const store = () => app.strapi.store({ type: 'plugin', name: 'sitemap-ai' });
  const item = (items: ManifestItem[], id: string) => {
    const found = items.find((i) => i.id === id);
    if (!found) throw new Error(`${id} is not in the manifest`);
    return found;
  };

  beforeAll(async () => {
    // Given a site whose owner saved Settings once (a Settings-only choice: cache denied).
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
    const settings = (await readSettings()).settings;
    settings.defaults.usage.cache = 'deny';
    await app.http.put('/sitemap-ai/settings').set(auth()).send(settings).expect(200);
    await rebuild();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves the new path pattern after the first rebuild that follows the restart, keeps the saved Settings, and logs why', async () => {
    const before = item((await crawl(app.http)).items, GEO);
    expect(before.url).toBe('https://example.com/en/articles/geo-index');
    expect(before.usage.cache).toBe('deny');
    const seenBefore = await store().get({ key: 'file-config' });

    // When config/plugins changes the article path and Strapi restarts.
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, {
      database: app.database,
      env: { SITEMAP_AI_ARTICLE_PATH: '/{locale}/blog/{slug}' },
    });
    owner = await loginToken(app);

    // Then the boot noticed it (the file config it saw is recorded) …
    const seenAfter = await store().get({ key: 'file-config' });
    expect(seenAfter).not.toEqual(seenBefore);
    // … the Settings show the file's new value over the older save, and keep the saved choice …
    const settings = (await readSettings()).settings;
    expect(settings.contentTypes[ARTICLE]!.pathPattern).toBe('/{locale}/blog/{slug}');
    expect(settings.defaults.usage.cache).toBe('deny');
    // … nothing public changes before a rebuild …
    expect(item((await crawl(app.http)).items, GEO).url).toBe(
      'https://example.com/en/articles/geo-index',
    );

    // … and the first rebuild after it publishes the new URLs with a changelog saying why.
    const result = await rebuild();
    expect(result.skipped).toBe(false);
    const items = (await crawl(app.http)).items;
    const after = item(items, GEO);
    expect(after.url).toBe('https://example.com/en/blog/geo-index');
    expect(after.usage.cache).toBe('deny');
    expect(after.checksum).toBe(before.checksum);
    for (const i of items.filter((x) => x.id.startsWith('article:'))) {
      expect(i.url, i.id).toMatch(/^https:\/\/example\.com\/(en|sk)\/blog\//);
    }
    const log = (await app.http.get(`${API}/fragments/${GEO}/changelog`).expect(200))
      .body as ChangelogPage;
    expect(log.entries[0]!.kind).toBe('metadata');
    expect(log.entries[0]!.desc).toMatch(/^plugin config changed \(config\/plugins\)/);
  });

  it('names the changed Settings field when the boot check sees a different file config', async () => {
    const settings = app.strapi.plugin('sitemap-ai').service('settings');
    // The same file config as recorded: nothing to report.
    expect(await settings.noticeFileConfig()).toEqual([]);
    // A record of the file config before the path changed.
    const seen = (await store().get({ key: 'file-config' })) as {
      print: string;
      editable: SettingsData['settings'];
    };
    const older = structuredClone(seen.editable);
    older.contentTypes[ARTICLE]!.pathPattern = '/{locale}/articles/{slug}';
    await store().set({
      key: 'file-config',
      value: { print: 'an older file config', editable: older },
    });
    expect(await settings.noticeFileConfig()).toEqual([
      'contentTypes["api::article.article"].pathPattern',
    ]);
  });
});
