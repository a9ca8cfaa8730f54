/**
 * `strapi-plugin-sitemap-ai/client` without a network: a fake site in memory answers the
 * protocol's routes (manifest, delta, content), so retry, 410, ETag and resume logic is driven
 * exactly, request by request.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChecksumMismatchError,
  GoneError,
  HttpError,
  MIRROR_FORMAT,
  SitemapAiClient,
  apiBase,
  checksumOf,
  fileNameForId,
  mirrorIndex,
  parseMirrorState,
  retryAfterMs,
  sitemapParts,
  syncMirror,
  exportSite,
  verifyChecksum,
  verifyWebhook,
  type FetchLike,
  type ManifestItem,
  type SyncBatch,
} from '../../client/src/client';
import { signPayload } from '../../server/src/core/webhooks';

const API = 'https://cms.test/api/sitemap-ai';
const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function makeItem(id: string, text: string, extra: Partial<ManifestItem> = {}): ManifestItem {
  return {
    id,
    url: `https://site.test/${id.replace(/:/g, '/')}`,
    type: 'section',
    lang: 'en',
    license: 'https://site.test/license',
    usage: { train: 'deny', infer: 'allow', cache: 'allow', redistribute: 'deny' },
    checksum: sha(text),
    version: 'v1.0',
    modified: '2026-12-01T00:00:00.000Z',
    content_url: `${API}/fragments/${id}/content`,
    ...extra,
  };
}

interface Snapshot {
  id: string;
  texts: Map<string, string>;
  items: Map<string, ManifestItem>;
}

/**
 * A site in memory: snapshots of items, a manifest paged by an index token, a delta between
 * snapshots, contents of the current snapshot. `log` records every request path.
 */
class FakeSite {
  snapshots: Snapshot[] = [];
  /** Snapshot ids the site no longer keeps: their tokens and `since` answer 410. */
  gone = new Set<string>();
  log: string[] = [];
  /** Answers to send before the real one, by path prefix (e.g. a 429). */
  queued: { prefix: string; response: () => Response }[] = [];
  /** Contents served differently from their checksum (corruption). */
  corrupt = new Map<string, string>();

  publish(texts: Record<string, string>, meta: Record<string, Partial<ManifestItem>> = {}) {
    const id = String(this.snapshots.length + 1);
    const items = new Map<string, ManifestItem>();
    const textMap = new Map<string, string>();
    for (const [itemId, text] of Object.entries(texts)) {
      items.set(itemId, makeItem(itemId, text, meta[itemId]));
      textMap.set(itemId, text);
    }
    this.snapshots.push({ id, items, texts: textMap });
    return id;
  }

  get current(): Snapshot {
    return this.snapshots[this.snapshots.length - 1]!;
  }

  contentRequests(): string[] {
    return this.log.filter((p) => p.endsWith('/content'));
  }

