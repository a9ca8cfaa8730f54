import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ManifestItem } from '../../shared/contracts/manifest';
import type { FirstPublish } from '../../server/src/services/tracker';
import { createGeoRepository } from '../../server/src/repositories/geo-repository';
import { blobKey, decodeBlob, encodeBlob } from '../../server/src/repositories/blob-codec';
import { createStateRepository } from '../../server/src/repositories/state-repository';
import { checksumOf, metaHashOf } from '../../server/src/repositories/stored-state';
import { API, crawl, sha256 } from '../helpers/manifest';
import { wipePluginRows } from '../helpers/stored';
import { bootPlayground, PLAYGROUND, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * A site's first build publishes as it tracks (docs/protocol.md §5): each new state is made a
 * version of snapshot 1 in the transaction that writes it, and nothing waits for the builder to
 * read it back. What that must not break: every item is served with the licence and usage the
 * settings give, a first build interrupted after tracking is completed by the next one, and a
 * publish that lands while the first build tracks is served, with no version of an empty range.
 */
const ARTICLE = 'api::article.article';
/** The seed's GEO article body: sections, a table, a figure. */
const GEO_BODY = readFileSync(path.join(PLAYGROUND, 'src', 'seed-data', 'geo-index.en.md'), 'utf8');
const PAGE = 50;

interface VersionRow {
  item_id: string;
  seq_from: number | string;
  seq_to: number | string;
  state_revision: number | string | null;
}

describe.each(testDatabases())('a first build on %s', (client) => {
  let app: TestApp;
  /** What the seeded site serves after the first build made at its start, by item id. */
  let expected: Map<string, ManifestItem>;
  const knex = () => app.strapi.db.connection;
  const builder = () => app.strapi.plugin('sitemap-ai').service('snapshot-builder');
  const tracker = () => app.strapi.plugin('sitemap-ai').service('tracker');

  /**
   * The items served, by id, always in pages of the same size: a snapshot built again after the
   * wipe is snapshot 1 once more, and its pages must not come from the cache of the one before.
   */
  async function served(): Promise<Map<string, ManifestItem>> {
    return new Map(
      (await crawl(app.http, { limit: String(PAGE) })).items.map((item) => [item.id, item]),
    );
  }

  async function rowsOf(table: string): Promise<number> {
    const [row] = (await knex()(table).count({ n: '*' })) as { n: number | string }[];
    return Number(row!.n);
  }

  const wipe = () => wipePluginRows(app.strapi);

  /** What `run` resolves to, with the warnings Strapi's log was given while it ran. */
  async function withWarnings<T>(
    run: () => Promise<T>,
  ): Promise<{ result: T; warnings: string[] }> {
    const warnings: string[] = [];
    const warn = app.strapi.log.warn;
    app.strapi.log.warn = ((message: string) => {
      warnings.push(String(message));
    }) as typeof warn;
    try {
      return { result: await run(), warnings };
    } finally {
      app.strapi.log.warn = warn;
    }
  }

  /** An editor adds `sentence` to an article's body (the English GEO article's) and publishes it. */
  async function publishParagraph(sentence: string, slug = 'geo-index', locale = 'en') {
    const documents = app.strapi.documents(ARTICLE as never) as unknown as {
      findFirst(q: unknown): Promise<{ documentId: string; body: string }>;
      update(q: unknown): Promise<unknown>;
      publish(q: unknown): Promise<unknown>;
    };
    const draft = await documents.findFirst({ filters: { slug }, locale, status: 'draft' });
    await documents.update({
      documentId: draft.documentId,
      locale,
      data: { body: `${draft.body}\n\n${sentence}\n` },
    });
    await documents.publish({ documentId: draft.documentId, locale });
  }

  /** Whether an item of that article served now, changed since the start, holds `sentence`. */
  async function servesParagraph(now: Map<string, ManifestItem>, sentence: string) {
    const edited = [...now.values()].filter(
      (item) =>
        item.id.startsWith('article:geo-index:en') &&
        item.checksum !== expected.get(item.id)?.checksum,
    );
    const texts = await Promise.all(
      edited.map(
        async (item) => (await app.http.get(new URL(item.content_url).pathname).expect(200)).text,
      ),
    );
    return texts.some((text) => text.includes(sentence));
  }

  /** Every item served is the one the start's first build served: id, licence, usage, checksum. */
  function expectServedAsAtStart(now: Map<string, ManifestItem>): void {
    expect([...now.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [id, item] of now) {
      const before = expected.get(id)!;
      expect({ id, license: item.license, usage: item.usage, checksum: item.checksum }).toEqual({
        id,
        license: before.license,
        usage: before.usage,
        checksum: before.checksum,
      });
    }
  }

  /**
   * Each item served has its own canonical text: the content its URL serves is the text its
   * checksum names (wherever its version keeps it: by key, or in its row).
   */
  async function expectContentsSound(items: Map<string, ManifestItem>): Promise<void> {
    expect(items.size).toBeGreaterThan(20);
    for (const item of items.values()) {
      const { text } = await app.http.get(new URL(item.content_url).pathname).expect(200);
      expect(sha256(text), item.id).toBe(item.checksum);
    }
  }

  /** One open version per item, none of an empty range, none waiting after the build. */
  async function expectVersionsSound(): Promise<VersionRow[]> {
    const versions = (await knex()('sitemap_ai_item_versions').select(
      'item_id',
      'seq_from',
      'seq_to',
      'state_revision',
    )) as VersionRow[];
    for (const v of versions) expect(Number(v.seq_to)).toBeGreaterThan(Number(v.seq_from));
    const open = versions.filter((v) => Number(v.seq_to) > 1e9).map((v) => v.item_id);
    expect(new Set(open).size).toBe(open.length);
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);
    return versions;
  }

  beforeAll(async () => {
    app = await bootPlayground(client);
    expected = await served();
    expect(expected.size).toBeGreaterThan(20);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('publishes every item as it tracks it: served as before, each version at its state’s revision, nothing left waiting', async () => {
    // Given the seeded site without any of the plugin's rows
    await wipe();

    // When the first build runs
    const result = await builder().rebuild({ trigger: 'test' });

    // Then snapshot 1 serves every item as the start's build did, all counted as added
    expect(result.snapshot.seq).toBe(1);
    expect(result.snapshot.changes).toEqual({ added: expected.size, changed: 0, removed: 0 });
    expectServedAsAtStart(await served());
    // and counted by type as the items it serves are (counted afresh for a first snapshot)
    const byType: Record<string, number> = {};
    for (const item of expected.values()) byType[item.type] = (byType[item.type] ?? 0) + 1;
    expect(Object.keys(byType).length).toBeGreaterThan(3);
    expect(result.snapshot.counts).toEqual(byType);
    const versions = await expectVersionsSound();
    const states = new Map(
      (
        (await knex()('sitemap_ai_fragment_states').select('item_id', 'revision')) as {
          item_id: string;
          revision: number | string;
        }[]
      ).map((s) => [s.item_id, Number(s.revision)]),
    );
    expect(versions).toHaveLength(expected.size);
    for (const v of versions) expect(Number(v.state_revision)).toBe(states.get(v.item_id));
  });

  it('completes a first build that was interrupted after it tracked: every state waits again and is published', async () => {
    // Given a first build that tracked the whole site, writing states and versions of snapshot 1,
    // and stopped before it published the snapshot
    await wipe();
    const print = app.strapi.plugin('sitemap-ai').service('config').policyFingerprint() as string;
    const publish: FirstPublish = {
      seq: 1,
      print,
      fence: async () => undefined,
      published: () => undefined,
    };
    await tracker().reconcileAll('interrupted', publish);
    expect(await rowsOf('sitemap_ai_item_versions')).toBe(expected.size);
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);

    // When the next build runs
    const result = await builder().rebuild({ trigger: 'test' });

    // Then it publishes snapshot 1 with every item, as the settings give them
    expect(result.snapshot.seq).toBe(1);
    expect(result.snapshot.itemCount).toBe(expected.size);
    const now = await served();
    expectServedAsAtStart(now);
    await expectContentsSound(now);
    await expectVersionsSound();
  });

  /** A first build whose server stops once it has tracked the whole site, before it publishes. */
  async function interruptedFirstBuild(): Promise<void> {
    const service = tracker();
    const reconcileAll = service.reconcileAll;
    service.reconcileAll = async (...args: Parameters<typeof reconcileAll>) => {
      await reconcileAll(...args);
      throw new Error('the server stopped');
    };
    try {
      await expect(builder().rebuild({ trigger: 'test' })).rejects.toThrow('the server stopped');
    } finally {
      service.reconcileAll = reconcileAll;
    }
    expect(await rowsOf('sitemap_ai_snapshots')).toBe(0);
  }

  async function versionRowIds(): Promise<number[]> {
    const rows = (await knex()('sitemap_ai_item_versions').select('id')) as { id: number }[];
    return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }

  it('resumes a first build interrupted under the same policy: what it wrote is kept, not done again', async () => {
    // Given a first build that published as it tracked the whole site and stopped before it
    // published snapshot 1
    await wipe();
    await interruptedFirstBuild();
    const kept = await versionRowIds();
    expect(kept).toHaveLength(expected.size);
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);

    // When the next build runs under the same policy
    const result = await builder().rebuild({ trigger: 'test' });

    // Then it publishes snapshot 1 with the versions the interrupted run wrote, not new ones
    expect(result.snapshot.seq).toBe(1);
    expect(result.snapshot.changes).toEqual({ added: expected.size, changed: 0, removed: 0 });
    expect(await versionRowIds()).toEqual(kept);
    // and serves every item as the start's build did
    expectServedAsAtStart(await served());
    await expectVersionsSound();
  });

  it('starts over a first build interrupted under another policy: nothing it computed is published', async () => {
    // Given a first build interrupted after it tracked the site
    await wipe();
    await interruptedFirstBuild();
    const written = await versionRowIds();
    // and the site's default usage changed before the next build
    const settings = app.strapi.plugin('sitemap-ai').service('settings');
    const data = structuredClone(settings.data().settings) as {
      defaults: { usage: { train: string } };
    };
    const train = data.defaults.usage.train;
    data.defaults.usage.train = train === 'allow' ? 'deny' : 'allow';
    await settings.update(data, null);
    try {
      // When the next build runs
      const result = await builder().rebuild({ trigger: 'test' });

      // Then none of the interrupted run's versions is published
      expect(result.snapshot.seq).toBe(1);
      const now = await versionRowIds();
      expect(now.filter((id) => written.includes(id))).toEqual([]);
      // and it serves what a first build under the new policy serves from nothing
      const recovered = await served();
      const defaulted = [...recovered.values()].filter(
        (item) => expected.get(item.id)!.usage.train === train && item.usage.train !== train,
      );
      expect(defaulted.length).toBeGreaterThan(0);
      // with the canonical texts the interrupted run had kept in its versions' rows (given back
      // to the states before those versions went): no item is counted as edited
      await expectContentsSound(recovered);
      expect(
        [...recovered.values()].filter((item) => !item.version.startsWith('v1.')).map((i) => i.id),
      ).toEqual([]);
      await expectVersionsSound();
      await wipe();
      await builder().rebuild({ trigger: 'test' });
      const clean = await served();
      const policyOf = (items: Map<string, ManifestItem>) =>
        [...items.values()]
          .map((item) => ({
            id: item.id,
            license: item.license,
            usage: item.usage,
            checksum: item.checksum,
          }))
          .sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(policyOf(recovered)).toEqual(policyOf(clean));
    } finally {
      data.defaults.usage.train = train;
      await settings.update(data, null);
      await wipe();
      await builder().rebuild({ trigger: 'test' });
      expectServedAsAtStart(await served());
    }
  });

  it('serves a publish that lands while the first build tracks, replacing the version the build had written', async () => {
    // Given a client holding the first manifest page of a snapshot 1 built from the seeded site
    await wipe();
    expect((await builder().rebuild({ trigger: 'test' })).snapshot.seq).toBe(1);
    const firstPage = () => app.http.get(`${API}/manifest`).query({ limit: String(PAGE) });
    const oldPage = await firstPage().expect(200);
    const oldEtag = String(oldPage.headers.etag);
    // and the tokens of its next manifest page and its next delta page
    const oldToken = String(oldPage.body.next_page_token);
    const oldDeltaToken = String(
      (
        await app.http
          .get(`${API}/delta`)
          .query({ since: '0', limit: String(PAGE) })
          .expect(200)
      ).body.next_page_token,
    );
    // and that site without the plugin's rows again, and an editor who publishes a new
    // paragraph of an article once the first build has tracked the whole site
    await wipe();
    const service = tracker();
    const reconcileAll = service.reconcileAll;
    const sentence = 'A paragraph published while the first build ran.';
    service.reconcileAll = async (...args: Parameters<typeof reconcileAll>) => {
      const result = await reconcileAll(...args);
      await publishParagraph(sentence);
      await service.flush();
      return result;
    };
    let result;
    try {
      // When the first build runs
      result = await builder().rebuild({ trigger: 'test' });
    } finally {
      service.reconcileAll = reconcileAll;
    }

    // Then snapshot 1 serves the published paragraph; every item counts as added, none changed
    expect(result.snapshot.seq).toBe(1);
    expect(result.snapshot.changes.changed).toBe(0);
    expect(result.snapshot.changes.removed).toBe(0);
    const now = await served();
    expect(result.snapshot.changes.added).toBe(now.size);
    expect(await servesParagraph(now, sentence)).toBe(true);
    // and the client revalidating the old snapshot 1's first page gets the new one, not a 304
    const revalidated = await firstPage().set('If-None-Match', oldEtag);
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.etag).not.toBe(oldEtag);
    // and its page tokens do not resume in the new snapshot 1: that traversal is gone
    const resumed = await app.http
      .get(`${API}/manifest`)
      .query({ limit: String(PAGE), page_token: oldToken });
    expect(resumed.status).toBe(410);
    expect(resumed.body.error.name).toBe('SnapshotGoneError');
    const resumedDelta = await app.http
      .get(`${API}/delta`)
      .query({ since: '0', limit: String(PAGE), page_token: oldDeltaToken });
    expect(resumedDelta.status).toBe(410);
    // while a token of the new snapshot 1 goes on
    const next = String((await firstPage().expect(200)).body.next_page_token);
    await app.http
      .get(`${API}/manifest`)
      .query({ limit: String(PAGE), page_token: next })
      .expect(200);
    // and no version is left with an empty range, one open per item, nothing waiting
    await expectVersionsSound();
  });

  it('does not resume when the snapshots are gone but later snapshots wrote versions, even if a first build was never marked done', async () => {
    // Given a site built twice, the second time after an edit was published
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const sentence = 'A paragraph published after the first snapshot.';
    await publishParagraph(sentence);
    await tracker().flush();
    expect((await builder().rebuild({ trigger: 'test' })).snapshot.seq).toBe(2);
    // and its snapshots lost, with the mark of a first build under this policy left behind (a
    // server stopped between publishing a first snapshot and clearing the mark)
    const print = app.strapi.plugin('sitemap-ai').service('config').policyFingerprint() as string;
    await app.strapi.store({ type: 'plugin', name: 'sitemap-ai' }).set({
      key: 'first-build-policy',
      value: print,
    });
    await knex()('sitemap_ai_snapshots').delete();

    // When the next build runs
    const result = await builder().rebuild({ trigger: 'test' });

    // Then the new snapshot 1 serves the site as it is now, not as the old snapshot 1 was
    expect(result.snapshot.seq).toBe(1);
    const now = await served();
    expect(now.size).toBe(expected.size);
    expect(await servesParagraph(now, sentence)).toBe(true);
    await expectVersionsSound();
  });

  it('stores the texts of a batch large enough to be encoded on a second thread, each read back as written', async () => {
    // Given a site with two dozen more articles, so one batch of the first build stores hundreds
    // of texts: more than are encoded on the thread that writes them (256), each item's data
    // being a text of its own
    const documents = app.strapi.documents(ARTICLE as never) as unknown as {
      create(q: unknown): Promise<{ documentId: string }>;
      publish(q: unknown): Promise<unknown>;
    };
    for (let i = 0; i < 24; i += 1) {
      const doc = await documents.create({
        locale: 'en',
        data: {
          title: `Encoded ${i}`,
          slug: `encoded-${i}`,
          body: `${GEO_BODY}\n\nA closing paragraph of its own, number ${i}.\n`,
        },
      });
      await documents.publish({ documentId: doc.documentId, locale: 'en' });
    }
    await tracker().flush();
    await wipe();

    // When the first build runs
    await builder().rebuild({ trigger: 'test' });

    // Then it stored hundreds of texts, and every item of those articles is served with the
    // site's licence and usage, its content hashing to the checksum the manifest gives
    const now = await served();
    const geo = expected.get('article:geo-index:en')!;
    const added = [...now.values()].filter((item) => item.id.startsWith('article:encoded-'));
    expect(added.length).toBeGreaterThan(256);
    for (const item of added) {
      expect({ license: item.license, usage: item.usage }).toEqual({
        license: geo.license,
        usage: geo.usage,
      });
      const content = await app.http.get(new URL(item.content_url).pathname).expect(200);
      expect(sha256(content.text), item.id).toBe(item.checksum);
    }
    await expectVersionsSound();
  });

  it("drafts a whole-site pass on the plugin's thread, item for item what this thread drafts", async () => {
    // Given a first build made (its documents drafted on the plugin's thread, from the package's
    // drafting bundle: the playground runs the built server)
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const built = await served();
    // (the thread encoded the canonical texts it drafted, kept in their versions' rows: each
    // decodes to the text its item's checksum names, and none was stored by key)
    const contents = (await knex()('sitemap_ai_item_versions').select(
      'item_id',
      'content_ref',
      'content_body',
      'checksum',
    )) as {
      item_id: string;
      content_ref: string | null;
      content_body: unknown;
      checksum: string;
    }[];
    expect(contents.length).toBeGreaterThan(20);
    for (const { item_id: id, content_ref: ref, content_body: body, checksum } of contents) {
      expect([ref, Buffer.isBuffer(body)], id).toEqual([null, true]);
      const hex = sha256(decodeBlob(body as Buffer)).slice('sha256:'.length);
      expect(Buffer.from(hex, 'hex').toString('base64url'), id).toBe(checksum);
    }
    expect(await rowsOf('sitemap_ai_texts')).toBe(0);

    // When every document is compared again with no hash to skip it (as after an upgrade)
    await knex()('sitemap_ai_source_hashes').del();
    const pass = (await tracker().reconcileAll('test')) as {
      documents: number;
      changed: number;
      unchanged: number;
      draftedOnThread: number;
      draftedBeside: number;
      failures: unknown[];
    };

    // Then each was drafted on the thread (or, the batch begun there, on this thread while it
    // waited: the same function) and found as the first build left it
    expect(pass.failures).toEqual([]);
    expect(pass.unchanged).toBe(0);
    expect(pass.documents).toBeGreaterThan(10);
    expect(pass.draftedOnThread).toBeGreaterThan(0);
    expect(pass.draftedOnThread + pass.draftedBeside).toBe(pass.documents);
    expect(pass.changed).toBe(0);

    // And each drafted on this thread (a document tracked on its own) is found unchanged too
    const articles = (await knex()('articles').distinct('document_id')) as {
      document_id: string;
    }[];
    expect(articles.length).toBeGreaterThan(10);
    for (const { document_id: documentId } of articles) {
      const one = (await tracker().trackDocument(ARTICLE, documentId, 'test')) as {
        changed: number;
      };
      expect(one.changed, documentId).toBe(0);
    }
    await builder().rebuild({ trigger: 'test' });
    expect(await served()).toEqual(built);
  });

  /** What a first build's pass reported (tracker `reconcileAll`), caught as the build ran. */
  interface Pass {
    documents: number;
    draftedBeside: number;
    comparedOnThread: number;
    failures: unknown[];
  }
  async function firstBuildPass(): Promise<Pass> {
    const reconcileAll = vi.spyOn(tracker(), 'reconcileAll');
    try {
      await builder().rebuild({ trigger: 'test' });
      expect(reconcileAll).toHaveBeenCalledTimes(1);
      return (await reconcileAll.mock.results[0]!.value) as Pass;
    } finally {
      reconcileAll.mockRestore();
    }
  }

  /** An item as served, its times left out: two builds of the same site serve the rest alike. */
  const timeless = (item: ManifestItem): unknown =>
    JSON.parse(JSON.stringify(item).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '(time)'));

  it("compares a first build's documents on the plugin's thread, item for item what this thread compares", async () => {
    // Given a first build whose documents with no state the thread compared as it drafted them
    // (the changelog empty as it began)
    await wipe();
    const onThread = await firstBuildPass();
    expect(onThread.failures).toEqual([]);
    expect(onThread.comparedOnThread).toBeGreaterThan(0);
    expect(onThread.comparedOnThread + onThread.draftedBeside).toBe(onThread.documents);
    const thread = await served();
    await expectContentsSound(thread);

    // When the same site is built again from nothing but a changelog row of another item, so that
    // every document is compared on this thread
    await wipe();
    await app.strapi.db.query('plugin::sitemap-ai.changelog-entry').create({
      data: {
        item_id: 'article:not-on-this-site:en',
        at: new Date().toISOString(),
        version: 'v1.0',
        kind: 'added',
        desc: 'page added',
        checksum_before: null,
        checksum_after: null,
      },
    });
    const here = await firstBuildPass();
    expect(here.failures).toEqual([]);
    expect(here.comparedOnThread).toBe(0);
    expect(here.documents).toBe(onThread.documents);

    // Then both serve the same items, every field alike but for the times they were made
    const compared = await served();
    expect([...compared.keys()].sort()).toEqual([...thread.keys()].sort());
    for (const [id, item] of thread)
      expect(timeless(item), id).toEqual(timeless(compared.get(id)!));
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);
  });

  it('compares here a fresh document whose states the policy check holds back, storing their whole data while they wait', async () => {
    // Given a first build during which the policy check refuses the items of one article
    await wipe();
    const policy = app.strapi.plugin('sitemap-ai').service('policy') as {
      violations(
        candidates: readonly { itemId: string; sourceDocument: string }[],
      ): Promise<Map<string, string>>;
    };
    const check = policy.violations.bind(policy);
    let heldBack: string | undefined;
    const violations = vi.spyOn(policy, 'violations').mockImplementation(async (candidates) => {
      const refused = await check(candidates);
      // (the first document of the first batch: the thread drafts every batch's first document)
      heldBack ??= candidates[0]?.sourceDocument;
      for (const c of candidates) if (c.sourceDocument === heldBack) refused.set(c.itemId, 'held');
      return refused;
    });
    let pass: Pass;
    let warnings: string[];
    try {
      ({ result: pass, warnings } = await withWarnings(firstBuildPass));
    } finally {
      violations.mockRestore();
    }

    // Then that article was compared on this thread, the others where they were drafted
    expect(heldBack).toBeDefined();
    expect(pass.failures).toEqual([]);
    expect(pass.comparedOnThread + pass.draftedBeside).toBe(pass.documents - 1);
    // (its batch written at once, not tracked again document by document)
    expect(warnings.filter((message) => /one by one/.test(message))).toEqual([]);
    // and its items wait, none served, each state holding its whole item (not the part of it
    // the thread sends back), stored by key
    const waiting = (await knex()('sitemap_ai_fragment_states')
      .where({ source_document: heldBack })
      .select('item_id', 'data_ref')) as { item_id: string; data_ref: string | null }[];
    expect(waiting.length).toBeGreaterThan(3);
    expect(waiting.filter((row) => row.data_ref === null)).toEqual([]);
    const pending = (await knex()('sitemap_ai_pending_states').select('item_id')) as {
      item_id: string;
    }[];
    expect(new Set(pending.map((row) => row.item_id))).toEqual(
      new Set(waiting.map((row) => row.item_id)),
    );
    const now = await served();
    for (const { item_id: id } of waiting) expect(now.has(id), id).toBe(false);
    const repository = createStateRepository({ strapi: app.strapi });
    const states = await repository.forDocuments(ARTICLE, [heldBack!]);
    expect(states).toHaveLength(waiting.length);
    for (const state of states)
      expect([state.data.content_url, state.data.citation], state.itemId).not.toContain(undefined);

    // When the check lets them through and the site is built again
    await builder().rebuild({ trigger: 'test' });

    // Then every item is served, theirs too, with their content, each of theirs as its waiting
    // state held it
    const after = await served();
    expect(after.size).toBe(now.size + waiting.length);
    await expectContentsSound(after);
    for (const state of states) {
      const item = after.get(state.itemId)!;
      expect([
        state.data.url,
        state.data.license,
        state.data.usage,
        state.data.content_url,
      ]).toEqual([item.url, item.license, item.usage, item.content_url]);
    }
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);
  });

  it("answers a re-compare's unchanged items thin from the plugin's thread, and still writes what changed", async () => {
    // Given a first build, then one article's published body edited behind the plugin's back
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const before = await served();
    const sentence = `A sentence added behind the plugin's back ${Date.now()}.`;
    const published = () =>
      knex()('articles').where({ slug: 'geo-index', locale: 'en' }).whereNotNull('published_at');
    const [row] = (await published().select('body')) as { body: string }[];
    const original = row!.body;
    expect(await published().update({ body: `${original}\n\n${sentence}\n` })).toBe(1);
    // (a page whose entry brings an editor's reason is drafted whole: the reason may be new)
    const withReason = new Set<string>();
    // (and its document is compared whole: only a document all of whose drafts came back thin is
    // left uncompared, settled)
    const unsettled = new Set<string>();
    for (const row of (await knex()('articles')
      .whereNotNull('published_at')
      .select('slug', 'locale', 'document_id', 'sitemap_ai')) as {
      slug: string;
      locale: string;
      document_id: string;
      sitemap_ai: string | { reason?: string } | null;
    }[]) {
      const metadata =
        typeof row.sitemap_ai === 'string' ? JSON.parse(row.sitemap_ai) : row.sitemap_ai;
      const page = `article:${row.slug}:${row.locale}`;
      if (metadata?.reason?.trim()) {
        withReason.add(page);
        if (before.has(page)) unsettled.add(row.document_id);
      }
      if (row.slug === 'geo-index') unsettled.add(row.document_id);
    }

    // When every document is compared again on the thread (no hash to skip one)
    await knex()('sitemap_ai_source_hashes').del();
    const { result: pass, warnings } = await withWarnings(
      async () =>
        (await tracker().reconcileAll('test')) as {
          documents: number;
          changed: number;
          draftedOnThread: number;
          draftedBeside: number;
          answeredThin: number;
          settled: number;
          failures: unknown[];
        },
    );
    const hashesRecorded = Number(
      ((await knex()('sitemap_ai_source_hashes').count('* as n')) as { n: number }[])[0]!.n,
    );

    // Then the batch was compared as a batch (no thin draft was read: that would have tracked it
    // one by one), each item it left alone came back thin, and the edit was found
    expect(pass.failures).toEqual([]);
    expect(warnings.filter((w) => w.includes('one by one'))).toEqual([]);
    expect(pass.draftedOnThread).toBeGreaterThan(0);
    expect(pass.draftedOnThread + pass.draftedBeside).toBe(pass.documents);
    expect(pass.changed).toBeGreaterThan(0);

    // And the next snapshot serves the edit and every other item as it was
    await builder().rebuild({ trigger: 'test' });
    const after = await served();
    await published().update({ body: original });
    // (every other document was settled from its states' keys, and its hash recorded all the same)
    expect(unsettled.size).toBeGreaterThan(1);
    expect(pass.settled).toBe(pass.documents - unsettled.size);
    expect(hashesRecorded).toBe(pass.documents);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const changed = [...after.values()].filter(
      (item) => item.checksum !== before.get(item.id)!.checksum,
    );
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((item) => item.id.startsWith('article:geo-index:en'))).toBe(true);
    expect(changed.length).toBe(pass.changed);
    const changedIds = new Set(changed.map((item) => item.id));
    const reasonsLeft = [...withReason].filter((id) => before.has(id) && !changedIds.has(id));
    expect(pass.answeredThin).toBe(before.size - changed.length - reasonsLeft.length);
    expect(await servesParagraph(after, sentence)).toBe(true);
    for (const [id, item] of after) {
      if (changed.includes(item)) continue;
      expect({ ...item, changelog: undefined }, id).toEqual({
        ...before.get(id)!,
        changelog: undefined,
      });
    }
  });

  it('writes the items of a first build in the order of their slugs, not of their document ids', async () => {
    // Given a dozen more articles, whose document ids Strapi draws at random
    const documents = app.strapi.documents(ARTICLE as never) as unknown as {
      create(q: unknown): Promise<{ documentId: string }>;
      publish(q: unknown): Promise<unknown>;
    };
    for (const letter of 'qwertyuiopas') {
      const doc = await documents.create({
        locale: 'en',
        data: { title: `Ordered ${letter}`, slug: `ordered-${letter}`, body: GEO_BODY },
      });
      await documents.publish({ documentId: doc.documentId, locale: 'en' });
    }
    await tracker().flush();
    await wipe();

    // When the first build runs
    await builder().rebuild({ trigger: 'test' });

    // Then the English article pages (items with no parent) were written (row ids of their
    // versions, made in the transactions that wrote their states) in slug order
    const slugs = new Map(
      (
        (await knex()('articles')
          .whereNotNull('published_at')
          .where('locale', 'en')
          .select('document_id', 'slug')) as { document_id: string; slug: string | null }[]
      ).map((row) => [row.document_id, row.slug ?? '']),
    );
    const written = (
      (await knex()('sitemap_ai_item_versions')
        .where({ source_uid: ARTICLE, lang: 'en' })
        .whereNull('parent_item')
        .orderBy('id')
        .select('source_document')) as { source_document: string }[]
    ).map((row) => slugs.get(row.source_document)!);
    expect(written.filter((slug) => slug.startsWith('ordered-'))).toHaveLength(12);
    expect(written).toEqual([...written].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('leaves to the versions of a first build what its states hold alike, and reads it back from them', async () => {
    // Given a first build of the seeded site
    await wipe();
    const first = await builder().rebuild({ trigger: 'test' });
    const before = await served();
    expect(before.size).toBe(first.snapshot.itemCount);
    // Then the states it published hold none of what their versions hold
    const stateColumns = [
      'checksum',
      'meta_hash',
      'modified_at',
      'data_ref',
      'data_body',
      'content_ref',
      'content_body',
    ];
    const states = (await knex()('sitemap_ai_fragment_states').select(stateColumns)) as Record<
      string,
      unknown
    >[];
    expect(states).toHaveLength(before.size);
    expect(states.filter((row) => Object.values(row).some((value) => value !== null))).toEqual([]);
    // and each version keeps its item's data and canonical text in its row, as bytes that decode
    // to what is served; nothing is stored by key
    const versions = (await knex()('sitemap_ai_item_versions').select(
      'item_id',
      'data_ref',
      'data_body',
      'content_ref',
      'content_body',
    )) as {
      item_id: string;
      data_ref: string | null;
      data_body: unknown;
      content_ref: string | null;
      content_body: unknown;
    }[];
    expect(versions).toHaveLength(before.size);
    expect(
      versions.filter(
        (row) =>
          row.data_ref !== null ||
          !Buffer.isBuffer(row.data_body) ||
          row.content_ref !== null ||
          !Buffer.isBuffer(row.content_body),
      ),
    ).toEqual([]);
    for (const row of versions) {
      const kept = JSON.parse(decodeBlob(row.data_body as Buffer)) as ManifestItem;
      const item = before.get(row.item_id)!;
      expect([kept.url, kept.license, kept.usage, kept.title]).toEqual([
        item.url,
        item.license,
        item.usage,
        item.title,
      ]);
    }
    expect(await rowsOf('sitemap_ai_texts')).toBe(0);
    // and each fragment's content is served from its row
    const rowOf = new Map(versions.map((row) => [row.item_id, row]));
    const withContent = [...before.values()].filter((item) => item.type !== 'article').slice(0, 12);
    expect(withContent).toHaveLength(12);
    for (const item of withContent) {
      const { pathname } = new URL(item.content_url);
      const { text } = await app.http.get(pathname).expect(200);
      expect(text, item.id).toBe(decodeBlob(rowOf.get(item.id)!.content_body as Buffer));
    }
    const changelogRows = await rowsOf('sitemap_ai_changelog');

    // When every document is compared with its states again (what they were compared with
    // forgotten), nothing having changed
    await knex()('sitemap_ai_source_hashes').delete();
    const again = await builder().rebuild({ trigger: 'test', full: true });

    // Then nothing is written: each state read back is what its entries give
    expect(again.snapshot.seq).toBe(1);
    expect(await rowsOf('sitemap_ai_changelog')).toBe(changelogRows);
    expect(await rowsOf('sitemap_ai_pending_states')).toBe(0);

    // When an editor adds a paragraph to an article and the next build runs
    const sentence = 'A paragraph added after the first build.';
    await publishParagraph(sentence);
    await tracker().flush();
    expect((await builder().rebuild({ trigger: 'test' })).snapshot.seq).toBe(2);

    // Then the edited items are served at their next content version, their change measured
    // against the text of the first build, and every other item as the first build served it
    const now = await served();
    expect(await servesParagraph(now, sentence)).toBe(true);
    const edited = [...now.values()].filter(
      (item) => item.checksum !== before.get(item.id)?.checksum,
    );
    expect(edited.length).toBeGreaterThan(0);
    for (const item of edited) {
      expect(item.id.startsWith('article:geo-index:en')).toBe(true);
      expect(item.version).toBe('v2.0');
      // (the paragraph and the blank lines around it: measured against the whole old text)
      const added = /edited, \+(\d+)\/−0 characters$/.exec(item.changelog?.[0]?.desc ?? '');
      expect(Number(added?.[1])).toBeGreaterThanOrEqual(sentence.length);
      expect(Number(added?.[1])).toBeLessThanOrEqual(sentence.length + 3);
      expect(item.changelog?.[1]?.version).toBe('v1.0');
    }
    for (const [id, item] of now)
      if (!edited.includes(item))
        expect({ id, version: item.version, checksum: item.checksum }).toEqual({
          id,
          version: before.get(id)!.version,
          checksum: before.get(id)!.checksum,
        });
    // and the edited states hold their own fields again, their data a stored text like their
    // new versions'
    const rewritten = (await knex()('sitemap_ai_fragment_states')
      .whereIn(
        'item_id',
        edited.map((item) => item.id),
      )
      .select('checksum', 'data_ref', 'data_body', 'content_ref', 'content_body')) as {
      checksum: string | null;
      data_ref: string | null;
      data_body: unknown;
      content_ref: string | null;
      content_body: unknown;
    }[];
    const notByKey = (row: (typeof rewritten)[number]) =>
      row.data_ref === null ||
      row.data_body !== null ||
      row.content_ref === null ||
      row.content_body !== null;
    expect(rewritten.map((row) => row.checksum === null)).toEqual(edited.map(() => false));
    expect(rewritten.filter(notByKey)).toEqual([]);
    const newVersions = (await knex()('sitemap_ai_item_versions')
      .where('seq_from', 2)
      .select(
        'checksum',
        'data_ref',
        'data_body',
        'content_ref',
        'content_body',
      )) as typeof rewritten;
    expect(newVersions).toHaveLength(edited.length);
    expect(newVersions.filter(notByKey)).toEqual([]);
    await expectVersionsSound();
  });

  it("reads a slim state's fields from the newest version made at its revision, and refuses one whose version is gone", async () => {
    // Given a first build of the seeded site, whose states take their fields from their versions
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const repository = createStateRepository({ strapi: app.strapi });
    const [page] = (await knex()('sitemap_ai_fragment_states')
      .where({ source_uid: ARTICLE, item_type: 'article' })
      .whereNull('checksum')
      .select('item_id', 'source_document', 'revision')) as {
      item_id: string;
      source_document: string;
      revision: number | string;
    }[];
    expect(page).toBeDefined();
    const documentId = page!.source_document;
    const read = async () => {
      const keys = await repository.keysForDocuments(ARTICLE, [documentId]);
      const states = await repository.forDocuments(ARTICLE, [documentId], { texts: 'later' });
      return {
        keys: new Map(keys.map((key) => [key.itemId, [key.checksum, key.metaHash]])),
        states: new Map(states.map((state) => [state.itemId, [state.checksum, state.metaHash]])),
      };
    };
    // Then each state of the document is read with its version's hashes, once
    const versions = (
      (await knex()('sitemap_ai_item_versions')
        .where('source_document', documentId)
        .select('*')) as Record<string, unknown>[]
    ).map(({ id: _id, ...row }) => row);
    expect(versions.length).toBeGreaterThan(3);
    const fromVersions = new Map(
      versions.map((v) => [
        String(v.item_id),
        [checksumOf(v.checksum), metaHashOf(v.meta_hash)] as [string, string],
      ]),
    );
    const first = await read();
    expect(first.keys).toEqual(fromVersions);
    expect(first.states).toEqual(fromVersions);

    // When two more versions of the page's item are stored, both newer: one made at the state's
    // revision (with another item's checksum and another metadata hash), one at the next revision
    const open = versions.find((v) => v.item_id === page!.item_id)!;
    const other = versions.find((v) => v.item_id !== page!.item_id)!;
    const revision = Number(page!.revision);
    await knex()('sitemap_ai_item_versions').insert([
      {
        ...open,
        seq_from: Number(open.seq_from) + 1,
        checksum: other.checksum,
        meta_hash: 'ab'.repeat(16),
        state_revision: revision,
      },
      {
        ...open,
        seq_from: Number(open.seq_from) + 2,
        meta_hash: 'cd'.repeat(16),
        state_revision: revision + 1,
      },
    ]);

    // Then the page's state is read with the newer one of its revision, every other as before
    const expectedNow = new Map(fromVersions);
    expectedNow.set(page!.item_id, [checksumOf(other.checksum), 'ab'.repeat(16)]);
    const second = await read();
    expect(second.keys).toEqual(expectedNow);
    expect(second.states).toEqual(expectedNow);

    // When no version of its revision is left
    await knex()('sitemap_ai_item_versions')
      .where({ item_id: page!.item_id })
      .whereNot('state_revision', revision + 1)
      .delete();

    // Then its document's states cannot be read: nothing is made up for the missing fields
    await expect(repository.keysForDocuments(ARTICLE, [documentId])).rejects.toThrow(
      /which is not stored/,
    );
    await expect(repository.forDocuments(ARTICLE, [documentId])).rejects.toThrow(
      /which is not stored/,
    );
  });

  it("keeps a first build's 'added' entries in its states, serves them as rows were, and writes them out on a change", async () => {
    type Entry = {
      date: string;
      version: string;
      kind: string;
      desc: string;
      checksum_before: string | null;
      checksum_after: string | null;
    };
    /** The "added" entry of an item served as the first build made it, as its history serves it. */
    const addedEntryOf = (item: ManifestItem): Entry => ({
      date: item.changelog![0]!.date,
      version: 'v1.0',
      kind: 'added',
      desc: item.changelog![0]!.desc,
      checksum_before: null,
      checksum_after: item.checksum,
    });
    const history = async (id: string): Promise<Entry[]> =>
      (await app.http.get(`${API}/fragments/${id}/changelog`).expect(200)).body.entries;

    // Given a first build of the seeded site
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const before = await served();

    // Then the changelog has rows only for the entries an editor gave a reason (the seed gives
    // some), and the state of each other item stands for its "added" entry
    const rows = (await knex()('sitemap_ai_changelog').select('item_id', 'desc')) as {
      item_id: string;
      desc: string;
    }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.desc).toBe(before.get(row.item_id)!.changelog![0]!.desc);
    expect(rows.filter((row) => row.desc.endsWith(' added'))).toEqual([]);
    const implying = (await knex()('sitemap_ai_fragment_states')
      .whereNotNull('added_at')
      .select('item_id')) as { item_id: string }[];
    const withRows = new Set(rows.map((row) => row.item_id));
    expect(new Set(implying.map((row) => row.item_id))).toEqual(
      new Set([...before.keys()].filter((id) => !withRows.has(id))),
    );
    // (an article none of whose items has a row: the one edited below)
    const pageId = implying
      .map((row) => row.item_id)
      .find(
        (id) =>
          id.startsWith('article:') &&
          id.split(':').length === 3 &&
          !rows.some((row) => row.item_id.startsWith(id)),
      )!;
    expect(pageId).toBeDefined();
    const [, slug, lang] = pageId.split(':') as [string, string, string];
    const pageOf = (items: Map<string, ManifestItem>) =>
      [...items.values()].filter((item) => item.id.startsWith(pageId));
    expect(pageOf(before).length).toBeGreaterThan(1);
    // And each item's public history is that entry, as the item itself tells it
    const untouched = implying
      .map((row) => before.get(row.item_id)!)
      .filter((item) => !item.id.startsWith(pageId))
      .slice(0, 5);
    expect(untouched.length).toBeGreaterThan(0);
    for (const item of [...pageOf(before), ...untouched]) {
      expect(item.changelog).toHaveLength(1);
      expect(await history(item.id)).toEqual([addedEntryOf(item)]);
      expect(item.changelog![0]!.desc).toMatch(/ added$/);
    }
    // And the dashboard's change figures count them as they count rows, oldest first
    const changes = await createGeoRepository({ strapi: app.strapi }).changesSince(
      '2000-01-01T00:00:00.000Z',
    );
    expect(changes).toHaveLength(before.size);
    expect(changes.map((change) => change.at)).toEqual(changes.map((change) => change.at).sort());
    for (const item of untouched)
      expect(changes).toContainEqual({
        itemId: item.id,
        version: 'v1.0',
        at: item.changelog![0]!.date,
      });
    // And a second page of a history of one entry is empty, a first page of one holds it
    const one = await app.http
      .get(`${API}/fragments/${untouched[0]!.id}/changelog?limit=1`)
      .expect(200);
    expect(one.body.entries).toHaveLength(1);
    expect(one.body.next_page_token).toBeNull();

    // When an editor adds a paragraph to an article and the next build runs
    const sentence = 'A paragraph added after the first build, for the changelog.';
    await publishParagraph(sentence, slug, lang);
    await tracker().flush();
    await builder().rebuild({ trigger: 'test' });
    const now = await served();
    const edited = pageOf(now).filter((item) => item.checksum !== before.get(item.id)!.checksum);
    expect(edited.length).toBeGreaterThan(0);

    // Then each edited item's history is its edit, then its "added" entry as it was served,
    // now a row of the changelog written before the edit's, and its state stands for none
    for (const item of edited) {
      const [edit, added, ...rest] = await history(item.id);
      expect(rest).toEqual([]);
      expect(edit).toMatchObject({ version: 'v2.0', kind: 'content' });
      expect(added).toEqual(addedEntryOf(before.get(item.id)!));
      expect(item.changelog!.map((entry) => entry.version)).toEqual(['v2.0', 'v1.0']);
    }
    const written = (await knex()('sitemap_ai_changelog')
      .whereIn(
        'item_id',
        edited.map((item) => item.id),
      )
      .orderBy('id')
      .select('item_id', 'version')) as { item_id: string; version: string }[];
    for (const item of edited)
      expect(written.filter((row) => row.item_id === item.id).map((row) => row.version)).toEqual([
        'v1.0',
        'v2.0',
      ]);
    const stillImplying = (await knex()('sitemap_ai_fragment_states')
      .whereNotNull('added_at')
      .select('item_id')) as { item_id: string }[];
    const editedIds = new Set(edited.map((item) => item.id));
    expect(stillImplying.filter((row) => editedIds.has(row.item_id))).toEqual([]);
    // And the items not edited still serve the entry their states stand for
    for (const item of untouched.slice(0, 3))
      expect((await history(item.id)).map((entry) => entry.date)).toEqual([
        item.changelog![0]!.date,
      ]);
  });

  it("stores a state's own canonical text when the text the thread keyed for its item is another", async () => {
    // Given the first build's state of a section of the GEO article
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const repository = createStateRepository({ strapi: app.strapi });
    const [article] = (await knex()('articles')
      .where({ slug: 'geo-index', locale: 'en' })
      .whereNotNull('published_at')
      .select('document_id')) as { document_id: string }[];
    const states = await repository.forDocuments(ARTICLE, [article!.document_id]);
    const state = states.find((candidate) => candidate.type === 'section')!;
    expect(state).toBeDefined();

    // When it is written with a text of its own while the thread's keyed texts hold another text
    // for its item (a document drafted again on this thread after the thread drafted it)
    const text = `${state.content}\n\nA sentence the thread never saw.`;
    const other = 'The text the thread keyed and encoded for this item.';
    await repository.write(
      [
        {
          state: { ...state, content: text, revision: state.revision + 1 },
          expectedRevision: state.revision,
        },
      ],
      [],
      [],
      [],
      {
        encoded: new Map([
          [state.itemId, { text: other, key: blobKey(other), body: encodeBlob(other) }],
        ]),
      },
    );

    // Then the state names its own text by that text's key, stored as written, and the other
    // text is not stored at all
    const [row] = (await knex()('sitemap_ai_fragment_states')
      .where({ item_id: state.itemId })
      .select('content_ref')) as { content_ref: string }[];
    expect(row!.content_ref).toBe(blobKey(text));
    const stored = (await knex()('sitemap_ai_texts')
      .whereIn('key', [blobKey(text), blobKey(other)])
      .select('key', 'body')) as { key: string; body: Buffer | string }[];
    expect(stored.map(({ key, body }) => [key, decodeBlob(body)])).toEqual([[blobKey(text), text]]);
    const [again] = (await repository.forDocuments(ARTICLE, [article!.document_id])).filter(
      (candidate) => candidate.itemId === state.itemId,
    );
    expect(again!.content).toBe(text);
  });

  // (last of this database's tests: the article it takes down stays down)
  it('takes down in a whole-site pass the items of a document it did not meet, and only those', async () => {
    // Given a first build, then an article whose published entries went away without the plugin
    // seeing it (their rows deleted, as a restore or another tool would: no document-service event)
    await wipe();
    await builder().rebuild({ trigger: 'test' });
    const built = await served();
    const [article] = (await knex()('articles')
      .where({ slug: 'geo-index' })
      .whereNotNull('published_at')
      .select('document_id')) as { document_id: string }[];
    const documentId = article!.document_id;
    const itemIds = (
      (await knex()('sitemap_ai_fragment_states')
        .where({ source_document: documentId, removed: false })
        .select('item_id')) as { item_id: string }[]
    ).map((row) => row.item_id);
    expect(itemIds.length).toBeGreaterThan(1);
    for (const id of itemIds) expect(built.has(id), id).toBe(true);
    /** A pass comparing every document again (no hash to skip one). */
    const everyDocument = async () => {
      await knex()('sitemap_ai_source_hashes').del();
      const pass = (await tracker().reconcileAll('test')) as {
        documents: number;
        failures: unknown[];
      };
      expect(pass.failures).toEqual([]);
      return pass.documents;
    };
    const documents = await everyDocument();
    await knex()('articles').where({ document_id: documentId }).whereNotNull('published_at').del();

    // When such a pass runs again
    const after = await everyDocument();

    // Then it met every published document, and that one among the live documents it had not met
    // (neither skipped nor any other taken as not met), whose items alone it took down
    expect(after).toBe(documents);
    const live = (await knex()('sitemap_ai_fragment_states')
      .where({ removed: false })
      .select('item_id', 'source_document')) as { item_id: string; source_document: string }[];
    expect(live.filter((row) => row.source_document === documentId)).toEqual([]);
    expect(live).toHaveLength(built.size - itemIds.length);
    await builder().rebuild({ trigger: 'test' });
    const serving = await served();
    for (const id of itemIds) expect(serving.has(id), id).toBe(false);
    expect([...serving.keys()].sort()).toEqual(
      [...built.keys()].filter((id) => !itemIds.includes(id)).sort(),
    );
  });
});
