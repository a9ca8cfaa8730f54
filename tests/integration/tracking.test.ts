import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, PLAYGROUND, testDatabases, type TestApp } from '../helpers/strapi';
import { API, crawl } from '../helpers/manifest';
import { changelogEntries, pendingStates } from '../helpers/stored';
import type { ChangelogPage, DeltaPage, ManifestItem } from '../../shared/contracts/manifest';

const ARTICLE = 'api::article.article';
const GUIDE = 'api::guide.guide';

type Doc = {
  documentId: string;
  body?: string;
  bodyHtml?: string;
  sitemapAi?: Record<string, unknown>;
};

function documents(app: TestApp, uid: string) {
  return app.strapi.documents(uid as never) as unknown as {
    findFirst(params: object): Promise<Doc | null>;
    findOne(params: object): Promise<Doc | null>;
    create(params: object): Promise<Doc>;
    update(params: object): Promise<Doc>;
    publish(params: object): Promise<unknown>;
    unpublish(params: object): Promise<unknown>;
    delete(params: object): Promise<unknown>;
    discardDraft(params: object): Promise<unknown>;
  };
}

async function draftOf(app: TestApp, slug: string): Promise<Doc> {
  const doc = await documents(app, ARTICLE).findFirst({
    filters: { slug },
    locale: 'en',
    status: 'draft',
  });
  if (!doc) throw new Error(`no article ${slug}`);
  return doc;
}

/** Edit the draft's body (and optionally the editor's reason), then publish it. */
async function publishEdit(
  app: TestApp,
  slug: string,
  edit: (body: string) => string,
  reason?: string,
): Promise<string> {
  const doc = await draftOf(app, slug);
  const data: Record<string, unknown> = { body: edit(doc.body ?? '') };
  if (reason !== undefined) data.sitemapAi = { ...(doc.sitemapAi ?? {}), reason };
  await documents(app, ARTICLE).update({ documentId: doc.documentId, locale: 'en', data });
  await documents(app, ARTICLE).publish({ documentId: doc.documentId, locale: 'en' });
  return doc.documentId;
}

const rebuild = (app: TestApp) =>
  app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });

/** The seed's GEO article body (sections "Security and privacy", "A minimal sitemap-AI format" with a table, …). */
const GEO_BODY = readFileSync(path.join(PLAYGROUND, 'src', 'seed-data', 'geo-index.en.md'), 'utf8');

/**
 * Given an English article of the test's own, with the seed's GEO body, published and in the
 * current snapshot (every item at v1.0, nothing else waiting): no test depends on what another
 * one did to a shared entry. Returns its page item id.
 */
async function ownArticle(app: TestApp, slug: string): Promise<string> {
  const doc = await documents(app, ARTICLE).create({
    locale: 'en',
    data: { title: `Tracking test ${slug}`, slug, body: GEO_BODY },
  });
  await documents(app, ARTICLE).publish({ documentId: doc.documentId, locale: 'en' });
  await rebuild(app);
  return `article:${slug}:en`;
}
const changelog = async (app: TestApp, id: string) =>
  (await app.http.get(`${API}/fragments/${id}/changelog`).expect(200)).body as ChangelogPage;

async function readDelta(
  app: TestApp,
  since: string,
  query: Record<string, string> = {},
): Promise<DeltaPage[]> {
  const pages: DeltaPage[] = [];
  let token: string | null = null;
  do {
    const res = await app.http
      .get(`${API}/delta`)
      .query({ since, ...query, ...(token ? { page_token: token } : {}) });
    if (res.status !== 200)
      throw new Error(`delta answered ${res.status}: ${JSON.stringify(res.body)}`);
    pages.push(res.body as DeltaPage);
    token = (res.body as DeltaPage).next_page_token;
  } while (token);
  return pages;
}

