import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobRepository } from '../../server/src/repositories/blob-repository';
import { repositories } from '../../server/src/repositories';
import { pendingStates, wipePluginRows } from '../helpers/stored';
import { API, crawl, pathOf, sha256 } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const CHANGELOG = 'plugin::sitemap-ai.changelog-entry';

interface Documents {
  findFirst(p: object): Promise<{ documentId: string; body: string }>;
  update(p: object): Promise<unknown>;
  publish(p: object): Promise<unknown>;
  unpublish(p: object): Promise<unknown>;
}

/** Append a line to the English draft of an article and publish it. */
async function publishEdit(app: TestApp, slug: string, line: string): Promise<void> {
  const documents = app.strapi.documents(ARTICLE as never) as unknown as Documents;
  const doc = await documents.findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
  await documents.update({
    documentId: doc.documentId,
    locale: 'en',
    data: { body: `${doc.body}\n\n${line}` },
  });
  await documents.publish({ documentId: doc.documentId, locale: 'en' });
}

/**
 * Issue 9, storage hygiene: the changelog keeps what its retention says — every entry younger
 * than `changelogRetention.days`, and of older ones each served item's latest `keepPerItem` —
 * and the history of an item no longer served goes whole.
 */
describe.each(testDatabases())('changelog retention on %s', (client) => {
  let app: TestApp;
  const builder = () => app.strapi.plugin('sitemap-ai').service('snapshot-builder');
  const documents = () => app.strapi.documents(ARTICLE as never) as unknown as Documents;
  const rows = async (where: object = {}) =>
    (await app.strapi.db.query(CHANGELOG).findMany({ where, orderBy: { id: 'asc' } })) as {
      id: number;
      item_id: string;
      version: string;
    }[];

  async function edit(slug: string, n: number): Promise<void> {
    await publishEdit(app, slug, `Edit number ${n}.`);
    await builder().rebuild({ trigger: 'test' });
  }

  beforeAll(async () => {
    // Everything is "old" (0 days) and each item keeps its latest 2; collected on demand only.
    app = await bootPlayground(client, {
      env: {
        SITEMAP_AI_CHANGELOG_DAYS: '0',
        SITEMAP_AI_CHANGELOG_KEEP: '2',
        SITEMAP_AI_CHANGELOG_COLLECT_MINUTES: '1440',
      },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('keeps the latest entries of each served item and the whole history of nothing that is gone', async () => {
    // Given a page edited four times (five entries: added + four edits) and a page taken down
    const page = 'article:geo-index:en';
    for (let n = 1; n <= 4; n += 1) await edit('geo-index', n);
    expect((await rows({ item_id: page })).map((r) => r.version)).toEqual([
      'v1.0',
      'v2.0',
      'v3.0',
      'v4.0',
      'v5.0',
    ]);
    const gone = await documents().findFirst({
      filters: { slug: 'tdm-licensing' },
      locale: 'en',
      status: 'draft',
    });
    await documents().unpublish({ documentId: gone.documentId, locale: 'en' });
    await builder().rebuild({ trigger: 'test' });
    expect(
      (await rows({ item_id: { $startsWith: 'article:tdm-licensing:en' } })).length,
    ).toBeGreaterThan(0);
    const total = (await rows()).length;
    const removedBefore = Number(
      await app.strapi.db
        .query('plugin::sitemap-ai.fragment-state')
        .count({ where: { removed: true } }),
    );
    expect(removedBefore).toBeGreaterThan(0);

    // When the changelog is collected
    const deleted = (await builder().collectChangelog()) as number;

    // Then each served item keeps its latest two, the page taken down keeps nothing
    const after = await rows();
    expect(deleted).toBe(total - after.length + removedBefore);
    expect((await rows({ item_id: page })).map((r) => r.version)).toEqual(['v4.0', 'v5.0']);
    expect(await rows({ item_id: { $startsWith: 'article:tdm-licensing:en' } })).toEqual([]);
    const removedStates = await app.strapi.db
      .query('plugin::sitemap-ai.fragment-state')
      .count({ where: { item_id: { $startsWith: 'article:tdm-licensing:en' } } });
    expect(Number(removedStates)).toBe(0);
    const perItem = new Map<string, number>();
    for (const row of after) perItem.set(row.item_id, (perItem.get(row.item_id) ?? 0) + 1);
    expect(Math.max(...perItem.values())).toBeLessThanOrEqual(2);

    // And the public changelog serves what is kept, newest first
    const served = await app.http.get(`${API}/fragments/${page}/changelog`).expect(200);
    expect(served.body.entries.map((c: { version: string }) => c.version)).toEqual([
      'v5.0',
      'v4.0',
    ]);

    // And collecting again finds nothing more
    expect(await builder().collectChangelog()).toBe(0);
  });

  it('never collects the state of a removal still waiting for its build', async () => {
    // Given a page taken down whose removal no build has published yet …
    const doc = await documents().findFirst({
      filters: { slug: 'geo-index' },
      locale: 'en',
      status: 'draft',
    });
    await documents().unpublish({ documentId: doc.documentId, locale: 'en' });
    await app.strapi.plugin('sitemap-ai').service('tracker').flush();
    const waiting = await pendingStates(app.strapi, doc.documentId);
    expect(waiting.length).toBeGreaterThan(0);
    const served = () =>
      crawl(app.http).then(({ items }) =>
        items.filter((item) => item.id.startsWith('article:geo-index:en')),
      );
    expect((await served()).length).toBeGreaterThan(0);

    // When the changelog and removed states are collected (everything is old here)
    await builder().collectChangelog();

    // Then its removed states still wait, and the next build takes the page down
    expect(await pendingStates(app.strapi, doc.documentId)).toEqual(waiting);
    expect((await builder().rebuild({ trigger: 'test' })).skipped).toBe(false);
    expect(await served()).toEqual([]);
    expect(await pendingStates(app.strapi, doc.documentId)).toEqual([]);
  });

  it("collects the 'added' entries states stand for by the same rules as rows", async () => {
    // Given a site's first build (the plugin's rows gone, the content kept) …
    await wipePluginRows(app.strapi);
    await builder().rebuild({ trigger: 'test' });
    // … two served items whose states stand for their "added" entry, one of which also has as
    // many rows as an item keeps (written here as an older release would)
    const states = (await app.strapi.db.query('plugin::sitemap-ai.fragment-state').findMany({
      where: { added_at: { $notNull: true }, removed: false },
      select: ['item_id'],
      orderBy: { item_id: 'asc' },
      limit: 2,
    })) as { item_id: string }[];
    expect(states).toHaveLength(2);
    const [crowded, alone] = states.map((state) => state.item_id) as [string, string];
    const history = async (id: string) =>
      (
        (await app.http.get(`${API}/fragments/${id}/changelog`).expect(200)).body.entries as {
          version: string;
          kind: string;
        }[]
      ).map((entry) => `${entry.version} ${entry.kind}`);
    expect(await history(alone)).toEqual(['v1.0 added']);
    for (const version of ['v1.1', 'v1.2'])
      await app.strapi.db.query(CHANGELOG).create({
        data: {
          item_id: crowded,
          at: new Date().toISOString(),
          version,
          kind: 'metadata',
          desc: 'x',
        },
      });
    expect(await history(crowded)).toEqual(['v1.2 metadata', 'v1.1 metadata', 'v1.0 added']);

    // When the changelog is collected (everything is old here, and each item keeps 2)
    const deleted = (await builder().collectChangelog()) as number;

    // Then the crowded item's entry went with what is beyond its latest two; the other's stays
    expect(deleted).toBe(1);
    expect(await history(crowded)).toEqual(['v1.2 metadata', 'v1.1 metadata']);
    expect(await history(alone)).toEqual(['v1.0 added']);
  });
});

/**
 * A site moved without the plugin's own tables: `strapi transfer` and `strapi export` carry content
 * types only, so the snapshots arrive and the states, versions, changelog and texts do not.
 */
describe.each(testDatabases())('a site moved without the plugin tables on %s', (client) => {
  let app: TestApp;

  afterAll(async () => {
    await app?.close();
  });

  it('builds the manifest again at the next start instead of serving a snapshot with no items', async () => {
    app = await bootPlayground(client);
    const ids = async () => (await crawl(app.http)).items.map((item) => item.id).sort();
    const served = await ids();
    expect(served.length).toBeGreaterThan(0);
    // Given the database as an import into a new app leaves it: snapshots, none of their items
    for (const table of [
      'sitemap_ai_fragment_states',
      'sitemap_ai_pending_states',
      'sitemap_ai_item_versions',
      'sitemap_ai_changelog',
      'sitemap_ai_source_hashes',
      'sitemap_ai_texts',
    ])
      await app.strapi.db.connection(table).delete();

    // When Strapi starts on it
    const { database } = app;
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, { database });

    // Then every item is served again, each with its content
    expect(await ids()).toEqual(served);
    const page = (await crawl(app.http)).items.find((item) => item.id === 'article:geo-index:en')!;
    const content = await app.http.get(pathOf(page.content_url)).expect(200);
    expect(sha256(content.text)).toBe(page.checksum);
  });
});

/**
 * Issue 8, storage proportional to the content: an item's data and canonical text are stored once
 * per distinct value (README "Storage") and referenced by key from its tracked state and its
 * versions; hygiene deletes the texts nothing references, never one a retained version needs; rows
 * written before texts were stored by key are served as they are.
 */
describe.each(testDatabases())('stored texts on %s', (client) => {
  let app: TestApp;
  const builder = () => app.strapi.plugin('sitemap-ai').service('snapshot-builder');
  const knex = () => app.strapi.db.connection;
  const table = (uid: string) => app.strapi.db.metadata.get(uid as never).tableName;
  const STATES = 'plugin::sitemap-ai.fragment-state';
  const VERSIONS = 'plugin::sitemap-ai.item-version';
  const TEXTS = 'plugin::sitemap-ai.text';
  const OLD_TEXTS = 'plugin::sitemap-ai.blob';
  const PENDING = 'plugin::sitemap-ai.pending-state';
  const SOURCE_HASHES = 'plugin::sitemap-ai.source-hash';
  /** The plugin-store key that says the pending marks were moved (state-repository.ts). */
  const MOVED = 'pending-marks-moved';
  const sortById = <T extends { item_id: string }>(rows: T[]) =>
    [...rows].sort((a, b) => a.item_id.localeCompare(b.item_id));

  /** Every key states and versions reference, and every key stored. */
  async function keys(): Promise<{ referenced: Set<string>; stored: Set<string> }> {
    const referenced = new Set<string>();
    for (const uid of [STATES, VERSIONS])
      for (const row of (await knex()(table(uid)).select('data_ref', 'content_ref')) as {
        data_ref: string | null;
        content_ref: string | null;
      }[])
        for (const key of [row.data_ref, row.content_ref]) if (key) referenced.add(key);
    const stored = new Set<string>();
    for (const uid of [TEXTS, OLD_TEXTS])
      for (const row of (await knex()(table(uid)).select('key')) as { key: string }[])
        stored.add(row.key);
    return { referenced, stored };
  }

  beforeAll(async () => {
    // Only the newest snapshot is retained, so a superseded version is collected at the next build.
    app = await bootPlayground(client, {
      env: { SITEMAP_AI_SNAPSHOT_RETENTION: '1', SITEMAP_AI_SNAPSHOT_RETENTION_HOURS: '0' },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('shares one stored text between a state and its version, and collects only what nothing references', async () => {
    // Given a published site: each open version references the very texts of its state
    const page = 'article:geo-index:en';
    const shared = async () => {
      const state = (await app.strapi.db.query(STATES).findOne({ where: { item_id: page } })) as {
        data_ref: string;
        content_ref: string;
      };
      const version = (await app.strapi.db
        .query(VERSIONS)
        .findOne({ where: { item_id: page }, orderBy: { seq_from: 'desc' } })) as {
        data_ref: string;
        content_ref: string;
      };
      return { state, version };
    };
    const before = await shared();
    expect(before.version.data_ref).toBe(before.state.data_ref);
    expect(before.version.content_ref).toBe(before.state.content_ref);
    const initial = await keys();
    expect([...initial.referenced].filter((key) => !initial.stored.has(key))).toEqual([]);

    // When a page is published twice before one build (its first edit is never served) …
    await publishEdit(app, 'geo-index', 'A first edit, replaced before any build.');
    const intermediate = (await shared()).state;
    await publishEdit(app, 'geo-index', 'A second edit, the one that is built.');
    await builder().rebuild({ trigger: 'test' });
    // … and the build after that collects the version it replaced
    await builder().rebuild({ trigger: 'test', full: true });
    const after = await shared();
    expect(after.version.data_ref).toBe(after.state.data_ref);
    expect(after.version.content_ref).not.toBe(before.version.content_ref);

    // Then texts within the grace period stay; past it, what nothing references goes …
    const stored = (await keys()).stored;
    expect(stored.has(intermediate.content_ref)).toBe(true);
    expect(await builder().collectTexts()).toBe(0);
    const deleted = await builder().collectTexts(0);
    expect(deleted).toBeGreaterThan(0);
    const { referenced, stored: left } = await keys();
    expect(left.has(intermediate.content_ref)).toBe(false);
    expect(left.has(before.version.content_ref)).toBe(false);
    expect(stored.size - left.size).toBe(deleted);
    // … every text a state or a retained version references is still there, and nothing else
    expect([...referenced].filter((key) => !left.has(key))).toEqual([]);
    expect([...left].filter((key) => !referenced.has(key))).toEqual([]);

    // And every item is served with canonical content whose checksum is its own
    const items = (await crawl(app.http)).items;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items.filter((i) => i.id.startsWith(page))) {
      const content = await app.http.get(pathOf(item.content_url)).expect(200);
      expect(sha256(content.text)).toBe(item.checksum);
    }
    expect(await builder().collectTexts(0)).toBe(0);
  });

  type Changes<T> = Record<'added' | 'updated' | 'removed', T[]>;
  /** One table's entry in Strapi's schema diff. */
  type TableDiff = {
    name: string;
    columns: Changes<{ name: string; object?: { type: string } }>;
    indexes: Changes<unknown>;
    foreignKeys: Changes<unknown>;
  };
  type SchemaTable = { name: string; columns: object[]; indexes: object[]; foreignKeys: object[] };
  /** Strapi's schema provider, as far as these tests use it. */
  type SchemaProvider = {
    schema: unknown;
    schemaStorage: {
      read(): Promise<{ schema: { tables: SchemaTable[] } } | null>;
      add(schema: unknown): Promise<void>;
    };
    schemaDiff: {
      diff(
        ctx: object,
      ): Promise<{ diff: { tables: { added: TableDiff[]; updated: TableDiff[] } } }>;
    };
    syncSchema(): Promise<string>;
  };
  const schemaProvider = () => app.strapi.db.schema as unknown as SchemaProvider;
  /** The plugin's plain models' tables (repositories/models.ts). */
  const PLAIN_TABLES = [
    'sitemap_ai_fragment_states',
    'sitemap_ai_item_versions',
    'sitemap_ai_changelog',
    'sitemap_ai_source_hashes',
    'sitemap_ai_pending_states',
    'sitemap_ai_texts',
  ];

  /**
   * The plain models' tables that a sync of Strapi's schema would change now. On MySQL Strapi
   * reads every JSON column back as another type than its schema names (it does so on each table
   * with one, content types included): that is Strapi's, not ours, and left out.
   */
  async function tablesASyncWouldChange(): Promise<string[]> {
    const schema = schemaProvider();
    const { diff } = await schema.schemaDiff.diff({
      previousSchema: (await schema.schemaStorage.read())?.schema,
      databaseSchema: await app.strapi.db.dialect.schemaInspector.getSchema(),
      userSchema: schema.schema,
    });
    const strapisOwn = (column: { object?: { type: string } }) =>
      client === 'mysql' && column.object?.type === 'jsonb';
    const changes = (t: TableDiff) =>
      [
        ...t.columns.added,
        ...t.columns.removed,
        ...t.columns.updated.filter((column) => !strapisOwn(column)),
        ...t.indexes.added,
        ...t.indexes.updated,
        ...t.indexes.removed,
        ...t.foreignKeys.added,
        ...t.foreignKeys.updated,
        ...t.foreignKeys.removed,
      ].length;
    return [
      ...diff.tables.added.map((t) => t.name),
      ...diff.tables.updated.filter((t) => changes(t) > 0).map((t) => t.name),
    ].filter((name) => PLAIN_TABLES.includes(name));
  }

  it("keeps the plain models' tables as Strapi's schema sync expects them (no change found on the next sync)", async () => {
    // Strapi compares the database with its models whenever the app's schema changes: a column
    // read back as another type would be altered (on SQLite: the table copied) at each such boot.
    expect(await tablesASyncWouldChange()).toEqual([]);
  });

  it('drops the content-type columns, keys and indexes an earlier release left on these tables, keeping every row', async () => {
    // Given the tables as a release that registered them as content types left them: a document
    // id, a locale, publish and author columns (keys to the admin users), and their indexes …
    const db = knex();
    // (texts and pending states were never content types)
    const upgraded = PLAIN_TABLES.filter(
      (name) => name !== 'sitemap_ai_texts' && name !== 'sitemap_ai_pending_states',
    );
    const rowsBefore = new Map<string, unknown[]>();
    const columnsBefore = new Map<string, string[]>();
    for (const name of upgraded) {
      columnsBefore.set(name, Object.keys(await db(name).columnInfo()));
      rowsBefore.set(name, await db(name).select(columnsBefore.get(name)!).orderBy('id'));
      expect(rowsBefore.get(name)!.length).toBeGreaterThan(0);
      await db.schema.alterTable(name, (t) => {
        t.string('document_id');
        t.string('locale');
        t.datetime('created_at');
        t.datetime('updated_at');
        t.datetime('published_at');
        t.integer('created_by_id').unsigned();
        t.integer('updated_by_id').unsigned();
        t.index(['document_id', 'locale', 'published_at'], `${name}_documents_idx`);
        for (const author of ['created_by_id', 'updated_by_id']) {
          t.index([author], `${name}_${author}_fk`);
          t.foreign(author, `${name}_${author}_fk`)
            .references('id')
            .inTable('admin_users')
            .onDelete('SET NULL');
        }
      });
      await db(name).update({ document_id: 'from-an-earlier-release', locale: 'en' });
    }
    // … and Strapi's record of the schema it last synced naming them.
    const schema = schemaProvider();
    const stored = (await schema.schemaStorage.read())!.schema;
    const previous = structuredClone(stored);
    for (const entry of previous.tables.filter((t) => upgraded.includes(t.name))) {
      for (const column of ['document_id', 'locale', 'created_at', 'updated_at', 'published_at'])
        entry.columns.push({ name: column, type: 'string', args: [], notNullable: false });
      entry.indexes.push({
        name: `${entry.name}_documents_idx`,
        columns: ['document_id', 'locale', 'published_at'],
      });
      for (const author of ['created_by_id', 'updated_by_id']) {
        entry.columns.push({ name: author, type: 'integer', args: [], unsigned: true });
        entry.indexes.push({ name: `${entry.name}_${author}_fk`, columns: [author] });
        entry.foreignKeys.push({
          name: `${entry.name}_${author}_fk`,
          columns: [author],
          referencedTable: 'admin_users',
          referencedColumns: ['id'],
          onDelete: 'SET NULL',
        });
      }
    }
    await schema.schemaStorage.add(previous);
    expect((await tablesASyncWouldChange()).sort()).toEqual([...upgraded].sort());

    // When Strapi syncs its schema at the start after the upgrade
    expect(await schema.syncSchema()).toBe('CHANGED');

    // Then the columns are gone, every row is there with every value it had, and nothing is left to change
    for (const name of upgraded) {
      expect(Object.keys(await db(name).columnInfo()).sort()).toEqual(
        [...columnsBefore.get(name)!].sort(),
      );
      expect(await db(name).select(columnsBefore.get(name)!).orderBy('id')).toEqual(
        rowsBefore.get(name),
      );
    }
    expect(await tablesASyncWouldChange()).toEqual([]);
    // … and the plugin works on them: an edit is tracked, built and served.
    const fragment = `${API}/fragments/article:geo-index:en`;
    const served = (await app.http.get(fragment).expect(200)).body.item;
    await publishEdit(app, 'geo-index', 'An edit after the upgrade.');
    expect((await builder().rebuild({ trigger: 'test' })).skipped).toBe(false);
    const now = (await app.http.get(fragment).expect(200)).body.item;
    expect(now.version).not.toBe(served.version);
    expect(now.checksum).not.toBe(served.checksum);
    expect(sha256((await app.http.get(pathOf(now.content_url)).expect(200)).text)).toBe(
      now.checksum,
    );
  });

  it('moves the pending marks an earlier release left on the states to their own table once, and the next build publishes them', async () => {
    const fragment = `${API}/fragments/article:geo-index:en`;
    const served = (await app.http.get(fragment).expect(200)).body.item;
    // Given an edit waiting for a build, marked as an earlier release marked it: a flag on the state
    await publishEdit(app, 'geo-index', 'An edit an earlier release tracked.');
    await app.strapi.plugin('sitemap-ai').service('tracker').flush();
    const waiting = await pendingStates(app.strapi);
    expect(waiting.length).toBeGreaterThan(0);
    const ids = waiting.map((state) => state.item_id);
    const flagged = async () =>
      Number(
        (
          (await knex()(table(STATES)).where('pending', true).count({ n: '*' })) as { n: unknown }[]
        )[0]!.n,
      );
    await knex()(table(STATES)).whereIn('item_id', ids).update({ pending: true });
    await knex()(table(PENDING)).delete();
    await app.strapi.store({ type: 'plugin', name: 'sitemap-ai' }).delete({ key: MOVED });
    // (one of them already moved by another instance starting at the same moment)
    await knex()(table(PENDING)).insert({
      item_id: waiting[0]!.item_id,
      revision: waiting[0]!.revision,
    });

    // When the plugin starts on that database
    await repositories(app.strapi).states.movePendingMarks();

    // Then the same states wait at the same revisions, and no state carries the old flag …
    expect(sortById(await pendingStates(app.strapi))).toEqual(sortById(waiting));
    expect(await flagged()).toBe(0);
    // … a second start moves nothing again (a flag set by hand now stays as it is) …
    await knex()(table(STATES)).whereIn('item_id', ids).update({ pending: true });
    await repositories(app.strapi).states.movePendingMarks();
    expect(await flagged()).toBe(ids.length);
    expect(sortById(await pendingStates(app.strapi))).toEqual(sortById(waiting));
    await knex()(table(STATES)).whereIn('item_id', ids).update({ pending: false });
    // … and the next build publishes the edit and leaves nothing waiting.
    expect((await builder().rebuild({ trigger: 'test' })).skipped).toBe(false);
    const now = (await app.http.get(fragment).expect(200)).body.item;
    expect(now.version).not.toBe(served.version);
    expect(await pendingStates(app.strapi)).toEqual([]);
  });

  it('reads the version columns an earlier release wrote (public checksums, whole-SHA-256 metadata hashes, first histories written out) and sees no change in them', async () => {
    const publicForm = (stored: string) =>
      `sha256:${Buffer.from(stored, 'base64url').toString('hex')}`;
    const history = `${API}/fragments/article:geo-index:en/changelog`;
    const logBefore = (await app.http.get(history).expect(200)).body;
    // Given states, versions and changelog entries as the release before wrote them …
    const db = knex();
    for (const row of (await db(table(CHANGELOG)).select(
      'id',
      'checksum_before',
      'checksum_after',
    )) as {
      id: number;
      checksum_before: string | null;
      checksum_after: string | null;
    }[]) {
      expect(row.checksum_after).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await db(table(CHANGELOG))
        .where('id', row.id)
        .update({
          checksum_before: row.checksum_before && publicForm(row.checksum_before),
          checksum_after: row.checksum_after && publicForm(row.checksum_after),
        });
    }
    for (const uid of [STATES, VERSIONS]) {
      const rows = (await db(table(uid)).select(
        'id',
        'checksum',
        'meta_hash',
        'modified_at',
        'history',
      )) as {
        id: number;
        checksum: string;
        meta_hash: string;
        modified_at: string;
        history: unknown;
      }[];
      expect(rows.some((row) => row.history === null)).toBe(true);
      for (const row of rows)
        await db(table(uid))
          .where('id', row.id)
          .update({
            checksum: publicForm(row.checksum),
            meta_hash:
              row.meta_hash.length === 32 ? `${row.meta_hash}${'0f'.repeat(16)}` : row.meta_hash,
            ...(row.history === null ? { history: JSON.stringify([row.modified_at]) } : {}),
          });
    }
    const revisions = async () =>
      Object.fromEntries(
        (
          (await db(table(STATES)).select('item_id', 'revision')) as {
            item_id: string;
            revision: number;
          }[]
        ).map((row) => [row.item_id, Number(row.revision)]),
      );
    const before = await revisions();
    const logged = async () =>
      Number(((await db(table(CHANGELOG)).count({ n: '*' })) as { n: unknown }[])[0]!.n);
    const entries = await logged();
    const served = (await crawl(app.http)).items;

    // When every document is compared again with its states (nothing remembered of earlier comparisons)
    await db(table(SOURCE_HASHES)).delete();
    const result = await builder().rebuild({ trigger: 'test', full: true });
    expect(result.failures).toEqual([]);

    // Then no state was rewritten, nothing was logged and every item is served as it was
    expect(await revisions()).toEqual(before);
    expect(await logged()).toBe(entries);
    expect(await pendingStates(app.strapi)).toEqual([]);
    expect((await crawl(app.http)).items).toEqual(served);
    expect((await app.http.get(history).expect(200)).body).toEqual(logBefore);
  });

  it('stores each text once, renews a stale touch when a text is stored again and leaves a fresh one', async () => {
    const blobs = createBlobRepository({ strapi: app.strapi });
    const texts = Array.from({ length: 1_200 }, (_, i) =>
      i % 3 === 0 ? `plain ${i}` : `{"id":"article:put-${i}:en","title":"${'x'.repeat(i % 50)}"}`,
    );
    const rowsOf = async (keys: readonly string[]) =>
      new Map(
        (
          (await knex()(table(TEXTS)).whereIn('key', [...new Set(keys)])) as {
            key: string;
            touched_at: number | string;
          }[]
        ).map((row) => [row.key, Number(row.touched_at)]),
      );
    // Given 1,200 texts stored (more than one statement's worth), one of them twice in the call
    const keys = await blobs.put([...texts, texts[7]!]);
    expect(keys).toHaveLength(1_201);
    expect(keys[1_200]).toBe(keys[7]);
    expect((await rowsOf(keys)).size).toBe(1_200);
    expect([...(await blobs.texts(keys))].length).toBe(1_200);
    expect((await blobs.texts([keys[5]!])).get(keys[5]!)).toBe(texts[5]);
    // and two of them touched long ago, two a moment ago
    const long = [keys[0]!, keys[1_000]!];
    const recent = [keys[1]!, keys[999]!];
    await knex()(table(TEXTS)).whereIn('key', long).update({ touched_at: 1 });
    const moment = Date.now() - 1_000;
    await knex()(table(TEXTS)).whereIn('key', recent).update({ touched_at: moment });
    // When all of them are stored again
    const again = await blobs.put(texts);
    // Then no row is added, the stale touches are renewed and the fresh ones left as they were
    expect(again).toEqual(keys.slice(0, 1_200));
    const rows = await rowsOf(keys);
    expect(rows.size).toBe(1_200);
    for (const key of long) expect(rows.get(key)).toBeGreaterThan(moment);
    for (const key of recent) expect(rows.get(key)).toBe(moment);
    await knex()(table(TEXTS))
      .whereIn('key', [...new Set(keys)])
      .delete();
  });

  it('stores texts as bytes, serves those an earlier release stored as text, and sweeps both', async () => {
    const id = 'article:fragment-permalinks:en';
    const served = await app.http.get(`${API}/fragments/${id}`).expect(200);
    const content = await app.http.get(`${API}/fragments/${id}/content`).expect(200);
    const state = (await app.strapi.db.query(STATES).findOne({ where: { item_id: id } })) as {
      data_ref: string;
      content_ref: string;
    };
    // Given the page's texts as an earlier release stored them: text rows of the old table
    const moved = [state.data_ref, state.content_ref];
    const rows = (await knex()(table(TEXTS)).whereIn('key', moved)) as {
      key: string;
      body: Buffer;
      touched_at: number | string;
    }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Buffer.isBuffer(row.body)).toBe(true);
    await knex()(table(TEXTS)).whereIn('key', moved).delete();
    await knex()(table(OLD_TEXTS)).insert(
      rows.map((row) => ({
        key: row.key,
        body:
          row.body.subarray(0, 1).toString() === 'z'
            ? `z${row.body.subarray(1).toString('base64')}`
            : row.body.toString('utf8'),
        touched_at: Number(row.touched_at),
      })),
    );
    // Then the page, its content and its ETag are what they were
    const again = await app.http.get(`${API}/fragments/${id}`).expect(200);
    expect(again.body).toEqual(served.body);
    expect(again.headers.etag).toBe(served.headers.etag);
    expect((await app.http.get(`${API}/fragments/${id}/content`).expect(200)).text).toBe(
      content.text,
    );
    // and a sweep keeps them while they are referenced …
    await builder().collectTexts(0);
    const kept = (await knex()(table(OLD_TEXTS)).whereIn('key', moved)) as unknown[];
    expect(kept).toHaveLength(2);
    // … and removes them from the old table once nothing does
    await publishEdit(app, 'fragment-permalinks', 'An edit that replaces the old texts.');
    await builder().rebuild({ trigger: 'test' });
    await builder().rebuild({ trigger: 'test', full: true });
    await builder().collectTexts(0);
    const { referenced, stored } = await keys();
    const left = (await knex()(table(OLD_TEXTS)).whereIn('key', moved)) as unknown[];
    expect(left.length).toBe(moved.filter((key) => referenced.has(key)).length);
    expect(left.length).toBeLessThan(2);
    expect([...referenced].filter((key) => !stored.has(key))).toEqual([]);
  });

  it('serves a version written before texts were stored by key exactly as before', async () => {
    const id = 'article:fragment-permalinks:en:intro';
    const served = await app.http.get(`${API}/fragments/${id}`).expect(200);
    const content = await app.http.get(`${API}/fragments/${id}/content`).expect(200);
    // Given the open version rewritten the way earlier releases stored it: data and text inline
    const row = (await app.strapi.db
      .query(VERSIONS)
      .findOne({ where: { item_id: id }, orderBy: { seq_from: 'desc' } })) as {
      id: number;
      data_ref: string;
      content_ref: string;
    };
    const texts = await createBlobRepository({ strapi: app.strapi }).texts([
      row.data_ref,
      row.content_ref,
    ]);
    await app.strapi.db.query(VERSIONS).update({
      where: { id: row.id },
      data: {
        data: JSON.parse(texts.get(row.data_ref)!),
        content: texts.get(row.content_ref),
        data_ref: null,
        content_ref: null,
      },
    });
    // Then the item, its content and its ETag are what they were
    const again = await app.http.get(`${API}/fragments/${id}`).expect(200);
    expect(again.body).toEqual(served.body);
    expect(again.headers.etag).toBe(served.headers.etag);
    const text = await app.http.get(`${API}/fragments/${id}/content`).expect(200);
    expect(text.text).toBe(content.text);
  });
});

/**
 * Issue 9: the access log flushes on shutdown. `record` only queues; what is queued when Strapi
 * stops is written by `destroy`, so a clean stop loses nothing.
 */
describe.each(testDatabases())('access log at shutdown on %s', (client) => {
  let app: TestApp;

  afterAll(async () => {
    await app?.close();
  });

  it('writes every queued entry before Strapi stops', async () => {
    app = await bootPlayground(client, { env: { PLAYGROUND_SEED: 'false' } });
    const entries = () =>
      app.strapi.db.query('plugin::sitemap-ai.access-log-entry').count({}) as Promise<number>;
    const before = Number(await entries());
    const log = app.strapi.plugin('sitemap-ai').service('access-log');
    const N = 3_000;
    for (let i = 0; i < N; i += 1)
      log.record({
        at: new Date().toISOString(),
        agent: 'GPTBot',
        route: 'manifest',
        itemId: null,
        status: 200,
        ip: `198.51.100.${i % 250}`,
        validators: { versions: [], checksums: [] },
      });
    // Stop at once, with most of them still queued
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, {
      database: app.database,
      env: { PLAYGROUND_SEED: 'false' },
    });
    expect(Number(await entries()) - before).toBe(N);
  });
});
