import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsData } from '../../shared/contracts/admin';
import type { ManifestItem } from '../../shared/contracts/manifest';
import { superAdminToken } from '../helpers/admin';
import { crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const PASSWORD = 'Test-Admin-2026';

/**
 * Policy integrity (issue: "a reverted permission stays published"): whatever stopped when, the
 * manifest publishes only the licence and usage that the current settings and entry values give.
 */
describe.each(testDatabases())(
  'policy integrity across an interrupted re-compare on %s',
  (client) => {
    let app: TestApp;
    let owner: string;

    const auth = () => ({ Authorization: `Bearer ${owner}` });
    const plugin = () => app.strapi.plugin('sitemap-ai');
    const setTrain = async (train: string) => {
      const data = (await app.http.get('/sitemap-ai/settings').set(auth()).expect(200)).body
        .data as SettingsData;
      data.settings.defaults.usage.train =
        train as SettingsData['settings']['defaults']['usage']['train'];
      await app.http.put('/sitemap-ai/settings').set(auth()).send(data.settings).expect(200);
    };
    const usageById = (items: ManifestItem[]) =>
      Object.fromEntries(
        items.map((item) => [item.id, { license: item.license, usage: item.usage }]),
      );

    beforeAll(async () => {
      app = await bootPlayground(client);
      owner = await superAdminToken(app);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('never publishes a train permission the owner reverted while a re-compare was cut short', async () => {
      // Given a site whose owner saved Settings ("train: deny") and whose manifest was rebuilt.
      await setTrain('deny');
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      const before = usageById((await crawl(app.http)).items);
      expect(Object.values(before).some((i) => i.usage.train === 'deny')).toBe(true);

      // When the owner allows training and the re-compare that follows stores its results but the
      // process stops before the snapshot is published (what a kill -9 at that moment leaves) …
      await setTrain('allow');
      const recompare = await plugin().service('tracker').reconcileAll('site settings changed');
      expect(recompare.changed).toBeGreaterThan(0);
      await app.close({ keepDatabase: true });
      app = await bootPlayground(client, { database: app.database });
      owner = (
        await app.http
          .post('/admin/login')
          .send({ email: 'owner@example.com', password: PASSWORD })
          .expect(200)
      ).body.data.token as string;

      // … and after the restart the owner denies training again, and a rebuild runs.
      await setTrain('deny');
      const result = await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      expect(result.failures).toEqual([]);

      // Then every published item has the licence and usage it had under "deny".
      const after = usageById((await crawl(app.http)).items);
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      expect(after).toEqual(before);
      const pending = await app.strapi.db
        .query('plugin::sitemap-ai.fragment-state')
        .count({ where: { pending: true } });
      expect(pending).toBe(0);
    });

    it('publishes the permission once the owner keeps it, after an interrupted re-compare', async () => {
      await setTrain('allow');
      await plugin().service('tracker').reconcileAll('site settings changed');
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      const items = (await crawl(app.http)).items;
      const article = items.find((i) => i.id === 'article:fragment-permalinks:en');
      expect(article?.usage.train).toBe('allow');
      // An entry that denies training itself keeps denying it.
      expect(items.find((i) => i.id === 'article:geo-index:en')?.usage.train).toBe('deny');
    });
  },
);
