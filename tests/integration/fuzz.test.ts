import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePageToken } from '../../server/src/core/page-token';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

/**
 * Generated requests against the booted playground (issue 9, fault suite): whatever the method,
 * path, query, headers, body or page token, the public paths answer no 5xx, every 4xx is a JSON
 * error naming the problem, and nothing the manifest is made of is written. SITEMAP_AI_FUZZ_RUNS
 * sets the number of requests (default 10,000 on SQLite, 2,000 on the other databases).
 */
const TABLES = [
  'plugin::sitemap-ai.snapshot',
  'plugin::sitemap-ai.item-version',
  'plugin::sitemap-ai.fragment-state',
  'plugin::sitemap-ai.blob',
  'plugin::sitemap-ai.text',
  'plugin::sitemap-ai.changelog-entry',
  'plugin::sitemap-ai.alias',
  'plugin::sitemap-ai.dirty-mark',
  'plugin::sitemap-ai.webhook-delivery',
];

interface Request {
  method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: { type: string; data: string };
}

describe.each(testDatabases())('fuzzed requests on %s', (client) => {
  let app: TestApp;
  let ids: string[];
  let tokens: string[];

  beforeAll(async () => {
    app = await bootPlayground(client);
    const first = await app.http.get(`${API}/manifest`).query({ limit: 20 }).expect(200);
    ids = (first.body.items as { id: string }[]).map((i) => i.id);
    const delta = await app.http.get(`${API}/delta`).query({ since: 0, limit: 3 }).expect(200);
    const history = await app.http.get(`${API}/fragments/${ids[0]}/changelog`).query({ limit: 1 });
    const secret = app.strapi.plugin('sitemap-ai').service('config').tokenSecret() as string;
    tokens = [
      first.body.next_page_token as string,
      delta.body.next_page_token as string,
      history.body.next_page_token as string,
      // Signed by us, but of a snapshot that never existed, another filter or feed.
      encodePageToken(
        { snapshot: 999, built: 0, after: '', filters: '', feed: 'manifest' },
        secret,
      ),
      encodePageToken(
        { snapshot: 1, built: 0, after: 'zzz', filters: 'type=faq', feed: 'manifest' },
        secret,
      ),
      encodePageToken({ snapshot: 1, built: 0, after: '9', filters: '', feed: 'delta:0' }, secret),
    ].filter((t): t is string => typeof t === 'string');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers every generated request with no 5xx and a JSON error for each 4xx, writing nothing', async () => {
    const runs = Number(process.env.SITEMAP_AI_FUZZ_RUNS ?? (client === 'sqlite' ? 10_000 : 2_000));
    const counts = async () =>
      Promise.all(TABLES.map((uid) => app.strapi.db.query(uid as never).count({}))) as Promise<
        number[]
      >;
    const before = await counts();

    const tamper = (token: string) =>
      fc.oneof(
        fc.constant(token),
        fc.constant(token.slice(0, Math.max(1, token.length - 5))),
        fc.nat({ max: token.length - 1 }).map((i) => `${token.slice(0, i)}A${token.slice(i + 1)}`),
        fc.constant(`${token.split('.')[0]}.`),
        fc.constant(token.replace('.', '')),
      );
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('0', '1', '-1', '1000', '1001', '1e3', '9999999999', '2147483648', 'NaN'),
      fc.constantFrom('2026-11-30T09:00:00Z', '2026-02-30T00:00:00Z', '0000-01-01T00:00:00Z'),
      fc.constantFrom('section', 'faq', 'SECTION', 'en', 'sk', 'x-klingon', 'en-US-x-y-z-q'),
      fc.constantFrom(...tokens).chain(tamper),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    );
    const key = fc.constantFrom(
      'limit',
      'page_token',
      'type',
      'lang',
      'since',
      'utm_source',
      'limit[0]',
      'filters[id][$eq]',
      '',
    );
    const query = fc.dictionary(key, fc.oneof(value, fc.array(value, { maxLength: 3 })), {
      maxKeys: 4,
    });
    const id = fc.oneof(
      fc.constantFrom(...ids),
      fc.constantFrom(...ids).map((i) => i.toUpperCase()),
      fc.constantFrom(...ids).map((i) => `${i}:nope`),
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
      fc.constantFrom('%00', '..%2F..%2Fetc', 'a'.repeat(300), '%E0%A4%A', ':::'),
    );
    const path = fc.oneof(
      fc.constantFrom('/manifest', '/manifest.json', '/manifest.xml', '/delta', '/schema.json'),
      id.map((i) => `/fragments/${i}`),
      id.map((i) => `/fragments/${i}/content`),
      id.map((i) => `/fragments/${i}/changelog`),
      fc.constantFrom('/fragments', '/fragments/', '/manifest.csv', '/'),
    );
    const request: fc.Arbitrary<Request> = fc.record({
      method: fc.constantFrom(
        'get',
        'get',
        'get',
        'get',
        'head',
        'post',
        'put',
        'patch',
        'delete',
        'options',
      ),
      path,
      query,
      headers: fc.record(
        {
          'If-None-Match': fc.oneof(fc.constant('*'), fc.string({ maxLength: 30 })),
          'User-Agent': fc.constantFrom('GPTBot/1.2', 'ClaudeBot/1.0', 'curl/8', ''),
          Accept: fc.constantFrom('application/json', 'application/xml', '*/*', 'text/html'),
        },
        { requiredKeys: [] },
      ),
      body: fc.option(
        fc.record({
          type: fc.constantFrom(
            'application/json',
            'multipart/form-data; boundary=xyz',
            'multipart/form-data',
            'application/x-www-form-urlencoded',
            'text/plain',
          ),
          data: fc.oneof(
            fc.string({ maxLength: 40 }),
            fc.constant('{"a":'),
            fc.constant('--xyz\r\n'),
          ),
        }),
        { nil: undefined },
      ),
    });

    const histogram = new Map<number, number>();
    const problems: string[] = [];
    const samples = fc.sample(request, { numRuns: runs, seed: 20261201 });
    for (const r of samples) {
      let call = app.http[r.method](`${API}${r.path}`).query(r.query).set(r.headers);
      if (r.body) call = call.set('Content-Type', r.body.type).send(r.body.data);
      const res = await call;
      histogram.set(res.status, (histogram.get(res.status) ?? 0) + 1);
      const label = `${r.method.toUpperCase()} ${r.path} ${JSON.stringify(r.query)}`;
      if (res.status >= 500) problems.push(`${res.status} ${label}: ${res.text.slice(0, 200)}`);
      else if (res.status >= 400 && r.method !== 'head') {
        const error = (res.body as { error?: { name?: string; message?: string } })?.error;
        if (!error?.name || !error.message)
          problems.push(`${res.status} without a JSON error: ${label}`);
      }
      if (problems.length > 20) break;
    }
    const figures = [...histogram.entries()].sort(([a], [b]) => a - b);
    console.log(
      `[fuzz ${client}] ${samples.length} requests; statuses ${figures.map(([s, n]) => `${s}×${n}`).join(', ')}`,
    );
    expect(problems).toEqual([]);
    expect(await counts()).toEqual(before);
  });
});
