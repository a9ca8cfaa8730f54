import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, type TestApp } from '../helpers/strapi';
import { API } from '../helpers/manifest';
import { accessLogOf } from '../helpers/stored';

const ARTICLE = 'api::article.article';

/**
 * A first manifest page this instance holds is sent ahead of the router from the newest snapshot
 * it has seen (middlewares/revalidation.ts, docs/protocol.md §6): the same bytes and headers as the
 * route's, with no read of the snapshot or its items, and a snapshot it builds replaces it at once.
 */
describe('a first manifest page held by the instance', () => {
  let app: TestApp;
  type Doc = { documentId: string; body: string };
  const articles = () =>
    app.strapi.documents(ARTICLE as never) as unknown as {
      findFirst(params: object): Promise<Doc | null>;
      update(params: object): Promise<Doc>;
      publish(params: object): Promise<unknown>;
    };
  const accessLog = () => accessLogOf(app.strapi);

  /** The SQL of the plugin's snapshot and item tables that `work` ran. */
  async function snapshotReads(work: () => Promise<void>): Promise<string[]> {
    const knex = app.strapi.db.connection;
    const sql: string[] = [];
    const onQuery = (query: { sql: string }) => sql.push(query.sql);
    knex.on('query', onQuery);
    try {
      await work();
    } finally {
      knex.off('query', onQuery);
    }
    return sql.filter((text) =>
      /sitemap_ai_(snapshots|item_versions|fragment_states|texts)/.test(text),
    );
  }

  /** An answer's body as bytes (not parsed as JSON by the client). */
  const raw = (path: string, query: Record<string, string>, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>(
      (resolve, reject) => {
        const request = app.http.get(path).query(query);
        for (const [name, value] of Object.entries(headers)) request.set(name, value);
        request
          .buffer(true)
          .parse((res, done) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => done(null, Buffer.concat(chunks)));
          })
          .end((error, res) =>
            error
              ? reject(error)
              : resolve({ status: res.status, headers: res.headers, bytes: res.body as Buffer }),
          );
      },
    );

  beforeAll(async () => {
    app = await bootPlayground('sqlite', { env: { SITEMAP_AI_RATE_LIMIT_MAX: '100' } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is sent again without reading the snapshot, plain and gzip-encoded, logged once a request', async () => {
    await accessLog().flush();
    const logged = (await accessLog().list()).length;
    const query = { limit: '4' };
    // The first reads go through the route, which reads the snapshot and caches the bytes.
    const first = await raw(`${API}/manifest`, query);
    const firstGzip = await raw(`${API}/manifest`, query, { 'Accept-Encoding': 'gzip' });
    expect(first.status).toBe(200);
    expect(firstGzip.headers['content-encoding']).toBe('gzip');

    const firstXml = await raw(`${API}/manifest.xml`, query);
    expect(firstXml.headers['content-type']).toMatch(/^application\/xml/);

    let again!: Awaited<ReturnType<typeof raw>>;
    let againGzip!: Awaited<ReturnType<typeof raw>>;
    let againXml!: Awaited<ReturnType<typeof raw>>;
    const reads = await snapshotReads(async () => {
      again = await raw(`${API}/manifest`, query);
      againGzip = await raw(`${API}/manifest`, query, { 'Accept-Encoding': 'gzip' });
      againXml = await raw(`${API}/manifest.xml`, query);
    });
    expect(reads).toEqual([]);
    expect(againXml.bytes.equals(firstXml.bytes)).toBe(true);
    expect(againXml.headers.etag).toBe(firstXml.headers.etag);
    expect(againXml.headers['content-type']).toBe(firstXml.headers['content-type']);
    expect(again.status).toBe(200);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    for (const header of [
      'etag',
      'last-modified',
      'cache-control',
      'content-type',
      'content-length',
      'vary',
      'content-usage',
      'x-frame-options',
      'ratelimit-limit',
    ])
      expect([header, again.headers[header]]).toEqual([header, first.headers[header]]);
    expect(Number(again.headers['ratelimit-remaining'])).toBe(
      Number(first.headers['ratelimit-remaining']) - 3,
    );
    expect(againGzip.headers['content-encoding']).toBe('gzip');
    expect(againGzip.headers.etag).toBe(firstGzip.headers.etag);
    // (the test client decodes a gzip body)
    expect(againGzip.bytes.equals(first.bytes)).toBe(true);

    // Its revalidation, and a bad parameter, are answered ahead of the router as well.
    const revalidated = await raw(`${API}/manifest`, query, {
      'If-None-Match': String(first.headers.etag),
    });
    expect(revalidated.status).toBe(304);
    const bad = await raw(`${API}/manifest`, { limit: 'many' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.bytes.toString('utf8')).error).toMatchObject({ status: 400 });

    // A page with a token, or not cached, is the route's and reads the snapshot.
    const token = JSON.parse(first.bytes.toString('utf8')).next_page_token as string;
    expect(token).toBeTruthy();
    const next = await snapshotReads(async () => {
      expect((await raw(`${API}/manifest`, { ...query, page_token: token })).status).toBe(200);
    });
    expect(next.length).toBeGreaterThan(0);

    await accessLog().flush();
    const entries = (await accessLog().list()).slice(logged);
    expect(entries.map((entry) => [entry.route, entry.status])).toEqual([
      ['manifest', 200],
      ['manifest', 200],
      ['manifest', 200],
      ['manifest', 200],
      ['manifest', 200],
      ['manifest', 200],
      ['manifest', 304],
      ['manifest', 400],
      ['manifest', 200],
    ]);
  });

  it("is the newest snapshot's at once after this instance builds one", async () => {
    const query = { limit: '4' };
    const before = await raw(`${API}/manifest`, query);
    await raw(`${API}/manifest`, query);
    const doc = await articles().findFirst({ locale: 'en', status: 'draft' });
    if (!doc) throw new Error('no seed article');
    await articles().update({
      documentId: doc.documentId,
      locale: 'en',
      data: { body: `${doc.body}\n\nA paragraph added to make a new snapshot.` },
    });
    await articles().publish({ documentId: doc.documentId, locale: 'en' });
    await app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });

    const after = await raw(`${API}/manifest`, query);
    const [was, now] = [before, after].map((answer) => JSON.parse(answer.bytes.toString('utf8')));
    expect(Number(now.snapshot.id)).toBeGreaterThan(Number(was.snapshot.id));
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // The old snapshot's ETag no longer validates.
    const stale = await raw(`${API}/manifest`, query, {
      'If-None-Match': String(before.headers.etag),
    });
    expect(stale.status).toBe(200);
    expect(stale.headers.etag).toBe(after.headers.etag);
  });
});