  fetch: FetchLike = async (url) => {
    const u = new URL(url);
    const route = u.pathname.replace('/api/sitemap-ai/', '');
    this.log.push(route);
    const queued = this.queued.findIndex((q) => route.startsWith(q.prefix));
    if (queued >= 0) return this.queued.splice(queued, 1)[0]!.response();
    const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const gone = () =>
      json({ data: null, error: { status: 410, name: 'SnapshotGoneError', message: 'gone' } }, 410);
    const limit = Number(u.searchParams.get('limit') ?? 500);
    const page = (snap: Snapshot, ids: string[], token: string | null) => {
      const [snapId, start] = token ? token.split('@') : [snap.id, '0'];
      const start0 = Number(start);
      const slice = ids.slice(start0, start0 + limit);
      const next = start0 + limit < ids.length ? `${snapId}@${start0 + limit}` : null;
      return { slice, next };
    };
    if (route === 'manifest') {
      const token = u.searchParams.get('page_token');
      const snapId = token ? token.split('@')[0]! : this.current.id;
      if (this.gone.has(snapId)) return gone();
      const snap = this.snapshots.find((s) => s.id === snapId)!;
      const ids = [...snap.items.keys()].sort();
      const { slice, next } = page(snap, ids, token);
      const etag = `"m-${snap.id}-${token ?? 0}"`;
      if (u.searchParams.get('page_token') === null && this.etagMatches(url, etag))
        return new Response(null, { status: 304, headers: { etag } });
      return json(
        {
          spec: 'sitemap-ai/1',
          snapshot: { id: snap.id, created_at: '2026-12-01T00:00:00Z' },
          items: slice.map((id) => snap.items.get(id)),
          next_page_token: next,
        },
        200,
        { etag },
      );
    }
    if (route === 'delta') {
      const since = u.searchParams.get('since')!;
      if (this.gone.has(since)) return gone();
      const from = this.snapshots.find((s) => s.id === since)!;
      const to = this.current;
      const changed = [...to.items.keys()]
        .filter((id) => JSON.stringify(from.items.get(id)) !== JSON.stringify(to.items.get(id)))
        .sort();
      const removed = [...from.items.keys()].filter((id) => !to.items.has(id)).sort();
      const token = u.searchParams.get('page_token');
      const { slice, next } = page(to, changed, token);
      return json({
        spec: 'sitemap-ai/1',
        since,
        snapshot: { id: to.id, created_at: '2026-12-01T00:00:00Z' },
        items: slice.map((id) => to.items.get(id)),
        removed: token ? [] : removed.map((id) => ({ id, removed_at: '2026-12-01T00:00:00Z' })),
        next_page_token: next,
        next_since: to.id,
      });
    }
    const content = /^fragments\/(.+)\/content$/.exec(route);
    if (content) {
      const id = decodeURIComponent(content[1]!);
      const text = this.current.texts.get(id);
      if (text === undefined)
        return json({ data: null, error: { status: 404, name: 'NotFound', message: 'no' } }, 404);
      const checksum = sha(text);
      const etag = `"${checksum.slice(7)}"`;
      if (this.etagMatches(url, etag))
        return new Response(null, { status: 304, headers: { etag } });
      return new Response(this.corrupt.get(id) ?? text, {
        status: 200,
        headers: {
          'content-type': 'text/markdown; charset=utf-8',
          etag,
          'x-sitemap-ai-checksum': checksum,
        },
      });
    }
    return json({ data: null, error: { status: 404, name: 'NotFound', message: route } }, 404);
  };

  /** If-None-Match of the last request, set by the wrapping fetch below. */
  private lastIfNoneMatch: string | null = null;
  private etagMatches(_url: string, etag: string): boolean {
    return this.lastIfNoneMatch === etag;
  }

  /** The fetch a client gets: records If-None-Match and the headers of each request. */
  headersSeen: Record<string, string>[] = [];
  clientFetch: FetchLike = async (url, init) => {
    const headers = (init.headers ?? {}) as Record<string, string>;
    this.headersSeen.push(headers);
    this.lastIfNoneMatch = headers['If-None-Match'] ?? null;
    return this.fetch(url, init);
  };
}

