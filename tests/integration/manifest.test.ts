import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';
import { API, crawl, pageValidator, pathOf, sha256 } from '../helpers/manifest';
import type { ManifestItem, ManifestPage } from '../../shared/contracts/manifest';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const MARKERS = require('../../playground/src/seed-data/markers.js') as Record<string, string>;

describe.each(testDatabases())('manifest served from a seeded playground on %s', (client) => {
  let app: TestApp;
  let items: ManifestItem[];
  let pages: ManifestPage[];

  beforeAll(async () => {
    app = await bootPlayground(client);
    ({ items, pages } = await crawl(app.http, { limit: '25' }));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves every item of the snapshot once, in pages of the asked size, all on one snapshot', async () => {
    const snapshot = await app.strapi.plugin('sitemap-ai').service('manifest').current();
    expect(items.length).toBe(snapshot.itemCount);
    expect(items.length).toBeGreaterThan(100);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(pages.slice(0, -1).every((p) => p.items.length === 25)).toBe(true);
    expect(new Set(pages.map((p) => p.snapshot.id))).toEqual(new Set([String(snapshot.seq)]));
    expect(pages[pages.length - 1]!.next_page_token).toBeNull();
  });

  it('emits every item type of docs/protocol.md §1 from Markdown, Blocks and HTML bodies', () => {
    const types = new Set(items.map((i) => i.type));
    expect([...types].sort()).toEqual(['article', 'dataset', 'faq', 'figure', 'section', 'table']);
    expect(items.some((i) => i.id.startsWith('page:') && i.type === 'section')).toBe(true);
    expect(items.some((i) => i.id.startsWith('guide:') && i.type === 'table')).toBe(true);
    expect(items.some((i) => i.id.startsWith('article:') && i.type === 'faq')).toBe(true);
  });

  it('validates every page against the JSON Schema it publishes', async () => {
    const res = await app.http.get(`${API}/schema.json`).expect(200);
    expect(res.headers['content-type']).toContain('application/schema+json');
    const schema = JSON.parse(res.text);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const validate = pageValidator(schema);
    for (const page of pages) {
      const valid = validate(page);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it('gives fragments anchored permalinks and a parent that exists', () => {
    const ids = new Set(items.map((i) => i.id));
    for (const item of items.filter((i) => i.type !== 'article')) {
      expect(item.url).toMatch(/^https:\/\/example\.com\/.+#[a-z0-9-]+$/);
      expect(ids.has(item.parent!)).toBe(true);
    }
  });

  it('links translations to the reference language with alt_of', () => {
    const ids = new Set(items.map((i) => i.id));
    const sk = items.filter((i) => i.lang === 'sk');
    expect(sk.length).toBeGreaterThan(0);
    const skArticles = sk.filter((i) => i.type === 'article');
    expect(skArticles.every((i) => i.alt_of && ids.has(i.alt_of) && i.alt_of.endsWith(':en'))).toBe(
      true,
    );
  });

  it('serves canonical content whose sha256 is the item checksum, for every item', async () => {
    for (const item of items) {
      const res = await app.http
        .get(pathOf(item.content_url))
        .buffer(true)
        .parse((r, done) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (chunk: string) => (text += chunk));
          r.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(sha256(res.body as string)).toBe(item.checksum);
    }
  });

  it('never publishes drafts, private attributes, e-mails, sensitive entries or disabled types', async () => {
    const contents = await Promise.all(
      items.map(async (i) => (await app.http.get(pathOf(i.content_url)).buffer(true)).text),
    );
    const xml = (await app.http.get(`${API}/manifest.xml`).query({ limit: '1000' })).text;
    const everything = JSON.stringify(pages) + contents.join('\n') + xml;
    for (const [name, marker] of Object.entries(MARKERS)) {
      expect(everything.includes(marker), `${name} leaked`).toBe(false);
    }
    expect(items.some((i) => i.id.includes('draft-only'))).toBe(false);
    expect(items.some((i) => i.id.startsWith('internal-memo:') || i.id.startsWith('author:'))).toBe(
      false,
    );
    expect(everything).not.toMatch(/"(documentId|document_id|sitemapAi|internalNotes|email)"/);
    expect(everything).not.toMatch(/\/admin\/|\/content-manager\//);
  });

  it('filters by type and lang, and refuses a token used with other filters', async () => {
    const sections = await crawl(app.http, { type: 'section', limit: '10' });
    expect(sections.items.length).toBe(items.filter((i) => i.type === 'section').length);
    expect(sections.items.every((i) => i.type === 'section')).toBe(true);
    const sk = await crawl(app.http, { lang: 'sk' });
    expect(sk.items.length).toBe(items.filter((i) => i.lang === 'sk').length);
    const first = await app.http
      .get(`${API}/manifest`)
      .query({ type: 'section', limit: '5' })
      .expect(200);
    const res = await app.http
      .get(`${API}/manifest`)
      .query({ type: 'table', page_token: first.body.next_page_token });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/filters/);
  });

  it('answers 304 to If-None-Match on manifest, fragment and content', async () => {
    const item = items.find((i) => i.type === 'section')!;
    for (const path of [
      `${API}/manifest?limit=7`,
      `${API}/fragments/${item.id}`,
      pathOf(item.content_url),
      `${API}/schema.json`,
    ]) {
      const first = await app.http.get(path).expect(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"/);
      expect(
        first.headers['last-modified'] ?? (path.endsWith('schema.json') ? 'n/a' : undefined),
      ).toBeDefined();
      const second = await app.http.get(path).set('If-None-Match', etag);
      expect(second.status).toBe(304);
      const other = await app.http.get(path).set('If-None-Match', '"something-else"');
      expect(other.status).toBe(200);
    }
  });

  it('sends a page gzip-encoded to agents that take gzip, as its own representation', async () => {
    const path = `${API}/manifest?limit=40`;
    const plain = await app.http.get(path).set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    // supertest would inflate the body: read the bytes as sent, from the listening server.
    const server = app.strapi.server.httpServer;
    if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const raw = await new Promise<{ status?: number; headers: IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) =>
        get(
          `http://127.0.0.1:${port}${path}`,
          { headers: { 'Accept-Encoding': 'gzip' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode,
                headers: res.headers,
                body: Buffer.concat(chunks),
              }),
            );
          },
        ).on('error', reject),
    );
    expect(raw.status).toBe(200);
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.headers.vary).toMatch(/Accept-Encoding/i);
    const sent = raw.body;
    expect(sent.length).toBeLessThan(Buffer.byteLength(plain.text) / 3);
    expect(JSON.parse(gunzipSync(sent).toString('utf8'))).toEqual(plain.body);
    // The policy headers go with either encoding.
    expect(plain.headers['content-usage']).toEqual(expect.any(String));
    expect(raw.headers['content-usage']).toBe(plain.headers['content-usage']);
    // One ETag per representation: a client's copy is only current in the encoding it holds.
    expect(raw.headers.etag).not.toBe(plain.headers.etag);
    await app.http
      .get(path)
      .set('Accept-Encoding', 'gzip')
      .set('If-None-Match', raw.headers.etag as string)
      .expect(304);
    await app.http
      .get(path)
      .set('Accept-Encoding', 'identity')
      .set('If-None-Match', raw.headers.etag as string)
      .expect(200);
  });

  it('serves one item by id, and the XML form of a page', async () => {
    const item = items.find((i) => i.type === 'table')!;
    const res = await app.http.get(`${API}/fragments/${item.id}`).expect(200);
    expect(res.body.item).toEqual(item);
    const xml = await app.http.get(`${API}/manifest.xml`).query({ limit: '3' }).expect(200);
    expect(xml.headers['content-type']).toContain('application/xml');
    expect(xml.text).toContain('<manifest xmlns="urn:sitemap-ai:1" spec="sitemap-ai/1">');
    expect((xml.text.match(/<item>/g) ?? []).length).toBe(3);
    expect(xml.text).toMatch(/<next_page_token>[A-Za-z0-9_.-]+<\/next_page_token>/);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['type=chapter', 'type'],
    ['lang=%3Cscript%3E', 'lang'],
    ['page=2', 'page'],
    ['page_token=not-a-token', 'page_token'],
    ['page_token=' + 'A'.repeat(2000), 'page_token'],
  ])('refuses a bad query (%#) with a 400 naming the parameter', async (query, name) => {
    const res = await app.http.get(`${API}/manifest?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe(400);
    expect(res.body.error.message).toContain(`"${name}"`);
  });

  it('refuses a tampered page token and bad or unknown fragment ids', async () => {
    const first = await app.http.get(`${API}/manifest`).query({ limit: '5' }).expect(200);
    const token = first.body.next_page_token as string;
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([1, 1, 'zzz', 'type=&lang=', 'manifest'])).toString(
      'base64url',
    );
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${mac.slice(0, -2)}AA`,
      `${payload}x.${mac}`,
    ]) {
      const res = await app.http.get(`${API}/manifest`).query({ page_token: bad, limit: '5' });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/page_token/);
    }
    expect((await app.http.get(`${API}/fragments/ARTICLE:X`)).status).toBe(400);
    expect((await app.http.get(`${API}/fragments/${'a'.repeat(300)}`)).status).toBe(400);
    const missing = await app.http.get(`${API}/fragments/article:no-such-entry:en`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.name).toBe('ItemNotFoundError');
    expect((await app.http.get(`${API}/fragments/article:no-such-entry:en/content`)).status).toBe(
      404,
    );
  });
});
