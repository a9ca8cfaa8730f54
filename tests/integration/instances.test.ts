import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLockRepository } from '../../server/src/repositories/lock-repository';
import type { DashboardData } from '../../shared/contracts/admin';
import { superAdminToken } from '../helpers/admin';
import { crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * Instances whose config/plugins differs (issue 9, defect 7: the playground derives apiUrl from
 * the port): detected through each instance's presence, reported, and the site is not
 * re-versioned at every build.
 */
describe.each(testDatabases())('instances that disagree on config/plugins on %s', (client) => {
  let app: TestApp;
  const plugin = () => app.strapi.plugin('sitemap-ai');
  const rebuild = () => plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
  const leases = () => app.strapi.db.query('plugin::sitemap-ai.lock');

  beforeAll(async () => {
    app = await bootPlayground(client);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('keeps the published snapshot while another live instance built it with other config, then follows once it is gone', async () => {
    // Given a published snapshot and this instance's presence on the database
    const live = await plugin().service('instances').live();
    expect(live.map((p: { id: string }) => p.id)).toContain(plugin().service('instances').id);
    const before = new Map((await crawl(app.http)).items.map((i) => [i.id, i]));
    const stored = (await app.strapi
      .store({ type: 'plugin', name: 'sitemap-ai' })
      .get({ key: 'settings-fingerprint' })) as string;
    expect(stored).toMatch(/^[0-9a-f]{64}$/);

    // And another instance, alive, that published it with its own config/plugins
    await createLockRepository({ strapi: app.strapi }).acquire(
      'instance:the-other-one',
      JSON.stringify({ file: 'its-own-file-config', policy: stored }),
      180_000,
    );

    // When this instance restarts with another apiUrl and builds
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, {
      database: app.database,
      env: { SITEMAP_AI_API_URL: 'http://127.0.0.1:1999' },
    });
    const skipped = await rebuild();

    // Then it publishes nothing and says why; the items keep their versions and URLs
    expect(skipped.skipped).toBe(true);
    expect(skipped.failures[0]?.message).toMatch(/instances disagree on config\/plugins/);
    for (const item of (await crawl(app.http)).items) {
      expect(item.version, item.id).toBe(before.get(item.id)?.version);
      expect(item.content_url.startsWith('http://127.0.0.1:1999')).toBe(false);
    }

    // … and the dashboard shows the disagreement
    const owner = await superAdminToken(app);
    const dashboard = (
      await app.http
        .get('/sitemap-ai/dashboard')
        .set('Authorization', `Bearer ${owner}`)
        .expect(200)
    ).body.data as DashboardData;
    expect(dashboard.instances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ self: true, agrees: true }),
        expect.objectContaining({ id: 'the-other-one', self: false, agrees: false }),
      ]),
    );

    // When the other instance is gone (its presence expired)
    await leases().updateMany({
      where: { name: 'instance:the-other-one' },
      data: { expires_at: Date.now() - 1000 },
    });
    const followed = await rebuild();

    // Then this instance's config applies, once: the next build has nothing to do
    expect(followed.skipped).toBe(false);
    const after = (await crawl(app.http)).items;
    for (const item of after)
      expect(item.content_url.startsWith('http://127.0.0.1:1999')).toBe(true);
    expect((await rebuild()).skipped).toBe(true);
  });
});