function clientFor(
  site: FakeSite,
  extra: Partial<ConstructorParameters<typeof SitemapAiClient>[0]> = {},
) {
  const waits: number[] = [];
  const client = new SitemapAiClient({
    baseUrl: 'https://cms.test',
    fetch: site.clientFetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { client, waits };
}

describe('pure helpers', () => {
  it('Given an item id, When it becomes a file name, Then it is readable for ordinary ids and safe for hostile ones', () => {
    expect(fileNameForId('article:geo-index:en:intro')).toBe('article.geo-index.en.intro');
    expect(fileNameForId('article:a_b:en')).toBe('article.a_5fb.en');
    expect(fileNameForId('article:a.b:en')).toBe('article.a_2eb.en');
    expect(fileNameForId('../../etc/passwd')).toBe('_2e_2e_2f_2e_2e_2fetc_2fpasswd');
    expect(fileNameForId('::')).toBe('_3a.');
    expect(fileNameForId('con')).toBe('_63on');
    // Upper case is escaped too: a case-insensitive file system must not merge two ids.
    expect(fileNameForId('ČSN:x')).toBe('_c4_8c_53_4e.x');
    const long = fileNameForId(`article:${'a'.repeat(500)}:en`);
    expect(long.length).toBeLessThanOrEqual(180);
    expect(long).toMatch(/~[0-9a-f]{16}$/);
    expect(() => fileNameForId('')).toThrow();
  });

  it('Given any two different ids, Then their file names differ and never leave the folder', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (a, b) => {
        fc.pre(a.length > 0 && b.length > 0 && a.normalize('NFC') !== b.normalize('NFC'));
        const [fa, fb] = [fileNameForId(a), fileNameForId(b)];
        expect(fa).not.toBe(fb);
        for (const name of [fa, fb]) {
          expect(name).toMatch(/^[a-z0-9_~-][a-z0-9._~-]*$/);
          expect(name.includes('/')).toBe(false);
        }
      }),
    );
  });

  it('Given content and a checksum, When they differ, Then verification throws and says whether the site changed it', () => {
    expect(checksumOf('hello')).toBe(sha('hello'));
    expect(() => verifyChecksum('x', 'hello', sha('hello'))).not.toThrow();
    const corrupt = (() => {
      try {
        verifyChecksum('x', 'hellO', sha('hello'), sha('hello'));
      } catch (error) {
        return error as ChecksumMismatchError;
      }
      return null;
    })();
    expect(corrupt).toBeInstanceOf(ChecksumMismatchError);
    expect(corrupt!.changed).toBe(false);
    expect(corrupt!.message).toMatch(/content of x hashes to sha256:[0-9a-f]{64}, expected/);
    const newer = (() => {
      try {
        verifyChecksum('x', 'v2', sha('v1'), sha('v2'));
      } catch (error) {
        return error as ChecksumMismatchError;
      }
      return null;
    })();
    expect(newer!.changed).toBe(true);
  });

  it('Given Retry-After values, Then seconds and HTTP dates are read and junk is null', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs('Tue, 01 Dec 2026 10:00:30 GMT', Date.parse('2026-12-01T10:00:00Z'))).toBe(
      30_000,
    );
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });

  it('Given base URLs, Then the API prefix is added once', () => {
    expect(apiBase('https://cms.test')).toBe(API);
    expect(apiBase('https://cms.test/api/sitemap-ai/')).toBe(API);
    expect(apiBase('https://cms.test/x?y=1#z', '/v2/ai/')).toBe('https://cms.test/x/v2/ai');
    expect(() => apiBase('ftp://cms.test')).toThrow(/http/);
    expect(() => apiBase('nope')).toThrow(/not a URL/);
  });

  it('Given a webhook signed by the plugin, Then verifyWebhook accepts it, and refuses a changed body or an old time', () => {
    const body = '{"event":"ping"}';
    const header = signPayload('a-secret-of-enough-length', body, 1_800_000_000);
    expect(verifyWebhook(header, 'a-secret-of-enough-length', body, 1_800_000_010)).toBe(true);
    expect(verifyWebhook(header, 'a-secret-of-enough-length', `${body} `, 1_800_000_010)).toBe(
      false,
    );
    expect(verifyWebhook(header, 'a-secret-of-enough-length', body, 1_800_000_400)).toBe(false);
    expect(verifyWebhook(header, 'another-secret-of-length', body, 1_800_000_010)).toBe(false);
  });

  it('Given a sitemap index, Then its parts are listed by file name; a urlset has none', () => {
    const index =
      '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
      '<sitemap><loc>https://cms.test/api/sitemap-ai/sitemap-1.xml</loc></sitemap>' +
      '<sitemap><loc>https://cms.test/api/sitemap-ai/sitemap-2.xml</loc></sitemap></sitemapindex>';
    expect(sitemapParts(index)).toEqual(['sitemap-1.xml', 'sitemap-2.xml']);
    expect(
      sitemapParts('<urlset><url><loc>https://x.test/sitemap-1.xml</loc></url></urlset>'),
    ).toEqual([]);
  });

  it('Given a state file, Then it is parsed, refused when it is another site or not a state', () => {
    expect(parseMirrorState(null, API)).toMatchObject({ since: null, items: {} });
    const state = { format: MIRROR_FORMAT, api: API, since: '3', snapshot: null, items: {} };
    expect(parseMirrorState(JSON.stringify(state), API).since).toBe('3');
    expect(() =>
      parseMirrorState(JSON.stringify(state), 'https://other.test/api/sitemap-ai'),
    ).toThrow(/mirrors https:\/\/cms\.test/);
    expect(() => parseMirrorState('{', API)).toThrow(/not JSON/);
    expect(() => parseMirrorState('{"format":"x"}', API)).toThrow(/not a sitemap-ai-mirror/);
    expect(() => parseMirrorState(JSON.stringify({ ...state, since: 3 }), API)).toThrow(/since/);
  });

  it('Given a state, Then index.jsonl lists its items in id order with their files', () => {
    const state = parseMirrorState(null, API);
    state.items['b'] = {
      file: 'content/b.md',
      checksum: sha('b'),
      etag: null,
      item: makeItem('b', 'b'),
    };
    state.items['a'] = {
      file: 'content/a.md',
      checksum: sha('a'),
      etag: null,
      item: makeItem('a', 'a'),
    };
    const lines = mirrorIndex(state)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; file: string });
    expect(lines.map((l) => [l.id, l.file])).toEqual([
      ['a', 'content/a.md'],
      ['b', 'content/b.md'],
    ]);
  });
});

