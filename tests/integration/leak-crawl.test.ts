import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsData } from '../../shared/contracts/admin';
import { superAdminToken } from '../helpers/admin';
import { API, crawl, pathOf } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const MARKERS = require('../../playground/src/seed-data/markers.js') as Record<string, string>;

/**
 * Leak crawl (issue 9, fault suite): every public output — JSON and XML pages, every item, its
 * content and history, the delta from the start, the schema — read whole, before and after a
 * full re-compare and a settings change; none of the seed's canaries (draft-only text, an
 * unpublished edit, private attributes, e-mails, a sensitive entry, a disabled type) may appear.
 */
describe.each(testDatabases().filter((c) => c === 'sqlite'))('a leak crawl on %s', (client) => {
  let app: TestApp;
  let owner: string;

  beforeAll(async () => {
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  async function everything(): Promise<{ text: string; responses: number }> {
    const parts: string[] = [];
    const { items, pages } = await crawl(app.http, { limit: '40' });
    parts.push(JSON.stringify(pages));
    let token: string | null = null;
    do {
      const res: { text: string } = await app.http
        .get(`${API}/manifest.xml`)
        .query({ limit: '40', ...(token ? { page_token: token } : {}) })
        .expect(200);
      parts.push(res.text);
      token = /<next_page_token>([^<]+)<\/next_page_token>/.exec(res.text)?.[1] ?? null;
    } while (token);
    token = null;
    do {
      const res: { text: string; body: { next_page_token: string | null } } = await app.http
        .get(`${API}/delta`)
        .query({ since: '0', limit: '40', ...(token ? { page_token: token } : {}) })
        .expect(200);
      parts.push(res.text);
      token = res.body.next_page_token;
    } while (token);
    for (const item of items) {
      parts.push((await app.http.get(`${API}/fragments/${item.id}`).expect(200)).text);
      parts.push((await app.http.get(pathOf(item.content_url)).buffer(true).expect(200)).text);
      parts.push((await app.http.get(`${API}/fragments/${item.id}/changelog`).expect(200)).text);
    }
    parts.push((await app.http.get(`${API}/schema.json`).expect(200)).text);
    // The discovery documents (issue 10), under the plugin path and at the origin root, with
    // every response header (the policy headers name licences and policy URLs).
    const documents = [
      ...[
        'policy.json',
        'robots.txt',
        'rsl.xml',
        'tdmrep.json',
        'llms.txt',
        'llms-full.txt',
        'sitemap.xml',
      ].map((doc) => `${API}/${doc}`),
      '/llms.txt',
      '/llms-full.txt',
      '/.well-known/tdmrep.json',
      '/sitemap.xml',
      '/robots.txt',
      ...items
        .filter((item) => item.type === 'article')
        .flatMap((item) => [`${API}/pages/${item.id}.md`, `${API}/pages/${item.id}/jsonld`]),
    ];
    for (const url of documents) {
      const res = await app.http.get(url).buffer(true).expect(200);
      parts.push(res.text, JSON.stringify(res.headers));
    }
    return { text: parts.join('\n'), responses: parts.length };
  }

  function expectNoCanary(output: string): void {
    for (const [name, marker] of Object.entries(MARKERS)) {
      expect(output.includes(marker), `${name} leaked`).toBe(false);
    }
    expect(output).not.toMatch(/"(documentId|document_id|sitemapAi|internalNotes|email)"/);
    expect(output).not.toMatch(/internal-memo:|\/admin\/|\/content-manager\//);
    // Nor the address or title of what is not published: a sensitive entry, a never-published draft.
    for (const hidden of [
      'incident-review-staging-manifest',
      'Incident review',
      'draft-only-unannounced-pricing',
      'unannounced pricing',
    ])
      expect(output.includes(hidden), `${hidden} leaked`).toBe(false);
  }

  it('finds no canary in any public output, before and after a re-compare and a settings change', async () => {
    const first = await everything();
    expectNoCanary(first.text);

    await app.strapi
      .plugin('sitemap-ai')
      .service('snapshot-builder')
      .rebuild({ trigger: 'test', full: true });
    const second = await everything();
    expectNoCanary(second.text);

    const auth = { Authorization: `Bearer ${owner}` };
    const data = (await app.http.get('/sitemap-ai/settings').set(auth).expect(200)).body
      .data as SettingsData;
    data.settings.defaults.usage.train = 'allow';
    await app.http.put('/sitemap-ai/settings').set(auth).send(data.settings).expect(200);
    await app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
    const third = await everything();
    expectNoCanary(third.text);
    console.log(
      `[leak crawl] ${Object.keys(MARKERS).length} canaries checked in ${first.responses + second.responses + third.responses} responses`,
    );
  });
});
