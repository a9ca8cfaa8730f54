import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryPanelData } from '../../shared/contracts/admin';
import {
  grantPluginAction,
  revokePluginAction,
  roleToken,
  superAdminToken,
} from '../helpers/admin';
import { API, crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const GUIDE = 'api::guide.guide';
const PAGE_ID = 'article:geo-index:en';
const STABILITY = `${PAGE_ID}:stability-and-versions`;
const SECURITY = `${PAGE_ID}:security-and-privacy`;
const WHY = `${PAGE_ID}:why-classic-sitemaps-fail`;

type Doc = { documentId: string; body?: string; sitemapAi?: Record<string, unknown> | null };

function documents(app: TestApp, uid: string) {
  return app.strapi.documents(uid as never) as unknown as {
    findFirst(params: object): Promise<Doc | null>;
    update(params: object): Promise<Doc>;
    publish(params: object): Promise<unknown>;
    discardDraft(params: object): Promise<unknown>;
  };
}

describe.each(testDatabases())('the editors’ entry panel on %s', (client) => {
  let app: TestApp;
  let owner: string;
  let editor: string;
  let geo: Doc;

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const panel = (uid: string, documentId: string, query = '', token = owner) =>
    app.http
      .get(`/sitemap-ai/entries/${encodeURIComponent(uid)}/${documentId}${query}`)
      .set(auth(token));
  const panelData = async (query = '?locale=en'): Promise<EntryPanelData> =>
    (await panel(ARTICLE, geo.documentId, query).expect(200)).body.data as EntryPanelData;
  const byId = (data: EntryPanelData, id: string) => data.fragments.find((f) => f.id === id);
  /**
   * Given the GEO article's English draft as it is published (the seed's): the scenarios that edit
   * that draft start from here, so each stands alone whatever ran before it (any one runs with -t).
   */
  const publishedDraft = () =>
    documents(app, ARTICLE).discardDraft({ documentId: geo.documentId, locale: 'en' });

  beforeAll(async () => {
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
    editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
    geo = (await documents(app, ARTICLE).findFirst({
      filters: { slug: 'geo-index' },
      locale: 'en',
      status: 'draft',
    }))!;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('lists the fragments of a saved draft exactly as the manifest publishes them, all unchanged after the seed', async () => {
    await publishedDraft();
    const data = await panelData();
    expect(data).toMatchObject({
      uid: ARTICLE,
      documentId: geo.documentId,
      locale: 'en',
      removed: [],
      publishedVersion: 'v1.0',
      sensitive: false,
      problems: [],
    });
    const published = (await crawl(app.http, { lang: 'en' })).items.filter(
      (i) => i.id === PAGE_ID || i.parent === PAGE_ID,
    );
    // The panel lists them in document order, the manifest in id order.
    expect(data.fragments.map((f) => f.id).sort()).toEqual(published.map((i) => i.id).sort());
    for (const fragment of data.fragments) {
      const item = published.find((i) => i.id === fragment.id)!;
      expect(fragment, fragment.id).toMatchObject({
        state: 'unchanged',
        checksum: item.checksum,
        url: item.url,
        license: item.license,
        usage: item.usage,
        published: { version: item.version, checksum: item.checksum },
      });
    }
    expect(data.fragments[0]).toMatchObject({
      id: PAGE_ID,
      key: '',
      type: 'article',
      title: published.find((i) => i.id === PAGE_ID)!.title,
    });
    expect(data.fragments[1]!.key).toBe('intro');
    expect(byId(data, WHY)).toMatchObject({
      key: 'why-classic-sitemaps-fail',
      type: 'section',
      title: 'Why classic sitemaps fail',
    });
    // The entry denies training itself; the rest comes from the site.
    expect(byId(data, WHY)!.sources).toEqual({
      license: 'site',
      usage: { train: 'entry', infer: 'site', cache: 'site', redistribute: 'site' },
    });
    expect(data.inherited).toEqual({
      license: 'https://example.com/license#tdm',
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      sources: {
        license: 'site',
        usage: { train: 'site', infer: 'site', cache: 'site', redistribute: 'site' },
      },
    });
    expect(data.licenses.map((l) => l.uri)).toEqual([
      'https://example.com/license#tdm',
      'https://creativecommons.org/licenses/by/4.0/',
    ]);
  });

  it('lists the content types enabled for the manifest, where the panel shows', async () => {
    const res = await app.http.get('/sitemap-ai/content-types').set(auth(owner)).expect(200);
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        { uid: ARTICLE, displayName: 'Article', localized: true },
        { uid: GUIDE, displayName: expect.any(String), localized: false },
      ]),
    );
    expect(res.body.data.map((t: { uid: string }) => t.uid).sort()).toEqual([
      'api::article.article',
      'api::dataset.dataset',
      'api::guide.guide',
      'api::page.page',
    ]);
    expect((await app.http.get('/sitemap-ai/content-types').set(auth(editor))).status).toBe(403);
    expect((await app.http.get('/sitemap-ai/content-types')).status).toBe(401);
  });

  it('shows a translation’s fragments unchanged too (linked to the reference language as when publishing)', async () => {
    const data = await panelData('?locale=sk');
    expect(data.locale).toBe('sk');
    expect(data.fragments.length).toBeGreaterThan(3);
    expect(
      data.fragments.every(
        (f) => f.id.startsWith('article:index-stranok-pre-ai:sk') && f.state === 'unchanged',
      ),
    ).toBe(true);
  });

  it('shows a type without locales with locale null and the type’s own policy', async () => {
    const guide = (await documents(app, GUIDE).findFirst({
      filters: { slug: 'publish-a-dataset-with-a-licence' },
    }))!;
    const data = (await panel(GUIDE, guide.documentId).expect(200)).body.data as EntryPanelData;
    expect(data.locale).toBeNull();
    expect(data.fragments.length).toBeGreaterThan(1);
    expect(data.fragments.every((f) => f.state === 'unchanged')).toBe(true);
    const dataset = (await documents(app, 'api::dataset.dataset').findFirst({}))!;
    const datasetPanel = (await panel('api::dataset.dataset', dataset.documentId).expect(200)).body
      .data as EntryPanelData;
    expect(datasetPanel.inherited.sources).toEqual({
      license: 'type',
      usage: { train: 'type', infer: 'site', cache: 'site', redistribute: 'site' },
    });
  });

  it('compares an edited draft with what is published: an edited section is changed, a new heading new, a removed heading listed as removed', async () => {
    await publishedDraft();
    const body = geo
      .body!.replace(
        /## Security and privacy[\s\S]*$/,
        '## Brand new heading\n\nA section written in the draft only.\n',
      )
      .replace('how often a fragment changes', 'how often, on average, a fragment changes');
    await documents(app, ARTICLE).update({
      documentId: geo.documentId,
      locale: 'en',
      data: { body },
    });

    const data = await panelData();
    expect(byId(data, STABILITY)).toMatchObject({
      state: 'changed',
      published: { version: 'v1.0' },
    });
    expect(byId(data, STABILITY)!.checksum).not.toBe(byId(data, STABILITY)!.published!.checksum);
    expect(byId(data, `${PAGE_ID}:brand-new-heading`)).toMatchObject({
      state: 'new',
      published: null,
      title: 'Brand new heading',
    });
    expect(byId(data, SECURITY)).toBeUndefined();
    expect(data.removed).toEqual([{ id: SECURITY, title: 'Security and privacy' }]);
    expect(byId(data, PAGE_ID)!.state).toBe('changed');
    expect(byId(data, WHY)!.state).toBe('unchanged');
    // A draft is never public.
    expect((await app.http.get(`${API}/fragments/${SECURITY}`).expect(200)).body.item.version).toBe(
      'v1.0',
    );
  });

  it('applies a per-fragment override of the draft to that fragment’s effective usage only', async () => {
    await publishedDraft();
    const draft = (await documents(app, ARTICLE).findFirst({
      filters: { documentId: geo.documentId },
      locale: 'en',
      status: 'draft',
    }))!;
    await documents(app, ARTICLE).update({
      documentId: geo.documentId,
      locale: 'en',
      data: {
        sitemapAi: {
          ...(draft.sitemapAi ?? {}),
          fragments: {
            [WHY]: {
              usage: { train: 'allow' },
              license: 'https://creativecommons.org/licenses/by/4.0/',
            },
          },
        },
      },
    });
    const data = await panelData();
    expect(byId(data, WHY)).toMatchObject({
      state: 'changed',
      license: 'https://creativecommons.org/licenses/by/4.0/',
      usage: { train: 'allow', infer: 'allow-with-citation' },
      sources: {
        license: 'fragment',
        usage: { train: 'fragment', infer: 'site', cache: 'site', redistribute: 'site' },
      },
    });
    expect(byId(data, `${PAGE_ID}:goals-and-principles-of-sitemap-ai`)).toMatchObject({
      state: 'unchanged',
      usage: { train: 'deny' },
    });
  });

  it('keeps an excluded fragment in the list, marked, and lists it as removed when it is published now', async () => {
    await publishedDraft();
    const draft = (await documents(app, ARTICLE).findFirst({
      filters: { documentId: geo.documentId },
      locale: 'en',
      status: 'draft',
    }))!;
    const fragments = {
      ...((draft.sitemapAi?.fragments as object) ?? {}),
      [WHY]: { exclude: true },
    };
    await documents(app, ARTICLE).update({
      documentId: geo.documentId,
      locale: 'en',
      data: { sitemapAi: { ...draft.sitemapAi, fragments } },
    });
    const data = await panelData();
    expect(byId(data, WHY)).toMatchObject({ excluded: true, state: 'changed' });
    expect(data.removed.map((r) => r.id)).toContain(WHY);

    await documents(app, ARTICLE).update({
      documentId: geo.documentId,
      locale: 'en',
      data: { sitemapAi: { ...draft.sitemapAi, sensitive: true } },
    });
    const sensitive = await panelData();
    expect(sensitive.sensitive).toBe(true);
    expect(sensitive.fragments.every((f) => f.excluded === true)).toBe(true);
    expect(sensitive.removed.length).toBeGreaterThan(5);
  });

  it('reports the reason recorded with the last published change, which stays in the draft and would not be used again', async () => {
    const articles = documents(app, ARTICLE);
    const tdm = (await articles.findFirst({
      filters: { slug: 'tdm-licensing' },
      locale: 'en',
      status: 'draft',
    }))!;
    const seeded = (await panel(ARTICLE, tdm.documentId, '?locale=en').expect(200)).body
      .data as EntryPanelData;
    // The seed published it with this reason, and the draft still holds it.
    expect(tdm.sitemapAi?.reason).toBe('Initial publication');
    expect(seeded.lastRecordedReason).toBe('Initial publication');

    await articles.update({
      documentId: tdm.documentId,
      locale: 'en',
      data: {
        body: `${tdm.body}\n\nRobots.txt alone does not reserve TDM rights.`,
        sitemapAi: { ...tdm.sitemapAi, reason: '  Explain robots.txt and TDM  ' },
      },
    });
    const drafted = (await panel(ARTICLE, tdm.documentId, '?locale=en').expect(200)).body
      .data as EntryPanelData;
    expect(drafted.lastRecordedReason).toBe('Initial publication');

    await articles.publish({ documentId: tdm.documentId, locale: 'en' });
    const published = (await panel(ARTICLE, tdm.documentId, '?locale=en').expect(200)).body
      .data as EntryPanelData;
    // Trimmed, as the tracker compares it with the next publish's reason.
    expect(published.lastRecordedReason).toBe('Explain robots.txt and TDM');
    const changelog = (
      await app.http.get(`${API}/fragments/article:tdm-licensing:en/changelog`).expect(200)
    ).body as { entries: { desc: string }[] };
    expect(changelog.entries[0]!.desc).toBe('Explain robots.txt and TDM');
  });

  it.each([
    ['a type that is not enabled', 'api::internal-memo.internal-memo', 'DOC', '', 'uid'],
    ['a malformed uid', 'article', 'DOC', '', 'uid'],
    ['a malformed document id', ARTICLE, 'abc$def', '', 'documentId'],
    ['a malformed locale', ARTICLE, 'DOC', '?locale=en_US!', 'locale'],
    ['a locale the site does not have', ARTICLE, 'DOC', '?locale=de', 'locale'],
    ['two locales', ARTICLE, 'DOC', '?locale=en&locale=sk', 'locale'],
    ['an unknown parameter', ARTICLE, 'DOC', '?status=published', 'status'],
  ])('answers 400 to %s, naming it', async (_name, uid, documentId, query, parameter) => {
    const res = await panel(uid, documentId === 'DOC' ? geo.documentId : documentId, query);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`"${parameter}"`);
  });

  it('answers 404 to a document that does not exist, or not in that locale', async () => {
    expect((await panel(ARTICLE, 'nosuchdocument0000000000', '?locale=en')).status).toBe(404);
    const english = (await documents(app, ARTICLE).findFirst({
      filters: { slug: 'tdm-licensing' },
      locale: 'en',
      status: 'draft',
    }))!;
    const res = await panel(ARTICLE, english.documentId, '?locale=sk');
    expect(res.status).toBe(404);
    expect(res.body.error.name).toBe('NotFoundError');
  });

  it('refuses an Editor without the "edit AI fields" permission (403) and a request without a token (401); a granted Editor reads it', async () => {
    expect((await panel(ARTICLE, geo.documentId, '?locale=en', editor)).status).toBe(403);
    expect((await app.http.get(`/sitemap-ai/entries/${ARTICLE}/${geo.documentId}`)).status).toBe(
      401,
    );

    await grantPluginAction(app, 'strapi-editor', 'fields.edit');
    try {
      const granted = await roleToken(app, 'strapi-editor', 'granted-editor@example.com');
      expect((await panel(ARTICLE, geo.documentId, '?locale=en', granted)).status).toBe(200);
    } finally {
      // The other scenarios meet Strapi's Editor role as it ships.
      await revokePluginAction(app, 'strapi-editor', 'fields.edit');
    }
  });
});