describe('SitemapAiClient requests', () => {
  let site: FakeSite;
  beforeEach(() => {
    site = new FakeSite();
    site.publish({ 'p:a:en': 'A', 'p:b:en': 'B', 'p:c:en': 'C' });
  });

  it('Given 429 then 503 with Retry-After, When a page is read, Then the client waits as told and gets the page', async () => {
    site.queued.push(
      {
        prefix: 'manifest',
        response: () => new Response('', { status: 429, headers: { 'retry-after': '2' } }),
      },
      {
        prefix: 'manifest',
        response: () => new Response('', { status: 503, headers: { 'retry-after': '1' } }),
      },
    );
    const { client, waits } = clientFor(site);
    const page = await client.manifestPage();
    expect(page.notModified).toBe(false);
    expect(waits).toEqual([2000, 1000]);
    expect(site.log.filter((p) => p === 'manifest')).toHaveLength(3);
  });

  it('Given 429 more often than maxRetries, Then the client gives up with the 429 after that many waits', async () => {
    for (let i = 0; i < 5; i += 1)
      site.queued.push({
        prefix: 'manifest',
        response: () => new Response('', { status: 429, headers: { 'retry-after': '1' } }),
      });
    const { client, waits } = clientFor(site, { maxRetries: 2 });
    await expect(client.manifestPage()).rejects.toMatchObject({ name: 'HttpError', status: 429 });
    expect(waits).toEqual([1000, 1000]);
  });

  it('Given a Retry-After longer than the client accepts, Then it fails at once instead of waiting', async () => {
    site.queued.push({
      prefix: 'manifest',
      response: () => new Response('', { status: 429, headers: { 'retry-after': '3600' } }),
    });
    const { client, waits } = clientFor(site, { maxRetryAfterSeconds: 60 });
    await expect(client.manifestPage()).rejects.toBeInstanceOf(HttpError);
    expect(waits).toEqual([]);
  });

  it('Given a 503 without Retry-After, Then the waits grow 1 s, 2 s', async () => {
    site.queued.push(
      { prefix: 'manifest', response: () => new Response('', { status: 503 }) },
      { prefix: 'manifest', response: () => new Response('', { status: 503 }) },
    );
    const { client, waits } = clientFor(site);
    await client.manifestPage();
    expect(waits).toEqual([1000, 2000]);
  });

  it('Given an ETag, When the page did not change, Then If-None-Match is sent and the answer is 304', async () => {
    const { client } = clientFor(site);
    const first = await client.manifestPage();
    expect(first.etag).toBe('"m-1-0"');
    const again = await client.manifestPage({ etag: first.etag });
    expect(again.notModified).toBe(true);
    expect(site.headersSeen.at(-1)!['If-None-Match']).toBe('"m-1-0"');
    site.publish({ 'p:a:en': 'A2' });
    expect((await client.manifestPage({ etag: first.etag })).notModified).toBe(false);
  });

  it('Given a content the server corrupts, Then content() rejects it loudly', async () => {
    site.corrupt.set('p:b:en', 'B but tampered');
    const { client } = clientFor(site);
    const good = await client.content('p:a:en', { expected: sha('A') });
    expect(good.notModified === false && good.value.text).toBe('A');
    await expect(client.content('p:b:en', { expected: sha('B') })).rejects.toMatchObject({
      name: 'ChecksumMismatchError',
      changed: false,
    });
    // Without an expected checksum, the one the server sends is still checked.
    await expect(client.content('p:b:en')).rejects.toBeInstanceOf(ChecksumMismatchError);
  });

  it('Given signRequest, Then its headers go with every attempt, retries included', async () => {
    site.queued.push({
      prefix: 'manifest',
      response: () => new Response('', { status: 429, headers: { 'retry-after': '0' } }),
    });
    let n = 0;
    const { client } = clientFor(site, {
      signRequest: (request) => {
        n += 1;
        return { Signature: `sig${n}:${request.url.endsWith('/manifest')}` };
      },
    });
    await client.manifestPage();
    expect(site.headersSeen.map((h) => h.Signature)).toEqual(['sig1:true', 'sig2:true']);
  });

  it('Given a 404, Then an HttpError names the status, the URL and the server message', async () => {
    const { client } = clientFor(site);
    await expect(client.content('p:none:en')).rejects.toThrow(
      /404 from https:\/\/cms\.test\/api\/sitemap-ai\/fragments\/p%3Anone%3Aen\/content: no/,
    );
  });
});

