import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import robotsParser from 'robots-parser';
import { parseDictionary } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsData } from '../../shared/contracts/admin';
import type { ManifestItem, Usage } from '../../shared/contracts/manifest';
import { AI_CRAWLERS, ROLE_KIND, strictestUsage } from '../../server/src/core/interop';
import { superAdminToken } from '../helpers/admin';
import { API, crawl, pathOf, sha256 } from '../helpers/manifest';
import { ROOT, bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/** Pages per sitemap file in this suite, so the playground's pages need a sitemap index. */
const URLS_PER_FILE = 5;
const SITE = 'https://example.com';

const permits = (usage: Usage, kind: keyof Usage) => usage[kind] !== 'deny';
function token(dictionary: string | undefined, key: string): string {
  if (dictionary === undefined) throw new Error(`no header to read ${key} from`);
  return String(parseDictionary(dictionary).get(key)?.[0]);
}
const xml = new XMLParser({
  ignoreAttributes: false,
  isArray: (name) => ['content', 'url', 'sitemap', 'xhtml:link'].includes(name),
});

/** An RFC 9309 prefix / `$` match, independent of the plugin's. */
function longestMatch<T>(
  list: readonly T[],
  patternOf: (t: T) => string,
  p: string,
): T | undefined {
  return list
    .filter((t) => {
      const pattern = patternOf(t);
      return pattern.endsWith('$') ? p === pattern.slice(0, -1) : p.startsWith(pattern);
    })
    .sort((a, b) => patternOf(b).length - patternOf(a).length)[0];
}

interface Page {
  item: ManifestItem;
  fragments: ManifestItem[];
  /** What a crawler of the page's URL may do: the strictest of the page and its fragments. */
  pathUsage: Usage;
  path: string;
}

function pagesOf(items: ManifestItem[]): Page[] {
  const children = new Map<string, ManifestItem[]>();
  for (const item of items) {
    if (!item.parent) continue;
    children.set(item.parent, [...(children.get(item.parent) ?? []), item]);
  }
  return items
    .filter((item) => item.type === 'article')
    .map((item) => {
      const fragments = children.get(item.id) ?? [];
      return {
        item,
        fragments,
        pathUsage: strictestUsage([item.usage, ...fragments.map((f) => f.usage)])!,
        path: new URL(item.url).pathname,
      };
    });
}

/** Validate a urlset with xmllint against the package's sitemaps.org schema (+ the xhtml link). */
function xmllintUrlset(text: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'sitemap-xsd-'));
  try {
    const sitemapXsd = path.join(ROOT, 'node_modules', 'sitemap', 'schema', 'sitemap.xsd');
    const xhtmlXsd = path.join(ROOT, 'tests', 'fixtures', 'xhtml-link.xsd');
    writeFileSync(
      path.join(dir, 'all.xsd'),
      `<?xml version="1.0" encoding="UTF-8"?>
<schema xmlns="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" schemaLocation="file://${sitemapXsd}"/>
  <import namespace="http://www.w3.org/1999/xhtml" schemaLocation="file://${xhtmlXsd}"/>
</schema>`,
    );
    writeFileSync(path.join(dir, 'sitemap.xml'), text);
    execFileSync(
      'xmllint',
      ['--noout', '--nonet', '--schema', path.join(dir, 'all.xsd'), path.join(dir, 'sitemap.xml')],
      { stdio: 'pipe' },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(testDatabases())('discovery documents on %s', (client) => {
  let app: TestApp;
  let owner: string;

  beforeAll(async () => {
    app = await bootPlayground(client, {
      env: { SITEMAP_AI_SITEMAP_URLS_PER_FILE: String(URLS_PER_FILE) },
    });
    owner = await superAdminToken(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  const get = (url: string) => app.http.get(url).buffer(true);

  async function setTrain(train: Usage['train']): Promise<void> {
    const auth = { Authorization: `Bearer ${owner}` };
    const data = (await app.http.get('/sitemap-ai/settings').set(auth).expect(200)).body
      .data as SettingsData;
    data.settings.defaults.usage.train = train;
    await app.http.put('/sitemap-ai/settings').set(auth).send(data.settings).expect(200);
    await app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
  }

  /** Every document and header against the manifest, read by independent parsers. */
  async function expectAgreement(): Promise<Page[]> {
    const { items, pages: manifestPages } = await crawl(app.http);
    const pages = pagesOf(items);
    expect(pages.length).toBeGreaterThan(URLS_PER_FILE);

    // robots.txt: each crawler role as its usage kind says, at every page's path.
    const robotsRes = await get(`${API}/robots.txt`).expect(200);
    expect(robotsRes.headers['content-type']).toMatch(/^text\/plain/);
    const robots = robotsParser(`${SITE}/robots.txt`, robotsRes.text);
    for (const page of pages) {
      for (const crawler of AI_CRAWLERS) {
        expect(
          robots.isAllowed(`${SITE}${page.path}`, crawler.token),
          `${crawler.token} ${page.path}`,
        ).toBe(permits(page.pathUsage, ROLE_KIND[crawler.role]));
      }
    }
    expect(robotsRes.text).toContain(`License: `);
    expect(robots.getSitemaps().map((u) => new URL(u).pathname)).toEqual([
      `${API}/sitemap.xml`,
      `${API}/manifest`,
    ]);
    const usageLines = robotsRes.text
      .split('\n\n')
      .find((g) => g.includes('User-agent: GPTBot'))!
      .split('\n')
      .filter((l) => l.startsWith('Content-Usage: '))
      .map((l) => l.slice('Content-Usage: '.length).split(/ (.*)/s) as [string, string]);
    for (const page of pages) {
      const line = longestMatch(usageLines, ([p]) => p, page.path);
      expect(line && token(line[1], 'train-ai')).toBe(permits(page.pathUsage, 'train') ? 'y' : 'n');
    }

    // RSL 1.0.
    const rslRes = await get(`${API}/rsl.xml`).expect(200);
    expect(rslRes.headers['content-type']).toMatch(/^application\/rsl\+xml/);
    const rsl = xml.parse(rslRes.text) as {
      rsl: { '@_xmlns': string; content: Record<string, unknown>[] };
    };
    expect(rsl.rsl['@_xmlns']).toBe('https://rslstandard.org/rsl');
    for (const page of pages) {
      const content = longestMatch(rsl.rsl.content, (c) => String(c['@_url']), page.path) as {
        license: {
          prohibits?: { '#text': string };
          permits?: { '#text': string };
          payment: { standard: string };
        };
      };
      const prohibited = String(content.license.prohibits?.['#text'] ?? '').split(' ');
      expect(prohibited.includes('ai-train')).toBe(!permits(page.pathUsage, 'train'));
      expect(prohibited.includes('ai-input')).toBe(!permits(page.pathUsage, 'infer'));
      expect(content.license.payment.standard).toBe(page.item.license);
    }

    // TDMRep: the first location that matches decides.
    const tdm = (await get(`${API}/tdmrep.json`).expect(200)).body as {
      location: string;
      'tdm-reservation': number;
    }[];
    for (const page of pages) {
      const entry = tdm.find((e) =>
        e.location.endsWith('*')
          ? page.path.startsWith(e.location.slice(0, -1))
          : e.location === page.path,
      );
      const open = permits(page.pathUsage, 'train') && permits(page.pathUsage, 'infer');
      expect(entry?.['tdm-reservation']).toBe(open ? 0 : 1);
    }

    // llms.txt: H1 first, one blockquote, then H2 sections of link lists, per the proposal.
    const llmsRes = await get(`${API}/llms.txt`).expect(200);
    const llms = llmsRes.text;
    // Its headers state the strictest policy of the pages it carries, all open to inference;
    // robots.txt's the strictest of the whole site.
    const carried = strictestUsage(
      pages.filter((p) => permits(p.item.usage, 'infer')).map((p) => p.item.usage),
    )!;
    expect(token(llmsRes.headers['content-signal'], 'ai-input')).toBe('yes');
    expect(token(llmsRes.headers['content-signal'], 'ai-train')).toBe(
      permits(carried, 'train') ? 'yes' : 'no',
    );
    const site = strictestUsage(pages.map((p) => p.pathUsage))!;
    expect(token(robotsRes.headers['content-signal'], 'ai-input')).toBe(
      permits(site, 'infer') ? 'yes' : 'no',
    );
    const lines = llms.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.filter((l) => l.startsWith('# '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('>'))).toHaveLength(1);
    expect(lines.findIndex((l) => l.startsWith('>'))).toBeLessThan(
      lines.findIndex((l) => l.startsWith('## ')),
    );
    const firstSection = lines.findIndex((l) => l.startsWith('## '));
    for (const line of lines.slice(firstSection)) {
      if (line === '' || line.startsWith('## ')) continue;
      expect(line).toMatch(/^- \[[^\]]+\]\(https?:\/\/[^\s()]+\)(: .+)?$/);
    }
    const linked = [...llms.matchAll(/\]\((https?:\/\/[^)]+)\)/g)].map((m) => m[1]!);
    const inferable = pages.filter((p) => permits(p.item.usage, 'infer'));
    expect(linked.map((u) => decodeURIComponent(new URL(u).pathname)).sort()).toEqual(
      inferable.map((p) => `${API}/pages/${p.item.id}.md`).sort(),
    );
    expect(lines).toContain('## Optional');
    for (const url of linked) {
      const res = await get(pathOf(url)).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/markdown/);
      const page = pages.find(
        (p) => `${API}/pages/${p.item.id}.md` === decodeURIComponent(new URL(url).pathname),
      )!;
      expect(sha256(res.text)).toBe(page.item.checksum);
      expect(res.headers['x-sitemap-ai-checksum']).toBe(page.item.checksum);
      expect(token(res.headers['content-usage'], 'train-ai')).toBe(
        permits(page.item.usage, 'train') ? 'y' : 'n',
      );
    }

    // llms-full.txt: the Markdown of every page open to inference, under its own header.
    const full = (await get(`${API}/llms-full.txt`).expect(200)).text;
    for (const page of pages) {
      const content = (await get(pathOf(page.item.content_url)).expect(200)).text;
      expect(full.includes(`- URL: ${page.item.url}\n`), page.item.id).toBe(
        permits(page.item.usage, 'infer'),
      );
      if (permits(page.item.usage, 'infer')) {
        expect(full).toContain(content.trimEnd());
        expect(full).toContain(`- Checksum: ${page.item.checksum}`);
      }
    }

    // sitemap.xml: an index of parts (URLS_PER_FILE), each valid against the sitemaps.org schema.
    const index = xml.parse((await get(`${API}/sitemap.xml`).expect(200)).text) as {
      sitemapindex: { sitemap: { loc: string }[] };
    };
    expect(index.sitemapindex.sitemap).toHaveLength(Math.ceil(pages.length / URLS_PER_FILE));
    const listed: { loc: string; lastmod: string; 'xhtml:link'?: Record<string, string>[] }[] = [];
    for (const part of index.sitemapindex.sitemap) {
      const text = (await get(pathOf(part.loc)).expect(200)).text;
      xmllintUrlset(text);
      listed.push(...(xml.parse(text) as { urlset: { url: typeof listed } }).urlset.url);
    }
    expect(listed.map((u) => u.loc).sort()).toEqual(pages.map((p) => p.item.url).sort());
    for (const page of pages) {
      const entry = listed.find((u) => u.loc === page.item.url)!;
      expect(new Date(entry.lastmod).toISOString()).toBe(page.item.modified);
      const translation = pages.find(
        (p) => p.item.alt_of === page.item.id || page.item.alt_of === p.item.id,
      );
      if (translation) {
        const hreflangs = (entry['xhtml:link'] ?? []).map((l) => [l['@_hreflang'], l['@_href']]);
        expect(hreflangs).toContainEqual([translation.item.lang, translation.item.url]);
        expect(hreflangs).toContainEqual([page.item.lang, page.item.url]);
      }
    }

    // JSON-LD of each page: what the manifest says of it and of its fragments.
    for (const page of pages) {
      // Page items point to their JSON-LD and Markdown copies.
      expect(pathOf(page.item.jsonld_url!)).toBe(`${API}/pages/${page.item.id}/jsonld`);
      expect(pathOf(page.item.markdown_url!)).toBe(`${API}/pages/${page.item.id}.md`);
      const res = await get(pathOf(page.item.jsonld_url!)).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
      const doc = JSON.parse(res.text) as Record<string, unknown> & {
        hasPart?: { url: string; license: string }[];
      };
      expect(doc.license).toBe(page.item.license);
      expect(doc.url).toBe(page.item.url);
      expect(doc.dateModified).toBe(page.item.modified);
      expect(doc.creditText).toBe(page.item.citation?.apa);
      expect(doc.isAccessibleForFree).toBe(permits(page.item.usage, 'infer'));
      expect((doc.hasPart ?? []).map((p) => [p.url, p.license])).toEqual(
        page.fragments.map((f) => [f.url, f.license]),
      );
    }

    // Headers: an item's own policy; a manifest page the strictest of its items.
    for (const page of pages.slice(0, 4)) {
      for (const item of [page.item, ...page.fragments.slice(0, 2)]) {
        for (const url of [`${API}/fragments/${item.id}`, pathOf(item.content_url)]) {
          const res = await get(url).expect(200);
          expect(token(res.headers['content-usage'], 'train-ai')).toBe(
            permits(item.usage, 'train') ? 'y' : 'n',
          );
          expect(token(res.headers['content-signal'], 'ai-input')).toBe(
            permits(item.usage, 'infer') ? 'yes' : 'no',
          );
          expect(res.headers.link).toMatch(/rel="license"; type="application\/rsl\+xml"/);
          expect(res.headers['tdm-reservation']).toBe(
            permits(item.usage, 'train') && permits(item.usage, 'infer') ? '0' : '1',
          );
        }
      }
    }
    const firstPage = manifestPages[0]!;
    const strictest = strictestUsage(firstPage.items.map((i) => i.usage))!;
    const pageRes = await get(`${API}/manifest`).expect(200);
    expect(token(pageRes.headers['content-usage'], 'train-ai')).toBe(
      permits(strictest, 'train') ? 'y' : 'n',
    );
    return pages;
  }

  it('states in every document and header the decision the manifest states, read back by independent parsers', async () => {
    await expectAgreement();
  });

  it('follows a site owner who allows training and then denies it again', async () => {
    await setTrain('allow');
    const allowed = await expectAgreement();
    const articles = allowed.filter(
      (p) => p.item.id.startsWith('article:') && permits(p.pathUsage, 'train'),
    );
    expect(articles.length).toBeGreaterThan(0);
    const robots = robotsParser(`${SITE}/robots.txt`, (await get(`${API}/robots.txt`)).text);
    expect(robots.isAllowed(`${SITE}${articles[0]!.path}`, 'GPTBot')).toBe(true);

    await setTrain('deny');
    const denied = await expectAgreement();
    const again = robotsParser(`${SITE}/robots.txt`, (await get(`${API}/robots.txt`)).text);
    expect(again.isAllowed(`${SITE}${articles[0]!.path}`, 'GPTBot')).toBe(false);
    expect(
      denied.filter((p) => p.item.id.startsWith('article:') && permits(p.pathUsage, 'train')),
    ).toEqual([]);
  });

  it("makes a new snapshot's documents from the pages that changed, as a restarted instance makes them from every item", async () => {
    const DOCUMENTS = ['robots.txt', 'llms.txt', 'rsl.xml', 'tdmrep.json', 'policy.json'];
    const documents = app.strapi.documents('api::article.article' as never) as unknown as {
      findFirst(q: unknown): Promise<{ documentId: string; body: string; sitemapAi?: object }>;
      update(q: unknown): Promise<unknown>;
      publish(q: unknown): Promise<unknown>;
      unpublish(q: unknown): Promise<unknown>;
    };
    const draftOf = (slug: string) =>
      documents.findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
    const served = async () => {
      const texts = new Map<string, string>();
      for (const doc of [...DOCUMENTS, 'sitemap.xml', 'sitemap-1.xml', 'sitemap-2.xml'])
        texts.set(doc, (await get(`${API}/${doc}`).expect(200)).text);
      return texts;
    };
    // Given the documents of the current snapshot served (its discovery index made)
    const before = await served();
    const { items } = await crawl(app.http);
    const fragment = items.find(
      (i) => i.id.startsWith('article:measuring-ai-crawler-ingest:en:') && i.type === 'section',
    )!;
    expect(permits(fragment.usage, 'infer')).toBe(true);

    // When an editor denies inference on a fragment of one page, unpublishes another page and
    // edits a third, and the next snapshot is built
    const measuring = await draftOf('measuring-ai-crawler-ingest');
    await documents.update({
      documentId: measuring.documentId,
      locale: 'en',
      data: {
        sitemapAi: {
          ...(measuring.sitemapAi ?? {}),
          fragments: { [fragment.id]: { usage: { infer: 'deny' } } },
        },
      },
    });
    await documents.publish({ documentId: measuring.documentId, locale: 'en' });
    const tdm = await draftOf('tdm-licensing');
    await documents.unpublish({ documentId: tdm.documentId, locale: 'en' });
    const geo = await draftOf('geo-index');
    await documents.update({
      documentId: geo.documentId,
      locale: 'en',
      data: { body: `${geo.body}\n\nA paragraph for the discovery index.\n` },
    });
    await documents.publish({ documentId: geo.documentId, locale: 'en' });
    await app.strapi.plugin('sitemap-ai').service('tracker').flush();
    const built = await app.strapi
      .plugin('sitemap-ai')
      .service('snapshot-builder')
      .rebuild({ trigger: 'test' });
    expect(built.skipped).toBe(false);

    // Then the first document asked for is made from the pages that changed: their versions are
    // read, and no statement reads the items' data but by those pages' ids
    const statements: string[] = [];
    const knex = app.strapi.db.connection;
    const log = (query: { sql: string }) => statements.push(query.sql);
    knex.on('query', log);
    let after: Map<string, string>;
    try {
      after = await served();
    } finally {
      knex.off('query', log);
    }
    const versionReads = statements.filter((sql) => sql.includes('sitemap_ai_item_versions'));
    expect(versionReads.some((sql) => sql.includes('parent_item') && / in \(/.test(sql))).toBe(
      true,
    );
    expect(versionReads.filter((sql) => sql.includes('data_ref') && !/ in \(/.test(sql))).toEqual(
      [],
    );
    // and they changed where the site did
    const page = `/articles/measuring-ai-crawler-ingest`;
    expect(before.get('robots.txt')).not.toBe(after.get('robots.txt'));
    expect(before.get('llms.txt')).toContain('tdm-licensing');
    expect(after.get('llms.txt')).not.toContain('tdm-licensing');
    expect(after.get('policy.json')).toContain(page);
    // and every document states what the new manifest states
    await expectAgreement();

    // When the editor allows inference on that fragment again (a page whose fragments' usage
    // loosens: the page's usage is folded anew, not with what it was)
    const again = await draftOf('measuring-ai-crawler-ingest');
    await documents.update({
      documentId: again.documentId,
      locale: 'en',
      data: { sitemapAi: { ...(again.sitemapAi ?? {}), fragments: {} } },
    });
    await documents.publish({ documentId: again.documentId, locale: 'en' });
    await app.strapi.plugin('sitemap-ai').service('tracker').flush();
    await app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
    // Then the documents follow (robots.txt lets inference crawlers read that page again)
    const loosened = await served();
    expect(loosened.get('robots.txt')).not.toBe(after.get('robots.txt'));
    await expectAgreement();

    // and an instance started now, which reads every item, serves the very same documents
    const database = app.database;
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, {
      database,
      env: { SITEMAP_AI_SITEMAP_URLS_PER_FILE: String(URLS_PER_FILE) },
    });
    const restarted = await served();
    for (const [doc, text] of loosened) expect(restarted.get(doc), doc).toBe(text);
  });

  it('keeps one frozen usage object per distinct usage across the pages it lists', async () => {
    const discovery = app.strapi.plugin('sitemap-ai').service('discovery') as {
      policyDocument(): Promise<{
        index: { pages: { usage: object; pathUsage: object; license: string }[] };
      }>;
    };
    const { index } = await discovery.policyDocument();
    expect(index.pages.length).toBeGreaterThan(3);
    const byKey = new Map<string, object>();
    for (const page of index.pages)
      for (const usage of [page.usage, page.pathUsage]) {
        expect(Object.isFrozen(usage)).toBe(true);
        const key = JSON.stringify(usage);
        if (!byKey.has(key)) byKey.set(key, usage);
        expect(usage).toBe(byKey.get(key));
      }
    expect(byKey.size).toBeLessThan(index.pages.length);
  });

  it('answers 304 to a current copy and 4xx to bad requests, changing nothing', async () => {
    for (const doc of [
      'robots.txt',
      'llms.txt',
      'rsl.xml',
      'tdmrep.json',
      'policy.json',
      'sitemap.xml',
    ]) {
      const first = await get(`${API}/${doc}`).expect(200);
      expect(first.headers.etag).toBeTruthy();
      expect(first.headers['cache-control']).toMatch(/max-age/);
      await app.http
        .get(`${API}/${doc}`)
        .set('If-None-Match', String(first.headers.etag))
        .expect(304);
      await get(`${API}/${doc}?limit=1`).expect(400);
    }
    await get(`${API}/sitemap-0.xml`).expect(400);
    await get(`${API}/sitemap-99.xml`).expect(404);
    await get(`${API}/pages/article:no-such-page:en.md`).expect(404);
    await get(`${API}/pages/article:geo-index:en:why-classic-sitemaps-fail.md`).expect(404);
    await get(`${API}/pages/article:geo-index:en:why-classic-sitemaps-fail/jsonld`).expect(404);
    await get(`${API}/pages/${encodeURIComponent('<script>')}.md`).expect(400);
  });

  it('serves the documents at the origin root, and leaves robots.txt to a host app that has its own', async () => {
    for (const [root, plugin] of [
      ['/llms.txt', `${API}/llms.txt`],
      ['/llms-full.txt', `${API}/llms-full.txt`],
      ['/.well-known/tdmrep.json', `${API}/tdmrep.json`],
      ['/sitemap.xml', `${API}/sitemap.xml`],
      ['/robots.txt', `${API}/robots.txt`],
    ] as const) {
      const a = await get(root).expect(200);
      const b = await get(plugin).expect(200);
      expect(a.text, root).toBe(b.text);
      expect(a.headers['content-type']).toBe(b.headers['content-type']);
    }
    const own = path.join(app.strapi.dirs.static.public, 'robots.txt');
    writeFileSync(own, 'User-agent: *\nDisallow: /private/\n');
    try {
      const res = await get('/robots.txt').expect(200);
      expect(res.text).toBe('User-agent: *\nDisallow: /private/\n');
    } finally {
      rmSync(own, { force: true });
    }
  });
});

describe.each(testDatabases().filter((c) => c === 'sqlite'))(
  'root discovery switched off on %s',
  (client) => {
    let app: TestApp;
    beforeAll(async () => {
      app = await bootPlayground(client, { env: { SITEMAP_AI_SERVE_AT_ROOT: 'false' } });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('answers nothing at the root but still serves the documents under the plugin path', async () => {
      for (const root of [
        '/llms.txt',
        '/llms-full.txt',
        '/.well-known/tdmrep.json',
        '/sitemap.xml',
        '/robots.txt',
      ])
        await app.http.get(root).expect(404);
      await app.http.get(`${API}/llms.txt`).expect(200);
    });
  },
);
