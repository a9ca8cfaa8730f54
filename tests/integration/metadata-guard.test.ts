import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantLocales,
  grantPluginAction,
  revokePluginAction,
  roleToken,
  superAdminToken,
} from '../helpers/admin';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const CM = `/content-manager/collection-types/${ARTICLE}`;

type Doc = {
  documentId: string;
  title: string;
  summary?: string;
  sitemapAi?: Record<string, unknown> | null;
};

function documents(app: TestApp) {
  return app.strapi.documents(ARTICLE as never) as unknown as {
    findFirst(params: object): Promise<Doc | null>;
    findOne(params: object): Promise<Doc | null>;
    update(params: object): Promise<Doc>;
    create(params: object): Promise<Doc>;
  };
}

/**
 * The server-side guard of the editors' `sitemapAi` values (docs/protocol.md §7; README › In the admin):
 * the Content Manager's admin API is what the edit view calls on Save.
 */
describe.each(testDatabases())('the guard of the editors’ values on %s', (client) => {
  let app: TestApp;
  let owner: string;
  let editor: string;
  let doc: Doc;

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const draft = async () =>
    (await documents(app).findOne({ documentId: doc.documentId, locale: 'en', status: 'draft' }))!;
  const save = (token: string, body: object) =>
    app.http.put(`${CM}/${doc.documentId}?locale=en`).set(auth(token)).send(body);

  beforeAll(async () => {
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
    editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
    await grantLocales(app, 'strapi-editor', ARTICLE, ['en', 'sk']);
    doc = (await documents(app).findFirst({
      filters: { slug: 'fragment-permalinks' },
      locale: 'en',
      status: 'draft',
    }))!;
    expect(doc.sitemapAi).toBeTruthy();
  });

  afterAll(async () => {
    await app?.close();
  });

  it.each([
    [{ usage: { train: 'sometimes' } }, 'sitemapAi.usage.train'],
    [{ licence: 'https://example.com/l' }, 'sitemapAi.licence'],
    [{ evidence: [{ rel: 'standard', url: 'javascript:alert(1)' }] }, 'sitemapAi.evidence[0].url'],
    [
      { fragments: { 'article:fragment-permalinks:en': { sensitive: true } } },
      'sitemapAi.fragments["article:fragment-permalinks:en"].sensitive',
    ],
    [{ stability_pin: 2 }, 'sitemapAi.stability_pin'],
    ['{"usage":{}}', 'sitemapAi'],
  ])(
    'refuses an invalid value %j saved through the Content Manager with a 400 naming %s, and keeps the stored value',
    async (value, field) => {
      const before = await draft();
      const res = await save(owner, { title: before.title, sitemapAi: value });
      expect(res.status).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
      expect(res.body.error.message).toContain(`${field}:`);
      expect(res.body.error.details.errors[0].path[0]).toBe('sitemapAi');
      expect((await draft()).sitemapAi).toEqual(before.sitemapAi);
    },
  );

  it('lets a super admin save a valid change', async () => {
    const before = await draft();
    const next = {
      ...before.sitemapAi,
      topics: ['Permalinks', 'Anchors'],
      reason: 'Better topics',
    };
    const res = await save(owner, { title: before.title, sitemapAi: next });
    expect(res.status).toBe(200);
    expect((await draft()).sitemapAi).toEqual(next);
  });

  it('refuses an Editor without the "edit AI fields" permission who changes the value (403), and keeps the stored value', async () => {
    const before = await draft();
    const res = await save(editor, {
      title: before.title,
      sitemapAi: { ...before.sitemapAi, usage: { train: 'allow' } },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('plugin::sitemap-ai.fields.edit');
    expect((await draft()).sitemapAi).toEqual(before.sitemapAi);
    // Clearing the values is a change too.
    expect((await save(editor, { title: before.title, sitemapAi: null })).status).toBe(403);
    expect((await draft()).sitemapAi).toEqual(before.sitemapAi);
  });

  it('lets that Editor save the entry with the same value, or without it', async () => {
    const before = await draft();
    const same = await save(editor, {
      title: before.title,
      summary: 'Edited by an Editor.',
      sitemapAi: before.sitemapAi,
    });
    expect(same.status).toBe(200);
    const without = await save(editor, {
      title: before.title,
      summary: 'Edited again by an Editor.',
    });
    expect(without.status).toBe(200);
    const after = await draft();
    expect(after.summary).toBe('Edited again by an Editor.');
    expect(after.sitemapAi).toEqual(before.sitemapAi);
  });

  it('refuses an Editor who creates an entry with AI values (403), and lets them create one without', async () => {
    const refused = await app.http
      .post(`${CM}?locale=en`)
      .set(auth(editor))
      .send({
        title: 'Editor draft',
        slug: 'editor-draft',
        sitemapAi: { usage: { train: 'allow' } },
      });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('plugin::sitemap-ai.fields.edit');
    expect(
      await documents(app).findFirst({
        filters: { slug: 'editor-draft' },
        locale: 'en',
        status: 'draft',
      }),
    ).toBeNull();
    const created = await app.http
      .post(`${CM}?locale=en`)
      .set(auth(editor))
      .send({ title: 'Editor draft', slug: 'editor-draft' });
    expect(created.status).toBe(201);
  });

  it('checks values written without a request (scripts, seeds) too, but needs no permission there', async () => {
    await expect(
      documents(app).update({
        documentId: doc.documentId,
        locale: 'en',
        data: { sitemapAi: { usage: { train: 'maybe' } } },
      }),
    ).rejects.toThrow(/sitemapAi\.usage\.train/);
    const next = { usage: { train: 'allow' as const } };
    await documents(app).update({
      documentId: doc.documentId,
      locale: 'en',
      data: { sitemapAi: next },
    });
    expect((await draft()).sitemapAi).toEqual(next);
  });

  it('lets an Editor change the values once the role has the permission', async () => {
    await grantPluginAction(app, 'strapi-editor', 'fields.edit');
    try {
      const before = await draft();
      const next = { ...before.sitemapAi, usage: { train: 'deny' } };
      expect((await save(editor, { title: before.title, sitemapAi: next })).status).toBe(200);
      expect((await draft()).sitemapAi).toEqual(next);
    } finally {
      // The other scenarios meet Strapi's Editor role as it ships.
      await revokePluginAction(app, 'strapi-editor', 'fields.edit');
    }
  });
});
