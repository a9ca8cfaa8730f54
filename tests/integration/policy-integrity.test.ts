import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsData } from '../../shared/contracts/admin';
import type { ManifestItem } from '../../shared/contracts/manifest';
import { loginToken, superAdminToken } from '../helpers/admin';
import { API, crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';
import { pendingStates, storedData } from '../helpers/stored';

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
      owner = await loginToken(app);

      // … and after the restart the owner denies training again, and a rebuild runs.
      await setTrain('deny');
      const result = await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      expect(result.failures).toEqual([]);

      // Then every published item has the licence and usage it had under "deny".
      const after = usageById((await crawl(app.http)).items);
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      expect(after).toEqual(before);
      expect(await pendingStates(app.strapi)).toEqual([]);
    });

    it('refuses at publish time an item whose licence is not what the settings and entry give, and publishes it right at the next build', async () => {
      const PAGE_ID = 'article:fragment-permalinks:en';
      const before = (await app.http.get(`${API}/fragments/${PAGE_ID}`).expect(200)).body.item;
      // Given an edit waiting to be published …
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
        data: { body: `${doc!.body}\n\nA closing line added for this test.` },
      });
      await articles.publish({ documentId: doc!.documentId, locale: 'en' });
      // (the publish queued its tracking: recorded now, so that there is a state to alter)
      await plugin().service('tracker').flush();
      // … whose stored state was altered to publish another licence (a defect, or tampering).
      const row = (await pendingStates(app.strapi)).find((state) => state.item_id === PAGE_ID)!;
      const stored = await storedData(app.strapi, 'plugin::sitemap-ai.fragment-state', row.id);
      await stored.replace({ ...stored.data, license: 'https://attacker.example/license' });

      // When the next build runs, that item keeps its published version …
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      const held = (await app.http.get(`${API}/fragments/${PAGE_ID}`).expect(200)).body.item;
      expect(held.license).toBe(before.license);
      expect(held.version).toBe(before.version);

      // … and the build after computes it again and publishes the edit with the right licence.
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      const fixed = (await app.http.get(`${API}/fragments/${PAGE_ID}`).expect(200)).body.item;
      expect(fixed.license).toBe(before.license);
      expect(fixed.version).not.toBe(before.version);
      expect(fixed.checksum).not.toBe(before.checksum);
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

    it('shows in the readiness checklist which published items the current settings no longer back, until the next build', async () => {
      const readiness = plugin().service('readiness');
      const policyCheck = async () =>
        (
          (await readiness.check({ fresh: true })) as {
            checks: {
              id: string;
              ok: boolean;
              summary: string;
              failureCount: number;
              failures: { itemId: string; detail: string; editPath: string }[];
            }[];
          }
        ).checks.find((c) => c.id === 'policy')!;
      // Given a published snapshot that says what the settings say
      expect((await policyCheck()).ok).toBe(true);

      // When the owner denies training again and no build has run yet
      await setTrain('deny');
      const stale = await policyCheck();

      // Then the check fails, naming the items that still say "allow" and their entries
      expect(stale.ok).toBe(false);
      expect(stale.failureCount).toBeGreaterThan(0);
      const article = stale.failures.find((f) => f.itemId === 'article:fragment-permalinks:en');
      expect(article?.detail).toMatch(/usage .*"train":"allow".* published, .*"train":"deny"/);
      expect(article?.editPath).toMatch(
        /^\/content-manager\/collection-types\/api::article\.article\//,
      );
      expect(stale.failures.some((f) => f.itemId === 'article:geo-index:en')).toBe(false);

      // And after the next build it passes again
      await plugin().service('tracker').reconcileAll('site settings changed');
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      const fixed = await policyCheck();
      expect(fixed.ok, fixed.summary).toBe(true);
      expect(fixed.failureCount).toBe(0);
    });
  },
);