describe('SitemapAiClient.sync', () => {
  const collect = () => {
    const batches: SyncBatch[] = [];
    let fullWalk: string[] | null = null;
    return {
      batches,
      get fullWalk() {
        return fullWalk;
      },
      handler: {
        onBatch: (b: SyncBatch) => {
          batches.push(b);
        },
        onFullWalk: (ids: ReadonlySet<string>) => {
          fullWalk = [...ids].sort();
        },
      },
    };
  };

  it('Given no since, Then it walks every manifest page and reports every id and the snapshot as next since', async () => {
    const site = new FakeSite();
    site.publish({ a: '1', b: '2', c: '3', d: '4', e: '5' });
    const { client } = clientFor(site);
    const c = collect();
    const result = await client.sync({ limit: 2 }, c.handler);
    expect(result).toMatchObject({ mode: 'full', nextSince: '1', resynced: false, items: 5 });
    expect(c.batches.map((b) => b.items.map((i) => i.id))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(c.fullWalk).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('Given a saved since, Then only the delta is read, tombstones included', async () => {
    const site = new FakeSite();
    const first = site.publish({ a: '1', b: '2', c: '3' });
    site.publish({ a: '1', b: '2 changed', d: '4' });
    const { client } = clientFor(site);
    const c = collect();
    const result = await client.sync({ since: first }, c.handler);
    expect(result).toMatchObject({ mode: 'delta', nextSince: '2', items: 2, removed: 1 });
    expect(c.batches[0]!.items.map((i) => i.id)).toEqual(['b', 'd']);
    expect(c.batches[0]!.removed.map((t) => t.id)).toEqual(['c']);
    expect(site.log.some((p) => p === 'manifest')).toBe(false);
    expect(c.fullWalk).toBeNull();
  });

  it('Given a since older than the site keeps (410), Then it walks the whole manifest instead', async () => {
    const site = new FakeSite();
    const first = site.publish({ a: '1' });
    site.publish({ a: '2', b: '3' });
    site.gone.add(first);
    const { client } = clientFor(site);
    const c = collect();
    const result = await client.sync({ since: first }, c.handler);
    expect(result).toMatchObject({ mode: 'full', resynced: true, nextSince: '2' });
    expect(c.fullWalk).toEqual(['a', 'b']);
  });

  it('Given a snapshot dropped in the middle of a walk (410 on its page token), Then the walk starts again on the new snapshot', async () => {
    const site = new FakeSite();
    site.publish({ a: '1', b: '2', c: '3' });
    const { client } = clientFor(site);
    const c = collect();
    let pages = 0;
    const result = await client.sync(
      { limit: 2 },
      {
        onBatch: (batch) => {
          pages += 1;
          c.batches.push(batch);
          if (pages === 1) {
            site.publish({ a: '1', c: '3', z: '26' });
            site.gone.add('1');
          }
        },
        onFullWalk: c.handler.onFullWalk,
      },
    );
    expect(result).toMatchObject({ mode: 'full', nextSince: '2' });
    expect(c.batches.map((b) => b.snapshot.id)).toEqual(['1', '2', '2']);
    expect(c.fullWalk).toEqual(['a', 'c', 'z']);
  });

  it('Given a snapshot that keeps going away, Then the walk stops after three restarts with the 410', async () => {
    const site = new FakeSite();
    site.publish({ a: '1', b: '2', c: '3' });
    const { client } = clientFor(site);
    await expect(
      client.sync(
        { limit: 2 },
        {
          onBatch: () => {
            site.gone.add(site.current.id);
            site.publish({ a: '1', b: '2', c: '3' });
          },
        },
      ),
    ).rejects.toBeInstanceOf(GoneError);
    expect(site.log.filter((p) => p === 'manifest')).toHaveLength(8);
  });
});

describe('syncMirror', () => {
  let out: string;
  beforeEach(() => {
    out = mkdtempSync(path.join(os.tmpdir(), 'sitemap-ai-mirror-'));
  });
  afterEach(() => {
    rmSync(out, { recursive: true, force: true });
  });
  const files = () => readdirSync(path.join(out, 'content')).sort();
  const state = () =>
    JSON.parse(readFileSync(path.join(out, 'state.json'), 'utf8')) as {
      since: string | null;
      items: Record<string, { checksum: string; etag: string | null }>;
    };

  it('Given a site, When it is mirrored, changed and mirrored again, Then the second run fetches only the changed contents and deletes the removed', async () => {
    const site = new FakeSite();
    site.publish({ 'p:a:en': 'A', 'p:b:en': 'B', 'p:c:en': 'C', 'p:d:en': 'D' });
    const { client } = clientFor(site);
    const first = await syncMirror({ client, out, limit: 2 });
    expect(first).toMatchObject({ mode: 'full', fetched: 4, deleted: 0 });
    expect(files()).toEqual(['p.a.en.md', 'p.b.en.md', 'p.c.en.md', 'p.d.en.md']);
    expect(readFileSync(path.join(out, 'content', 'p.b.en.md'), 'utf8')).toBe('B');
    expect(state().since).toBe('1');
    expect(state().items['p:b:en']!.etag).toBe(`"${sha('B').slice(7)}"`);

    site.log = [];
    site.publish(
      { 'p:a:en': 'A', 'p:b:en': 'B, edited', 'p:d:en': 'D', 'p:e:en': 'E' },
      { 'p:d:en': { title: 'Only the title changed' } },
    );
    const second = await syncMirror({ client, out, limit: 2 });
    expect(second).toMatchObject({ mode: 'delta', fetched: 2, metadataOnly: 1, deleted: 1 });
    expect(site.contentRequests().sort()).toEqual([
      'fragments/p%3Ab%3Aen/content',
      'fragments/p%3Ae%3Aen/content',
    ]);
    expect(files()).toEqual(['p.a.en.md', 'p.b.en.md', 'p.d.en.md', 'p.e.en.md']);
    const index = readFileSync(path.join(out, 'index.jsonl'), 'utf8').trim().split('\n');
    expect(index.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([
      'p:a:en',
      'p:b:en',
      'p:d:en',
      'p:e:en',
    ]);
    expect(JSON.parse(index[2]!)).toMatchObject({
      title: 'Only the title changed',
      file: 'content/p.d.en.md',
    });
    expect(state().since).toBe('2');
  });

  it('Given a run killed after some contents, When it runs again, Then no completed content is fetched twice', async () => {
    const site = new FakeSite();
    const texts: Record<string, string> = {};
    for (let i = 0; i < 10; i += 1) texts[`p:item-${i}:en`] = `text ${i}`;
    site.publish(texts);
    let contents = 0;
    const dying: FetchLike = async (url, init) => {
      if (url.endsWith('/content')) {
        contents += 1;
        if (contents > 5) throw new Error('killed');
      }
      return site.clientFetch(url, init);
    };
    const killed = new SitemapAiClient({ baseUrl: 'https://cms.test', fetch: dying });
    await expect(syncMirror({ client: killed, out, limit: 3, concurrency: 1 })).rejects.toThrow(
      /killed/,
    );
    // Pages of 3: the first page was saved; the 4th and 5th contents are on disk, not in the state.
    expect(Object.keys(state().items)).toHaveLength(3);
    expect(state().since).toBeNull();
    expect(files()).toHaveLength(5);

    // A write the kill cut short leaves a temp file; the next run clears it.
    writeFileSync(path.join(out, 'content', 'p.item-9.en.md.4242.7.tmp'), 'half a wr');
    site.log = [];
    const { client } = clientFor(site);
    const resumed = await syncMirror({ client, out, limit: 3, concurrency: 1 });
    expect(resumed).toMatchObject({ mode: 'full', fetched: 5, adopted: 2 });
    expect(site.contentRequests()).toHaveLength(5);
    expect(files()).toHaveLength(10);
    for (const [id, text] of Object.entries(texts))
      expect(state().items[id]!.checksum, id).toBe(sha(text));
  });

  it('Given a corrupted content, Then the sync fails loudly and writes neither the file nor a new state', async () => {
    const site = new FakeSite();
    site.publish({ 'p:a:en': 'A', 'p:b:en': 'B' });
    site.corrupt.set('p:b:en', 'not B');
    const { client } = clientFor(site);
    await expect(syncMirror({ client, out, concurrency: 1 })).rejects.toThrow(
      /content of p:b:en hashes to sha256:[0-9a-f]{64}, expected/,
    );
    expect(existsSync(path.join(out, 'content', 'p.b.en.md'))).toBe(false);
    expect(existsSync(path.join(out, 'state.json'))).toBe(false);
  });

  it('Given a content the site changed after the page was read, Then it is left for the next run, which fetches it', async () => {
    const site = new FakeSite();
    site.publish({ 'p:a:en': 'A', 'p:b:en': 'B' });
    const racing: FetchLike = async (url, init) => {
      // A rebuild publishes between the manifest page and the contents.
      if (url.endsWith('/manifest')) {
        const answer = await site.clientFetch(url, init);
        if (site.snapshots.length === 1) site.publish({ 'p:a:en': 'A', 'p:b:en': 'B2' });
        return answer;
      }
      return site.clientFetch(url, init);
    };
    const client = new SitemapAiClient({ baseUrl: 'https://cms.test', fetch: racing });
    const first = await syncMirror({ client, out });
    expect(first.deferred).toEqual(['p:b:en']);
    expect(state().since).toBe('1');
    const second = await syncMirror({ client, out });
    expect(second).toMatchObject({ mode: 'delta', fetched: 1, deferred: [] });
    expect(readFileSync(path.join(out, 'content', 'p.b.en.md'), 'utf8')).toBe('B2');
  });

  it('Given a folder that mirrors another site, Then the sync refuses to touch it', async () => {
    const site = new FakeSite();
    site.publish({ a: 'A' });
    writeFileSync(
      path.join(out, 'state.json'),
      JSON.stringify({
        format: MIRROR_FORMAT,
        api: 'https://other.test/api/sitemap-ai',
        since: null,
        items: {},
      }),
    );
    const { client } = clientFor(site);
    await expect(syncMirror({ client, out })).rejects.toThrow(/use another --out/);
    expect(site.log).toEqual([]);
  });
});

describe('exportSite', () => {
  it('Given a snapshot dropped during the export, Then the pages are those of one snapshot, and documents the site lacks are listed', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'sitemap-ai-export-'));
    try {
      const site = new FakeSite();
      site.publish({ a: '1', b: '2', c: '3', d: '4', e: '5' });
      let manifestPages = 0;
      const dropping: FetchLike = async (url, init) => {
        if (new URL(url).pathname.endsWith('/manifest')) {
          manifestPages += 1;
          if (manifestPages === 2) {
            site.gone.add('1');
            site.publish({ a: '1', b: '2', c: '3' });
          }
        }
        return site.clientFetch(url, init);
      };
      const client = new SitemapAiClient({ baseUrl: 'https://cms.test', fetch: dropping });
      const result = await exportSite({ client, out, limit: 2 });
      expect(result.snapshot.id).toBe('2');
      expect(result.pages).toBe(2);
      expect(result.missing).toContain('llms.txt');
      const read = (n: number) =>
        JSON.parse(readFileSync(path.join(out, `manifest/page-${n}.json`), 'utf8')) as {
          snapshot: { id: string };
          items: { id: string }[];
        };
      expect([read(1).snapshot.id, read(2).snapshot.id]).toEqual(['2', '2']);
      expect([...read(1).items, ...read(2).items].map((i) => i.id)).toEqual(['a', 'b', 'c']);
      // Nothing of the dropped snapshot's walk is left behind.
      expect(existsSync(path.join(out, 'manifest/page-3.json'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('sitemap-ai CLI arguments', () => {
  const cli = createRequire(__filename)(
    path.join(__dirname, '..', '..', 'bin', 'sitemap-ai.js'),
  ) as {
    parseArgs(argv: string[]): Record<string, unknown>;
    showsProgress(
      options: { quiet: boolean },
      stream: { isTTY?: boolean },
      env: Record<string, string>,
    ): boolean;
  };

  it('Given good arguments, Then they are read in either form', () => {
    expect(
      cli.parseArgs(['sync', 'https://cms.test', '--out', 'm', '--limit=50', '--quiet']),
    ).toMatchObject({
      command: 'sync',
      base: 'https://cms.test',
      out: 'm',
      limit: 50,
      quiet: true,
    });
    expect(cli.parseArgs(['export', 'http://x.test', '--out=e'])).toMatchObject({
      command: 'export',
      out: 'e',
    });
  });

  it('Given bad arguments, Then each names its problem', () => {
    const bad: [string[], RegExp][] = [
      [[], /command is missing/],
      [['fetch', 'https://x.test'], /unknown command fetch/],
      [['sync'], /base URL is missing/],
      [['sync', 'https://x.test'], /--out <dir> is missing/],
      [['sync', 'x.test', '--out', 'm'], /not a URL/],
      [['sync', 'file:///etc', '--out', 'm'], /http\(s\)/],
      [
        ['sync', 'https://x.test', '--out', 'm', '--limit', '1001'],
        /--limit needs a whole number from 1 to 1000/,
      ],
      [['sync', 'https://x.test', '--out'], /--out needs a value/],
      [['sync', 'https://x.test', 'https://y.test', '--out', 'm'], /one base URL only/],
      [['sync', 'https://x.test', '--out', 'm', '--verbose'], /unknown option --verbose/],
    ];
    for (const [argv, message] of bad)
      expect(() => cli.parseArgs(argv), argv.join(' ')).toThrow(message);
  });

  it('Given a terminal, CI or --quiet, Then progress shows only on a terminal outside CI without --quiet', () => {
    expect(cli.showsProgress({ quiet: false }, { isTTY: true }, {})).toBe(true);
    expect(cli.showsProgress({ quiet: false }, { isTTY: true }, { CI: 'true' })).toBe(false);
    expect(cli.showsProgress({ quiet: false }, { isTTY: true }, { CI: 'false' })).toBe(true);
    expect(cli.showsProgress({ quiet: true }, { isTTY: true }, {})).toBe(false);
    expect(cli.showsProgress({ quiet: false }, {}, {})).toBe(false);
  });
});
