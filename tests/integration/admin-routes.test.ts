import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleToken, superAdminToken } from '../helpers/admin';
import { bootPlayground, type TestApp } from '../helpers/strapi';

describe('admin routes of the plugin', () => {
  let app: TestApp;
  let owner: string;
  let editor: string;

  beforeAll(async () => {
    app = await bootPlayground('sqlite');
    owner = await superAdminToken(app);
    editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('registers the plugin permissions', async () => {
    const permission = app.strapi.admin.services.permission;
    expect(permission).toBeDefined();
    const actions = permission!.actionProvider
      .values()
      .map((a: { actionId: string }) => a.actionId);
    for (const action of [
      'settings.read',
      'settings.update',
      'fields.edit',
      'rebuild',
      'dashboard.read',
    ]) {
      expect(actions).toContain(`plugin::sitemap-ai.${action}`);
    }
  });

  it('refuses a rebuild without an admin token (401) and to an Editor (403), and changes nothing', async () => {
    const before = await app.strapi.plugin('sitemap-ai').service('manifest').current();
    expect((await app.http.post('/sitemap-ai/rebuild').send({})).status).toBe(401);
    const forbidden = await app.http
      .post('/sitemap-ai/rebuild')
      .set('Authorization', `Bearer ${editor}`)
      .send({});
    expect(forbidden.status).toBe(403);
    expect(
      (await app.http.get('/sitemap-ai/snapshots').set('Authorization', `Bearer ${editor}`)).status,
    ).toBe(403);
    expect((await app.strapi.plugin('sitemap-ai').service('manifest').current()).seq).toBe(
      before.seq,
    );
  });

  it('lets a super admin rebuild now and list snapshots; a full rebuild with no change is skipped', async () => {
    const res = await app.http
      .post('/sitemap-ai/rebuild')
      .set('Authorization', `Bearer ${owner}`)
      .send({ full: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ skipped: true, locked: false, failures: [] });
    expect(res.body.data.snapshot.id).toMatch(/^\d+$/);
    expect(res.body.data.snapshot.item_count).toBeGreaterThan(100);
    const list = await app.http
      .get('/sitemap-ai/snapshots')
      .set('Authorization', `Bearer ${owner}`)
      .expect(200);
    expect(list.body.data[0].id).toBe(res.body.data.snapshot.id);
  });

  it('shows the webhook delivery log to a super admin, refuses it to an Editor, and validates its query', async () => {
    const log = await app.http
      .get('/sitemap-ai/webhooks/deliveries')
      .set('Authorization', `Bearer ${owner}`)
      .expect(200);
    expect(Array.isArray(log.body.data)).toBe(true);
    expect(
      (
        await app.http
          .get('/sitemap-ai/webhooks/deliveries')
          .set('Authorization', `Bearer ${editor}`)
      ).status,
    ).toBe(403);
    for (const query of ['limit=abc', 'limit=0', 'status=lost', 'sort=id']) {
      const res = await app.http
        .get(`/sitemap-ai/webhooks/deliveries?${query}`)
        .set('Authorization', `Bearer ${owner}`);
      expect(res.status, query).toBe(400);
    }
  });

  it.each([
    [{ full: 'yes' }, 'full'],
    [{ everything: true }, 'everything'],
    [[1, 2], 'body'],
  ])('refuses a bad rebuild body %j with a 400 naming %s', async (body, name) => {
    const res = await app.http
      .post('/sitemap-ai/rebuild')
      .set('Authorization', `Bearer ${owner}`)
      .send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`"${name}"`);
  });
});

describe('the scheduled rebuild', () => {
  it('builds a snapshot on its own after a publish, on the configured cron schedule', async () => {
    const app = await bootPlayground('sqlite', {
      env: { SITEMAP_AI_SCHEDULE: 'true', SITEMAP_AI_CRON: '*/2 * * * * *' },
    });
    try {
      const manifest = app.strapi.plugin('sitemap-ai').service('manifest');
      const before = await manifest.current();
      const documents = app.strapi.documents('api::article.article' as never) as unknown as {
        findFirst(p: object): Promise<{ documentId: string; body: string }>;
        update(p: object): Promise<unknown>;
        publish(p: object): Promise<unknown>;
      };
      const doc = await documents.findFirst({
        filters: { slug: 'geo-index' },
        locale: 'en',
        status: 'draft',
      });
      await documents.update({
        documentId: doc.documentId,
        locale: 'en',
        data: { body: `${doc.body}\n\nScheduled.` },
      });
      await documents.publish({ documentId: doc.documentId, locale: 'en' });
      let current = before;
      for (let i = 0; i < 40 && current.seq === before.seq; i += 1) {
        await new Promise((r) => setTimeout(r, 250));
        current = await manifest.current();
      }
      expect(current.seq).toBe(before.seq + 1);
      expect(current.trigger).toBe('schedule');
      expect(current.changes.changed).toBeGreaterThan(0);
      expect(app.strapi.plugin('sitemap-ai').service('scheduler').ticks()).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