describe.each(testDatabases())(
  'excluded and sensitive are gone from every public output on %s',
  (client) => {
    let app: TestApp;
    const ARTICLE = 'api::article.article';
    const PAGE = 'article:measuring-ai-crawler-ingest:en';
    const REASON = 'marked sensitive: legal hold on the crawler figures';

    type Doc = { documentId: string; sitemapAi?: Record<string, unknown> | null };
    const articles = () =>
      app.strapi.documents(ARTICLE as never) as unknown as {
        findFirst(params: object): Promise<Doc | null>;
        update(params: object): Promise<Doc>;
        publish(params: object): Promise<unknown>;
      };
    const rebuild = () =>
      app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
    const publishMetadata = async (metadata: Record<string, unknown>) => {
      const doc = await articles().findFirst({
        filters: { slug: 'measuring-ai-crawler-ingest' },
        locale: 'en',
        status: 'draft',
      });
      if (!doc) throw new Error('no seed article');
      await articles().update({
        documentId: doc.documentId,
        locale: 'en',
        data: { sitemapAi: { ...(doc.sitemapAi ?? {}), ...metadata } },
      });
      await articles().publish({ documentId: doc.documentId, locale: 'en' });
    };
    const body = async (path: string) => {
      const res = await app.http.get(path);
      return `${res.status} ${res.text}`;
    };

    beforeAll(async () => {
      app = await bootPlayground(client);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('serves an excluded section in no content, the page content included', async () => {
      const items = (await crawl(app.http)).items;
      const section = items.find(
        (i) => i.parent === PAGE && i.type === 'section' && !i.id.endsWith(':intro'),
      );
      if (!section) throw new Error('the seed article has sections');
      const text = (await app.http.get(`${API}/fragments/${section.id}/content`).expect(200)).text;
      expect((await app.http.get(`${API}/fragments/${PAGE}/content`).expect(200)).text).toContain(
        text,
      );

      await publishMetadata({ fragments: { [section.id]: { exclude: true } } });
      await rebuild();

      const after = (await crawl(app.http)).items;
      expect(after.map((i) => i.id)).not.toContain(section.id);
      for (const item of after.filter((i) => i.parent === PAGE || i.id === PAGE)) {
        const content = await app.http.get(`${API}/fragments/${item.id}/content`).expect(200);
        expect(content.text, item.id).not.toContain(text);
      }
      await app.http.get(`${API}/fragments/${section.id}/changelog`).expect(404);
    });

    it('keeps nothing of a later-sensitive entry public: no content, no history, tombstones of id and time only', async () => {
      const since = String(
        (await app.strapi.plugin('sitemap-ai').service('manifest').current()).seq,
      );
      const ids = (await crawl(app.http)).items
        .filter((i) => i.id === PAGE || i.parent === PAGE)
        .map((i) => i.id);
      expect(ids.length).toBeGreaterThan(2);

      await publishMetadata({ sensitive: true, reason: REASON });
      const result = await rebuild();
      expect(result.snapshot!.changes.removed).toBe(ids.length);

      const outputs: string[] = [];
      let token: string | null = null;
      do {
        const res = await app.http
          .get(`${API}/delta`)
          .query({ since, ...(token ? { page_token: token } : {}) })
          .expect(200);
        outputs.push(res.text);
        for (const tombstone of res.body.removed as Record<string, unknown>[]) {
          expect(Object.keys(tombstone).sort()).toEqual(['id', 'removed_at']);
        }
        token = res.body.next_page_token as string | null;
      } while (token);
      for (const id of ids) {
        outputs.push(await body(`${API}/fragments/${id}`));
        outputs.push(await body(`${API}/fragments/${id}/content`));
        const history = await body(`${API}/fragments/${id}/changelog`);
        expect(history).toMatch(/^404 /);
        outputs.push(history);
      }
      outputs.push(JSON.stringify((await crawl(app.http)).items));
      for (const output of outputs) {
        expect(output).not.toContain('legal hold');
        expect(output).not.toContain('Measuring AI crawler ingest');
      }
    });
  },
);