describe.each(testDatabases())('change tracking and the delta feed on %s', (client) => {
  let app: TestApp;

  // Each scenario stands alone (any one runs with -t): it works on an article of its own, or on
  // seed entries no other scenario touches, from a settled snapshot.
  beforeAll(async () => {
    app = await bootPlayground(client);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('records a publish with the editor’s reason, bumps versions, and the delta shows exactly that change', async () => {
    const page = await ownArticle(app, 'reasoned-edit');
    const before = await app.strapi.plugin('sitemap-ai').service('manifest').current();
    await publishEdit(
      app,
      'reasoned-edit',
      (body) =>
        body.replace(
          '## Security and privacy',
          '## Security and privacy\n\nWe also hash IP addresses.',
        ),
      'Clarify how IP addresses are stored',
    );
    const section = `${page}:security-and-privacy`;
    const log = await changelog(app, section);
    expect(log.entries[0]).toMatchObject({
      version: 'v2.0',
      kind: 'content',
      desc: 'Clarify how IP addresses are stored',
    });
    expect(log.entries[0]!.checksum_before).toMatch(/^sha256:/);
    expect(log.entries[0]!.checksum_after).not.toBe(log.entries[0]!.checksum_before);
    expect(log.entries[1]).toMatchObject({ version: 'v1.0', kind: 'added' });

    // The public manifest changes only with the next snapshot
    expect((await app.http.get(`${API}/fragments/${section}`).expect(200)).body.item.version).toBe(
      'v1.0',
    );
    const result = await rebuild(app);
    expect(result.snapshot.changes).toEqual({ added: 0, changed: 2, removed: 0 });
    const item = (await app.http.get(`${API}/fragments/${section}`).expect(200)).body.item;
    expect(item.version).toBe('v2.0');
    expect(item.changelog[0]).toMatchObject({
      version: 'v2.0',
      desc: 'Clarify how IP addresses are stored',
    });

    const pages = await readDelta(app, String(before.seq));
    const delta = pages.flatMap((p) => p.items);
    expect(delta.map((i) => i.id).sort()).toEqual([page, section]);
    expect(pages.flatMap((p) => p.removed)).toEqual([]);
    expect(pages[0]!.next_since).toBe(String(result.snapshot.seq));
    const again = await readDelta(app, pages[0]!.next_since);
    expect(again[0]!.items).toEqual([]);
    expect(again[0]!.removed).toEqual([]);
  });

  it('summarises a change when no new reason was given, and ignores draft-only saves', async () => {
    const page = await ownArticle(app, 'summarised-edit');
    // Given a change published with a reason (v2.0), which stays in the draft
    await publishEdit(
      app,
      'summarised-edit',
      (body) =>
        body.replace(
          '## Security and privacy',
          '## Security and privacy\n\nWe also hash IP addresses.',
        ),
      'Clarify how IP addresses are stored',
    );
    await publishEdit(app, 'summarised-edit', (body) =>
      body.replace('We also hash IP addresses.', 'We also hash IP addresses daily.'),
    );
    const log = await changelog(app, `${page}:security-and-privacy`);
    expect(log.entries[0]!.desc).toBe("section 'Security and privacy' edited, +6/−0 characters");
    expect(log.entries[0]!.version).toBe('v3.0');

    // A draft-only save records nothing and publishes nothing
    await rebuild(app);
    const doc = await draftOf(app, 'summarised-edit');
    await documents(app, ARTICLE).update({
      documentId: doc.documentId,
      locale: 'en',
      data: { body: `${doc.body}\n\n## Draft only section\n\nNot yet.` },
    });
    expect(await pendingStates(app.strapi, doc.documentId)).toEqual([]);
    await rebuild(app);
    expect((await app.http.get(`${API}/fragments/${page}:draft-only-section`)).status).toBe(404);
    // Discarding that draft changes nothing public either
    await documents(app, ARTICLE).discardDraft({ documentId: doc.documentId, locale: 'en' });
    const idle = await rebuild(app);
    expect(idle.skipped).toBe(true);
  });

  it('gives tombstones of id and time only after an unpublish and a delete, and no longer serves their history', async () => {
    // Given a settled snapshot (the seed entries used here are touched by no other scenario)
    await rebuild(app);
    const since = String((await app.strapi.plugin('sitemap-ai').service('manifest').current()).seq);
    const { items } = await crawl(app.http, { limit: '1000' });
    const permalinks = items
      .filter((i) => i.id.startsWith('article:fragment-permalinks:en'))
      .map((i) => i.id);
    const guide = await documents(app, GUIDE).findFirst({
      filters: { slug: 'add-evidence-links' },
      status: 'published',
    });
    const guideIds = items
      .filter((i) => i.id.startsWith('guide:add-evidence-links:en'))
      .map((i) => i.id);
    expect(permalinks.length).toBeGreaterThan(3);
    expect(guideIds.length).toBeGreaterThan(3);

    await documents(app, ARTICLE).unpublish({
      documentId: (await draftOf(app, 'fragment-permalinks')).documentId,
      locale: 'en',
    });
    await documents(app, GUIDE).delete({ documentId: guide!.documentId });
    const result = await rebuild(app);
    expect(result.snapshot.changes.removed).toBe(permalinks.length + guideIds.length);

    const pages = await readDelta(app, since, { limit: '5' });
    const removed = pages.flatMap((p) => p.removed);
    expect(removed.map((r) => r.id).sort()).toEqual([...permalinks, ...guideIds].sort());
    // The Slovak translation stays, but no longer points at the removed English page
    const changed = pages.flatMap((p) => p.items);
    expect(changed.length).toBeGreaterThan(0);
    for (const item of changed) {
      expect(item.id.startsWith('article:permalinky-fragmentov:sk')).toBe(true);
      expect(item.alt_of).toBeUndefined();
    }
    for (const tombstone of removed) {
      expect(tombstone).toEqual({ id: tombstone.id, removed_at: result.snapshot.builtAt });
    }
    const gone = await app.http.get(`${API}/fragments/${guideIds[0]!}/changelog`).expect(404);
    expect(gone.body.error.name).toBe('ItemNotFoundError');
  });

  it('keeps the old id of a renamed heading as an alias: lookups resolve, the delta names the successor', async () => {
    const page = await ownArticle(app, 'renamed-heading');
    const since = String((await app.strapi.plugin('sitemap-ai').service('manifest').current()).seq);
    const oldSection = `${page}:a-minimal-sitemap-ai-format`;
    const oldTable = `${oldSection}-table-1`;
    const before = (await app.http.get(`${API}/fragments/${oldTable}`).expect(200)).body.item;
    await publishEdit(app, 'renamed-heading', (body) =>
      body.replace('## A minimal sitemap-AI format', '## The smallest useful sitemap-AI format'),
    );
    await rebuild(app);
    const newSection = `${page}:the-smallest-useful-sitemap-ai-format`;
    const newTable = `${newSection}-table-1`;

    const bySection = await app.http.get(`${API}/fragments/${oldSection}`).expect(200);
    expect(bySection.body.alias).toEqual({ requested: oldSection, current: newSection });
    expect(bySection.body.item.id).toBe(newSection);
    expect(bySection.body.item.version).toBe('v2.0');
    expect(bySection.headers['content-location']).toBe(`/api/sitemap-ai/fragments/${newSection}`);
    const byTable = await app.http.get(`${API}/fragments/${oldTable}`).expect(200);
    expect(byTable.body.item.id).toBe(newTable);
    expect(byTable.body.item.checksum).toBe(before.checksum);
    const content = await app.http.get(`${API}/fragments/${oldTable}/content`).expect(200);
    expect(content.headers['x-sitemap-ai-checksum']).toBe(before.checksum);

    const log = await changelog(app, newSection);
    expect(log.entries[0]!.desc).toMatch(
      /renamed from 'A minimal sitemap-AI format' \(old id .* kept as an alias\)/,
    );
    const pages = await readDelta(app, since);
    const removed = pages.flatMap((p) => p.removed);
    expect(removed.find((r) => r.id === oldSection)?.replaced_by).toBe(newSection);
    expect(removed.find((r) => r.id === oldTable)?.replaced_by).toBe(newTable);
    expect(pages.flatMap((p) => p.items).map((i) => i.id)).toEqual(
      expect.arrayContaining([newSection, newTable]),
    );
  });

  it('pages through the whole changelog of an item, newest first, with signed tokens', async () => {
    // Given a page published once and changed three times
    const id = await ownArticle(app, 'long-history');
    for (const note of ['First', 'Second', 'Third'])
      await publishEdit(app, 'long-history', (body) => `${body}\n\n${note} addendum.`);
    const all = await changelog(app, id);
    expect(all.entries.length).toBeGreaterThanOrEqual(4);
    const seen: ChangelogPage['entries'] = [];
    let token: string | null = null;
    do {
      const res = await app.http
        .get(`${API}/fragments/${id}/changelog`)
        .query({ limit: '2', ...(token ? { page_token: token } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.entries);
      token = res.body.next_page_token;
    } while (token);
    expect(seen).toEqual(all.entries);
    const dates = seen.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(
      (await app.http.get(`${API}/fragments/${id}/changelog`).query({ limit: '0' })).status,
    ).toBe(400);
    expect(
      (await app.http.get(`${API}/fragments/${id}/changelog`).query({ page_token: 'x.y' })).status,
    ).toBe(400);
    expect((await app.http.get(`${API}/fragments/article:nothing:en/changelog`)).status).toBe(404);
  });

  it('answers 400 to a malformed since and 410 to one older than the retained history', async () => {
    for (const since of ['yesterday', '2026-11-30', '-1', '1.5', '']) {
      const res = await app.http.get(`${API}/delta`).query({ since });
      expect(res.status, since).toBe(400);
      expect(res.body.error.message).toContain('"since"');
    }
    expect((await app.http.get(`${API}/delta`)).status).toBe(400);
    expect((await app.http.get(`${API}/delta`).query({ since: '999999' })).status).toBe(400);
    const byTime = await app.http.get(`${API}/delta`).query({ since: new Date().toISOString() });
    expect(byTime.status).toBe(200);
    expect(byTime.body.items).toEqual([]);
  });

  it('records a change whose tracking failed when the next rebuild runs (dirty mark), without failing the save', async () => {
    const page = await ownArticle(app, 'dirty-mark');
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker') as {
      trackDocuments: (...args: unknown[]) => Promise<unknown>;
      flush: () => Promise<void>;
    };
    const original = tracker.trackDocuments;
    tracker.trackDocuments = async () => {
      throw new Error('database hiccup');
    };
    try {
      await publishEdit(
        app,
        'dirty-mark',
        (body) => body.replace('## Security and privacy', '## Security and privacy\n\nWording.'),
        'Wording',
      );
      await tracker.flush();
    } finally {
      tracker.trackDocuments = original;
    }
    const marks = await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').findMany();
    expect(marks).toEqual([
      expect.objectContaining({ action: 'publish', attempts: 1, last_error: 'database hiccup' }),
    ]);
    const dashboard = app.strapi.plugin('sitemap-ai').service('dashboard');
    expect((await dashboard.data()).dirtyEntries).toBe(1);
    const before = await changelog(app, `${page}:security-and-privacy`);
    expect(before.entries[0]!.version).toBe('v1.0');
    const result = await rebuild(app);
    expect(result.skipped).toBe(false);
    expect(await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count()).toBe(0);
    expect((await dashboard.data()).dirtyEntries).toBe(0);
    const after = await changelog(app, `${page}:security-and-privacy`);
    expect(after.entries[0]).toMatchObject({ version: 'v2.0', desc: 'Wording' });
  });

  it('does not keep the editor waiting: a publish returns with its tracking marked in the database, recorded moments later', async () => {
    const pages = [await ownArticle(app, 'queued-a'), await ownArticle(app, 'queued-b')];
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker') as {
      trackDocuments: (uid: string, ids: readonly string[]) => Promise<unknown>;
      flush: () => Promise<void>;
    };
    const original = tracker.trackDocuments;
    const calls: string[][] = [];
    // Held until both publishes have returned, so the test sees the queue whatever the timing.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    tracker.trackDocuments = async (uid, ids) => {
      calls.push([...ids]);
      await held;
      return original.call(tracker, uid, ids);
    };
    try {
      const ids = [
        await publishEdit(app, 'queued-a', (body) => `${body}\n\nQueued note A.`, 'Note A'),
        await publishEdit(app, 'queued-b', (body) => `${body}\n\nQueued note B.`, 'Note B'),
      ];
      // Both publishes returned; each left a mark in the database until it is tracked.
      const marks = await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').findMany();
      expect(marks.map((m) => m.source_document).sort()).toEqual([...ids].sort());
      for (const mark of marks) expect(mark).toMatchObject({ attempts: 0, last_error: null });
      release();
      await tracker.flush();
      // Both documents tracked (in one batch or two, as the publishes' timing fell), then every
      // mark gone.
      expect(calls.flat().sort()).toEqual([...ids].sort());
      expect(await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count()).toBe(0);
    } finally {
      release();
      tracker.trackDocuments = original;
    }
    await rebuild(app);
    for (const [page, desc] of [
      [pages[0]!, 'Note A'],
      [pages[1]!, 'Note B'],
    ] as const)
      expect((await changelog(app, page)).entries[0]).toMatchObject({ version: 'v2.0', desc });
  });

  it('writes the mark with the publish: a publish rolled back leaves no mark and queues nothing', async () => {
    const page = await ownArticle(app, 'rolled-back');
    const { documentId, body } = await draftOf(app, 'rolled-back');
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker') as {
      flush: () => Promise<void>;
    };
    await documents(app, ARTICLE).update({
      documentId,
      locale: 'en',
      data: { body: `${body}\n\nAn edit whose publish is rolled back.` },
    });
    // Given a publish inside a transaction that fails after it …
    await expect(
      app.strapi.db.transaction(async () => {
        await documents(app, ARTICLE).publish({ documentId, locale: 'en' });
        // (its mark was written inside that transaction)
        expect(
          await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count({
            where: { source_document: documentId },
          }),
        ).toBe(1);
        throw new Error('the import failed after this publish');
      }),
    ).rejects.toThrow('the import failed after this publish');
    // Then no mark is left, nothing is tracked and the page stays as it was
    expect(await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count()).toBe(0);
    await tracker.flush();
    expect(await pendingStates(app.strapi, documentId)).toEqual([]);
    expect((await rebuild(app)).skipped).toBe(true);
    expect((await changelog(app, page)).entries[0]!.version).toBe('v1.0');
  });

  it('publishes even when the mark cannot be written, and tracks the change all the same', async () => {
    const page = await ownArticle(app, 'unmarked');
    const knex = app.strapi.db.connection;
    const marks = app.strapi.db.metadata.get('plugin::sitemap-ai.dirty-mark' as never).tableName;
    // Given a database that refuses every mark (on PostgreSQL a failed statement would abort the
    // whole publish's transaction, were the mark not written in a savepoint of its own) …
    const refuse: Record<string, string[]> = {
      sqlite: [
        `CREATE TRIGGER sai_refuse BEFORE INSERT ON ${marks} BEGIN SELECT RAISE(ABORT, 'no marks'); END`,
      ],
      postgres: [
        `CREATE OR REPLACE FUNCTION sai_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no marks'; END $$ LANGUAGE plpgsql`,
        `CREATE TRIGGER sai_refuse BEFORE INSERT ON ${marks} FOR EACH ROW EXECUTE FUNCTION sai_refuse()`,
      ],
      mysql: [
        `CREATE TRIGGER sai_refuse BEFORE INSERT ON ${marks} FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no marks'`,
      ],
    };
    for (const statement of refuse[client]!) await knex.raw(statement);
    try {
      // When an edit is published, it is published …
      const documentId = await publishEdit(
        app,
        'unmarked',
        (body) => `${body}\n\nPublished without a mark.`,
        'Unmarked',
      );
      const published = await documents(app, ARTICLE).findFirst({
        filters: { documentId },
        locale: 'en',
        status: 'published',
      });
      expect(published?.body).toContain('Published without a mark.');
      expect(await app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count()).toBe(0);
    } finally {
      await knex.raw(
        client === 'postgres' ? `DROP TRIGGER sai_refuse ON ${marks}` : 'DROP TRIGGER sai_refuse',
      );
    }
    // … and its change, queued in memory, is tracked and built
    await rebuild(app);
    expect((await changelog(app, page)).entries[0]).toMatchObject({
      version: 'v2.0',
      desc: 'Unmarked',
    });
  });

  it('keeps a change waiting that was recorded while the build that published the one before it ran', async () => {
    const page = await ownArticle(app, 'mid-build');
    const { documentId } = await draftOf(app, 'mid-build');
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker') as {
      flush: () => Promise<void>;
    };
    const policy = app.strapi.plugin('sitemap-ai').service('policy') as {
      violations: (...args: unknown[]) => Promise<unknown>;
    };
    await publishEdit(app, 'mid-build', (body) => `${body}\n\nFirst note.`, 'First');
    await tracker.flush();
    // Given a second edit recorded after the build read the first (its policy check runs then)
    const original = policy.violations;
    let edited = false;
    policy.violations = async (...args: unknown[]) => {
      if (!edited) {
        edited = true;
        await publishEdit(app, 'mid-build', (body) => `${body}\n\nSecond note.`, 'Second');
        await tracker.flush();
      }
      return original.apply(policy, args);
    };
    try {
      expect((await rebuild(app)).skipped).toBe(false);
    } finally {
      policy.violations = original;
    }
    expect(edited).toBe(true);
    // Then that build published the first edit and left the second waiting …
    const served = async () =>
      ((await app.http.get(`${API}/fragments/${page}`).expect(200)).body as { item: ManifestItem })
        .item.version;
    expect(await served()).toBe('v2.0');
    expect((await pendingStates(app.strapi, documentId)).length).toBeGreaterThan(0);
    // … for the next build, which publishes it and leaves nothing waiting
    expect((await rebuild(app)).skipped).toBe(false);
    expect(await served()).toBe('v3.0');
    expect((await changelog(app, page)).entries.slice(0, 2)).toMatchObject([
      { version: 'v3.0', desc: 'Second' },
      { version: 'v2.0', desc: 'First' },
    ]);
    expect(await pendingStates(app.strapi, documentId)).toEqual([]);
  });

  it('lets a recording read its documents through the document service without waiting for itself', async () => {
    await ownArticle(app, 'reentrant');
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker') as {
      trackDocuments: (uid: string, ids: readonly string[]) => Promise<unknown>;
      flush: () => Promise<void>;
    };
    const original = tracker.trackDocuments;
    let read = false;
    // A recording whose reads pass the plugin's document middleware, as its own reads do.
    tracker.trackDocuments = async (uid, ids) => {
      for (const documentId of ids)
        read = Boolean(await documents(app, uid).findOne({ documentId, locale: 'en' })) || read;
      return original.call(tracker, uid, ids);
    };
    try {
      await publishEdit(app, 'reentrant', (body) => `${body}\n\nRe-entrant note.`, 'Re-entrant');
      const settled = await Promise.race([
        tracker.flush().then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      expect(settled).toBe(true);
      expect(read).toBe(true);
    } finally {
      tracker.trackDocuments = original;
    }
  });

  it('leaves one changelog entry per change under concurrent publishes, with no gaps or duplicates', async () => {
    const slugs = [
      'geo-index',
      'measuring-ai-crawler-ingest',
      'tdm-licensing',
      'stability-scores-explained',
    ];
    // Strapi itself may refuse one of two simultaneous publishes of the same document on
    // PostgreSQL/MariaDB ("A published entry … already exists"): wait for all, then check.
    const outcomes = await Promise.allSettled(
      slugs.flatMap((slug, n) => [
        publishEdit(app, slug, (body) => `${body}\n\nConcurrent note ${n}.`),
        publishEdit(app, slug, (body) => `${body}\n\nAnother concurrent note ${n}.`),
      ]),
    );
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(String(outcome.reason)).toMatch(/already exists/);
    }
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(
      slugs.length,
    );
    await rebuild(app);
    const rows = await changelogEntries(app.strapi);
    const seen = new Set<string>();
    const versions = new Map<string, number[]>();
    for (const row of rows) {
      const key = `${row.item_id}@${row.version}@${row.kind}`;
      expect(seen.has(key), `duplicate ${key}`).toBe(false);
      seen.add(key);
      const [major] = row.version.slice(1).split('.').map(Number);
      versions.set(row.item_id, [...(versions.get(row.item_id) ?? []), major!]);
    }
    for (const [id, list] of versions) {
      // Consecutive content versions (a renamed fragment continues its predecessor's numbers)
      const distinct = [...new Set(list)].sort((a, b) => a - b);
      expect(distinct, id).toEqual(distinct.map((_, i) => distinct[0]! + i));
    }
    const { items } = await crawl(app.http, { limit: '1000' });
    for (const slug of slugs) {
      const page = items.find((i) => i.id === `article:${slug}:en`)!;
      expect(Number(page.version.slice(1).split('.')[0])).toBe(Math.max(...versions.get(page.id)!));
    }
  });
  it('compares again in a re-compare only the documents not made of what they were last compared with', async () => {
    const tracker = app.strapi.plugin('sitemap-ai').service('tracker');
    await rebuild(app);
    // Given a site compared as a whole once
    await tracker.reconcileAll();
    // When nothing changed, the next re-compare compares no document again
    const again = await tracker.reconcileAll();
    expect(again.documents).toBeGreaterThan(1);
    expect(again.unchanged).toBe(again.documents);
    expect(again.changed).toBe(0);

    // When a published entry is changed behind the document service's back (no tracking runs)
    await app.strapi.db.query(ARTICLE as never).updateMany({
      where: { slug: 'tdm-licensing', publishedAt: { $notNull: true } },
      data: {
        body: `${(await draftOf(app, 'tdm-licensing')).body}\n\nWritten straight to the database.`,
      },
    });
    const after = await tracker.reconcileAll();
    // Then the re-compare compares that document alone and records its change
    expect(after.unchanged).toBe(after.documents - 1);
    expect(after.changed).toBeGreaterThan(0);
    await rebuild(app);
    const { items } = await crawl(app.http, { limit: '1000' });
    const page = items.find((i) => i.id === 'article:tdm-licensing:en')!;
    const content = await app.http.get(new URL(page.content_url).pathname).buffer(true);
    expect(content.text).toContain('Written straight to the database.');
  });

  it('builds at most once per scheduled tick: a later claim of the same tick is skipped even with changes waiting', async () => {
    const builder = app.strapi.plugin('sitemap-ai').service('snapshot-builder');
    await ownArticle(app, 'scheduled-ticks');
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
    await publishEdit(app, 'scheduled-ticks', (body) => `${body}\n\nTick one.`);
    const first = await builder.rebuild({ trigger: 'schedule', tick });
    expect(first.skipped).toBe(false);
    await publishEdit(app, 'scheduled-ticks', (body) => `${body}\n\nTick two.`);
    const again = await builder.rebuild({ trigger: 'schedule', tick });
    expect(again.skipped).toBe(true);
    expect(again.snapshot.seq).toBe(first.snapshot.seq);
    const next = await builder.rebuild({
      trigger: 'schedule',
      tick: new Date(Date.parse(tick) + 15 * 60_000).toISOString(),
    });
    expect(next.skipped).toBe(false);
    expect(next.snapshot.seq).toBe(first.snapshot.seq + 1);
  });
});

