import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLockRepository } from '../../server/src/repositories/lock-repository';
import { LEASE_MS } from '../../server/src/services/snapshot-builder';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The build lock is a lease: short, renewed while the holder works, fenced per acquisition. */
describe.each(testDatabases())('the build lease on %s', (client) => {
  let app: TestApp;
  const builder = () => app.strapi.plugin('sitemap-ai').service('snapshot-builder');
  const lockRow = () =>
    app.strapi.db
      .query('plugin::sitemap-ai.lock')
      .findOne({ where: { name: 'rebuild' } }) as Promise<{
      owner: string;
      expires_at: string | number;
    } | null>;

  beforeAll(async () => {
    app = await bootPlayground(client);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is renewed by its holder, taken by another only once expired, and then fenced off', async () => {
    const locks = createLockRepository({ strapi: app.strapi });
    const now = Date.now();
    expect(await locks.acquire('test-lease', 'a:1', 10_000, now)).toBe(true);
    expect(await locks.renew('test-lease', 'a:1', 10_000, now + 5_000)).toBe(true);
    expect(await locks.acquire('test-lease', 'b:1', 10_000, now + 14_000)).toBe(false);
    expect(await locks.acquire('test-lease', 'b:1', 10_000, now + 15_001)).toBe(true);
    // The old holder learns it lost the lease at its next renewal, and cannot release B's.
    expect(await locks.renew('test-lease', 'a:1', 10_000, now + 15_002)).toBe(false);
    await locks.release('test-lease', 'a:1');
    expect(await locks.acquire('test-lease', 'c:1', 10_000, now + 15_003)).toBe(false);
    await locks.release('test-lease', 'b:1');
    expect(await locks.acquire('test-lease', 'c:1', 10_000, now + 15_004)).toBe(true);
    await locks.release('test-lease', 'c:1');
  });

  it('lets the next build run a few seconds after a builder crashed holding the lease', async () => {
    expect(LEASE_MS).toBeLessThanOrEqual(30_000);
    const locks = createLockRepository({ strapi: app.strapi });
    // A builder that crashed: its last renewal was a lease ago but for 1.5 s.
    await locks.acquire('rebuild', 'crashed-process:1', LEASE_MS, Date.now() - LEASE_MS + 1_500);
    expect(await builder().rebuild({ trigger: 'test' })).toMatchObject({
      locked: true,
      skipped: true,
    });
    await sleep(1_700);
    const next = await builder().rebuild({ trigger: 'test' });
    expect(next.locked).toBe(false);
    expect(await lockRow()).toBeNull();
  });

  it('publishes nothing when its lease was taken over during the build', async () => {
    const before = (await builder().rebuild({ trigger: 'test' })).snapshot!.seq;
    // A published change waits for this build.
    const articles = app.strapi.documents('api::article.article' as never);
    const doc = (await articles.findFirst({
      filters: { slug: 'geo-index' },
      locale: 'en',
      status: 'draft',
    } as never)) as unknown as { documentId: string; body: string };
    await articles.update({
      documentId: doc.documentId,
      locale: 'en',
      data: { body: `${doc.body}\n\nOne more closing sentence.` },
    } as never);
    await articles.publish({ documentId: doc.documentId, locale: 'en' } as never);
    // Another instance takes the lease (as after an expiry) while this build re-compares: the
    // re-compare is where a build spends its time, so the take-over is placed there.
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker');
    const reconcileAll = tracker.reconcileAll;
    let stolen = false;
    tracker.reconcileAll = async (...args: unknown[]) => {
      const taken = (await app.strapi.db
        .query('plugin::sitemap-ai.lock')
        .updateMany({ where: { name: 'rebuild' }, data: { owner: 'other-instance:1' } })) as {
        count: number;
      };
      stolen = Number(taken.count) === 1;
      return reconcileAll.apply(tracker, args);
    };
    const building = builder().rebuild({ trigger: 'test', full: true });
    try {
      await building;
    } finally {
      tracker.reconcileAll = reconcileAll;
    }
    expect(stolen).toBe(true);
    const result = await building;
    expect(result).toMatchObject({ locked: true, skipped: true });
    const latest = await app.strapi.plugin('sitemap-ai').service('manifest').current();
    expect(latest.seq).toBe(before);
    await app.strapi.db.query('plugin::sitemap-ai.lock').deleteMany({ where: { name: 'rebuild' } });
  });
});
