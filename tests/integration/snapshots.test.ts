import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';
import { API, crawl } from '../helpers/manifest';
import type { ManifestItem, ManifestPage } from '../../shared/contracts/manifest';

const ARTICLE = 'api::article.article';

async function editArticle(
  app: TestApp,
  slug: string,
  edit: (body: string) => string,
): Promise<string> {
  const documents = app.strapi.documents(ARTICLE as never);
  const draft = (await documents.findFirst({
    filters: { slug },
    locale: 'en',
    status: 'draft',
  } as never)) as unknown as {
    documentId: string;
    body: string;
  };
  await documents.update({
    documentId: draft.documentId,
    locale: 'en',
    data: { body: edit(draft.body) },
  } as never);
  await documents.publish({ documentId: draft.documentId, locale: 'en' } as never);
  return draft.documentId;
}

function rebuild(app: TestApp) {
  return app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
}

describe.each(testDatabases())('snapshots on %s', (client) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await bootPlayground(client, {
      env: { SITEMAP_AI_SNAPSHOT_RETENTION: '2', SITEMAP_AI_SNAPSHOT_RETENTION_HOURS: '0' },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('keeps a traversal on its snapshot while the next one is published, then GCs it (410)', async () => {
    // Given a complete reading of the current snapshot S
    const before = await crawl(app.http, { limit: '20' });
    const s = before.pages[0]!.snapshot.id;

    // When an agent has read the first page and the site publishes a change meanwhile
    const first = (await app.http.get(`${API}/manifest`).query({ limit: '20' }).expect(200))
      .body as ManifestPage;
    await editArticle(app, 'geo-index', (body) =>
      body
        .replace(
          '## Why classic sitemaps fail',
          '## A section inserted at the top\n\nNew text.\n\n## Why classic sitemaps fail',
        )
        .replace(
          '## Security and privacy',
          '## Security and privacy\n\nOne more sentence about privacy.',
        ),
    );
    const result = await rebuild(app);
    expect(result.skipped).toBe(false);
    expect(String(result.snapshot.seq)).not.toBe(s);

    // Then the rest of its traversal still reads S, item for item
    const pages: ManifestPage[] = [first];
    let token = first.next_page_token;
    while (token) {
      const page = (
        await app.http.get(`${API}/manifest`).query({ limit: '20', page_token: token }).expect(200)
      ).body as ManifestPage;
      pages.push(page);
      token = page.next_page_token;
    }
    expect(new Set(pages.map((p) => p.snapshot.id))).toEqual(new Set([s]));
    expect(pages.flatMap((p) => p.items)).toEqual(before.items);

    // And a new traversal reads S+1: the edited section changed content, the inserted one is new,
    // the other sections kept their ids, checksums and versions
    const after = await crawl(app.http, { limit: '20' });
    expect(after.pages[0]!.snapshot.id).toBe(String(result.snapshot.seq));
    const byId = (list: ManifestItem[]) => new Map(list.map((i) => [i.id, i]));
    const old = byId(before.items);
    const now = byId(after.items);
    const edited = now.get('article:geo-index:en:security-and-privacy')!;
    expect(edited.checksum).not.toBe(old.get(edited.id)!.checksum);
    expect(edited.version).toBe('v2.0');
    expect(now.get('article:geo-index:en:a-section-inserted-at-the-top')!.version).toBe('v1.0');
    expect(old.has('article:geo-index:en:a-section-inserted-at-the-top')).toBe(false);
    const untouched = now.get('article:geo-index:en:why-classic-sitemaps-fail')!;
    expect(untouched.checksum).toBe(old.get(untouched.id)!.checksum);
    expect(untouched.version).toBe('v1.0');
    const article = now.get('article:geo-index:en')!;
    expect(article.version).toBe('v2.0');
    expect(result.snapshot.changes).toEqual({ added: 1, changed: 2, removed: 0 });

    // When nothing changes, no snapshot is published
    const idle = await rebuild(app);
    expect(idle.skipped).toBe(true);
    expect(idle.snapshot.seq).toBe(result.snapshot.seq);

    // When two more snapshots are published with retention 2, S is collected: its tokens answer 410
    await editArticle(app, 'geo-index', (body) =>
      body.replace('New text.', 'New text, edited once.'),
    );
    await rebuild(app);
    const gone = await app.http
      .get(`${API}/manifest`)
      .query({ limit: '20', page_token: first.next_page_token! });
    expect(gone.status).toBe(410);
    expect(gone.body.error.message).toMatch(/no longer retained.*without page_token/);
    // And a delta since S is older than the retained history: 410 telling the agent to re-read the manifest
    const tooOld = await app.http.get(`${API}/delta`).query({ since: s });
    expect(tooOld.status).toBe(410);
    expect(tooOld.body.error.message).toMatch(
      /older than the retained history.*Read the full manifest/,
    );
  });

  it("stops validating an old page at once after its own build, and within a second after another instance's", async () => {
    const path = `${API}/manifest?limit=9`;
    const revalidate = (etag: string) => app.http.get(path).set('If-None-Match', etag);
    // Given a client holding the first page, revalidated just now (the newest snapshot is fresh in memory)
    const held = await app.http.get(path).expect(200);
    const etag = held.headers.etag as string;
    await revalidate(etag).expect(304);

    // When this instance builds the next snapshot, the held copy is no longer current at once
    await editArticle(app, 'geo-index', (body) => `${body}\n\nA line for the revalidation test.`);
    const built = await rebuild(app);
    expect(built.skipped).toBe(false);
    const after = await revalidate(etag).expect(200);
    expect((after.body as ManifestPage).snapshot.id).toBe(String(built.snapshot.seq));

    // When another instance publishes a snapshot (its row written past this instance's repository)
    const next = after.headers.etag as string;
    await revalidate(next).expect(304);
    const latest = built.snapshot;
    await app.strapi.db.query('plugin::sitemap-ai.snapshot').create({
      data: {
        seq: latest.seq + 1,
        built_at: new Date().toISOString(),
        item_count: latest.itemCount,
        counts: latest.counts,
        changes: { added: 0, changed: 0, removed: 0 },
        trigger: 'other-instance',
        duration_ms: 1,
      },
    });
    // Then the copy of the older snapshot stops validating within a second
    const started = Date.now();
    let status = 304;
    while (status === 304 && Date.now() - started < 3_000) {
      status = (await revalidate(next)).status;
      if (status === 304) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
    const fresh = await revalidate(next).expect(200);
    expect((fresh.body as ManifestPage).snapshot.id).toBe(String(latest.seq + 1));
  });

  it('lets timers fire between batches of a full re-compare (the event loop turns)', async () => {
    // On SQLite every query runs synchronously: a build that never hands the event loop a turn is
    // one chain of promise callbacks, and the site serves nothing until it ends (a minute at 10k).
    let turns = 0;
    const timer = setInterval(() => {
      turns += 1;
    }, 0);
    let result: Awaited<ReturnType<typeof rebuild>>;
    try {
      result = await app.strapi
        .plugin('sitemap-ai')
        .service('snapshot-builder')
        .rebuild({ trigger: 'test', full: true });
    } finally {
      clearInterval(timer);
    }
    expect(result.failures).toEqual([]);
    expect(turns).toBeGreaterThan(0);
  });

  it('drops the items of an unpublished entry at the next rebuild, leaving the others', async () => {
    const documents = app.strapi.documents(ARTICLE as never);
    const doc = (await documents.findFirst({
      filters: { slug: 'tdm-licensing' },
      locale: 'en',
      status: 'published',
    } as never)) as unknown as {
      documentId: string;
    };
    const before = await crawl(app.http, { limit: '100' });
    const mine = before.items.filter((i) => i.id.startsWith('article:tdm-licensing:en'));
    expect(mine.length).toBeGreaterThan(1);
    await documents.unpublish({ documentId: doc.documentId, locale: 'en' } as never);
    const result = await rebuild(app);
    expect(result.snapshot.changes.removed).toBe(mine.length);
    const after = await crawl(app.http, { limit: '100' });
    expect(after.items.some((i) => i.id.startsWith('article:tdm-licensing:en'))).toBe(false);
    expect(after.items.length).toBe(before.items.length - mine.length);
    expect((await app.http.get(`${API}/fragments/${mine[0]!.id}`)).status).toBe(404);
  });
});

describe('start-up configuration errors', () => {
  it.each([
    [{ SITEMAP_AI_SITE_URL: 'ftp://example.com' }, /sitemap-ai config "siteUrl"/],
    [{ SITEMAP_AI_SNAPSHOT_RETENTION: '0' }, /sitemap-ai config "snapshotRetention"/],
    [{ SITEMAP_AI_BUILD_HEAP_BUDGET_MB: '8' }, /sitemap-ai config "buildHeapBudgetMb"/],
  ])('refuses to start with %j, naming the key', async (env, message) => {
    await expect(
      bootPlayground('sqlite', { env: { ...env, PLAYGROUND_SEED: 'false' } }),
    ).rejects.toThrow(message);
  });
});