describe('a settings change reaches every item as a logged metadata change', () => {
  it('allowing train in config/plugins bumps the metadata version of every item with the reason "plugin config changed"', async () => {
    const first = await bootPlayground('sqlite');
    const before = await crawl(first.http, { limit: '1000' });
    expect(
      before.items
        .filter((i) => !i.id.startsWith('dataset:'))
        .every((i) => i.usage.train === 'deny'),
    ).toBe(true);
    await first.close({ keepDatabase: true });
    const second = await bootPlayground('sqlite', {
      database: first.database,
      env: { SITEMAP_AI_TRAIN: 'allow' },
    });
    try {
      const result = await second.strapi
        .plugin('sitemap-ai')
        .service('snapshot-builder')
        .rebuild({ trigger: 'test' });
      expect(result.skipped).toBe(false);
      const after = await crawl(second.http, { limit: '1000' });
      const old = new Map(before.items.map((i) => [i.id, i]));
      const followed = after.items.filter((i) => i.usage.train === 'allow');
      const pinned = after.items.filter((i) => i.usage.train === 'deny');
      // Pages and guides inherit the site policy; some articles pin train: deny at entry level (cascade)
      expect(followed.some((i) => i.id.startsWith('page:'))).toBe(true);
      expect(followed.some((i) => i.id.startsWith('guide:'))).toBe(true);
      expect(pinned.some((i) => i.id.startsWith('article:'))).toBe(true);
      for (const item of followed) {
        const [c, m] = old.get(item.id)!.version.slice(1).split('.').map(Number);
        expect(item.version).toBe(`v${c}.${m! + 1}`);
        expect(item.checksum).toBe(old.get(item.id)!.checksum);
        expect(item.changelog![0]!.desc).toMatch(
          /^plugin config changed \(config\/plugins\): .*usage\.train: deny → allow/,
        );
      }
      for (const item of pinned) expect(item.version).toBe(old.get(item.id)!.version);
      // Datasets allow train with citation at type level: unchanged
      const dataset = after.items.find((i) => i.id.startsWith('dataset:'))!;
      expect(dataset.usage.train).toBe('allow-with-citation');
      expect(dataset.version).toBe(old.get(dataset.id)!.version);
    } finally {
      await second.close();
    }
  });
});
