import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../server/src/core/webhooks';
import type {
  EditableSettings,
  SettingsData,
  SettingsFieldError,
  SettingsUpdateResult,
} from '../../shared/contracts/admin';
import type { ChangelogPage, ManifestItem } from '../../shared/contracts/manifest';
import type { WebhookTestResult } from '../../shared/contracts/webhooks';
import { SECRET_MASK } from '../../shared/settings-schema';
import { loginToken, roleToken, superAdminToken } from '../helpers/admin';
import { API, crawl } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const SECRET = 'whsec_settings_5d1f0a9b3c7e';
const OTHER_SECRET = 'whsec_settings_other_8a2b4c6d';

/** A webhook receiver on 127.0.0.1 that records requests and answers 202. */
function createReceiver() {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202, { 'Content-Type': 'text/plain' });
      res.end('accepted by the test receiver');
    });
  });
  return {
    requests,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/sitemap-ai`;
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe.each(testDatabases())('Settings stored in the database on %s', (client) => {
  let app: TestApp;
  let owner: string;
  let editor: string;
  const receiver = createReceiver();
  let hookUrl: string;

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
  const read = async (): Promise<SettingsData> =>
    (await app.http.get('/sitemap-ai/settings').set(auth(owner)).expect(200)).body
      .data as SettingsData;
  const save = (settings: unknown) =>
    app.http
      .put('/sitemap-ai/settings')
      .set(auth(owner))
      .send(settings as object);
  const config = () => app.strapi.plugin('sitemap-ai').service('config').config();
  const rebuild = () =>
    app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
  const stored = () =>
    app.strapi.store({ type: 'plugin', name: 'sitemap-ai' }).get({ key: 'settings' });

  beforeAll(async () => {
    hookUrl = await receiver.listen();
    app = await bootPlayground(client);
    owner = await superAdminToken(app);
    editor = await roleToken(app, 'strapi-editor', 'editor@example.com');
  });

  afterAll(async () => {
    await app?.close();
    await receiver.close();
  });

  it('answers the effective settings of the file config, the app’s content types and the licences', async () => {
    const data = await read();
    expect(data.updatedAt).toBeNull();
    expect(data.settings.siteUrl).toBe('https://example.com');
    expect(data.settings.defaults).toEqual({
      license: 'https://example.com/license#tdm',
      usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
      embedding: { chunk: 'by_h2', maxTokens: 800 },
    });
    expect(data.settings.contentTypes['api::article.article']).toEqual({
      enabled: true,
      pathPattern: '/{locale}/articles/{slug}',
      granularity: ['section', 'table', 'figure', 'faq', 'dataset'],
      chunk: 'by_h2',
      maxTokens: 800,
    });
    expect(data.settings.contentTypes['api::dataset.dataset']).toMatchObject({
      license: 'https://creativecommons.org/licenses/by/4.0/',
      usage: { train: 'allow-with-citation' },
    });
    expect(data.settings.contentTypes['api::guide.guide']).toMatchObject({ maxTokens: 600 });
    expect(data.settings.accessLogRetentionDays).toBe(30);
    expect(data.settings.schedule).toEqual({ enabled: false, cron: '*/15 * * * *' });
    const uids = data.availableTypes.map((t) => t.uid);
    expect(uids).toEqual(
      expect.arrayContaining([
        'api::article.article',
        'api::page.page',
        'api::guide.guide',
        'api::dataset.dataset',
        'api::internal-memo.internal-memo',
        'api::author.author',
      ]),
    );
    expect(uids.every((uid) => uid.startsWith('api::'))).toBe(true);
    expect(data.availableTypes.find((t) => t.uid === 'api::article.article')).toEqual({
      uid: 'api::article.article',
      displayName: 'Article',
      localized: true,
    });
    expect(data.availableTypes.find((t) => t.uid === 'api::guide.guide')?.localized).toBe(false);
    expect(data.licenses.map((l) => l.uri)).toEqual([
      'https://example.com/license#tdm',
      'https://creativecommons.org/licenses/by/4.0/',
    ]);
  });

  it('stores a PUT on top of the file config, masks secrets in every answer, and every consumer sees the values', async () => {
    const settings = clone((await read()).settings);
    settings.rateLimit.max = 999_999;
    settings.accessLogRetentionDays = 45;
    settings.webhooks.subscribers = [{ url: hookUrl, secret: SECRET }];
    const res = await save(settings).expect(200);
    const body = res.body.data as SettingsUpdateResult;
    expect(body.appliesAt).toBe('next-rebuild');
    expect(body.settings.rateLimit.max).toBe(999_999);
    expect(body.settings.accessLogRetentionDays).toBe(45);
    expect(body.settings.webhooks.subscribers).toEqual([{ url: hookUrl, secret: SECRET_MASK }]);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(Date.parse(body.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(typeof body.updatedBy).toBe('number');

    const again = await read();
    expect(again.settings).toEqual(body.settings);
    expect(again.updatedAt).toBe(body.updatedAt);
    expect(config().rateLimit.max).toBe(999_999);
    expect(config().accessLog.retentionDays).toBe(45);
    expect(config().webhooks.subscribers).toEqual([
      { url: hookUrl, secret: SECRET, events: ['manifest.updated'] },
    ]);
    expect(
      ((await stored()) as { settings: EditableSettings }).settings.webhooks.subscribers[0]!.secret,
    ).toBe(SECRET);
    // Values the Settings do not edit keep their file config.
    expect(config().contentTypes['api::guide.guide']!.htmlFields).toEqual(['bodyHtml']);
    expect(config().snapshotRetention).toBe(10);
  });

  it('keeps the stored secret when the masked value comes back, and refuses a masked secret for a new URL', async () => {
    const settings = clone((await read()).settings);
    expect(settings.webhooks.subscribers[0]!.secret).toBe(SECRET_MASK);
    await save(settings).expect(200);
    expect(config().webhooks.subscribers[0]!.secret).toBe(SECRET);

    const before = await read();
    settings.webhooks.subscribers.push({
      url: 'https://hooks.example.org/other',
      secret: SECRET_MASK,
    });
    const res = await save(settings).expect(400);
    expect(res.body.error.details.errors).toEqual([
      {
        path: ['webhooks', 'subscribers', '1', 'secret'],
        message: expect.stringContaining('webhooks.subscribers[1].secret'),
        name: 'ValidationError',
      },
    ]);
    expect((await read()).updatedAt).toBe(before.updatedAt);
  });

  it('refuses every bad field at once with a 400 naming each, and stores nothing', async () => {
    const before = await read();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deliberately ill-typed values
    const settings = clone(before.settings) as unknown as Record<string, any>;
    settings.siteUrl = 'example.com';
    settings.defaults.usage.train = 'sometimes';
    settings.defaults.embedding.maxTokens = 5;
    settings.contentTypes['api::article.article'].pathPattern = 'articles/{slug}';
    settings.contentTypes['api::article.article'].granularity = [];
    settings.contentTypes['api::page.page'].license = 'not a uri';
    settings.contentTypes['not-a-uid'] = settings.contentTypes['api::page.page'];
    settings.schedule.cron = 'every minute';
    settings.rateLimit.max = 0;
    settings.rateLimit.windowSeconds = '60';
    settings.accessLogRetentionDays = 400;
    settings.webhooks.subscribers = [{ url: 'ftp://hooks.example.org', secret: 'short' }];
    settings.theme = 'dark';
    const res = await save(settings).expect(400);
    expect(res.body.error.name).toBe('ValidationError');
    const errors = res.body.error.details.errors as SettingsFieldError[];
    const expected: [string[], string][] = [
      [['siteUrl'], 'siteUrl'],
      [['defaults', 'usage', 'train'], 'defaults.usage.train'],
      [['defaults', 'embedding', 'maxTokens'], 'defaults.embedding.maxTokens'],
      [
        ['contentTypes', 'api::article.article', 'pathPattern'],
        'contentTypes["api::article.article"].pathPattern',
      ],
      [
        ['contentTypes', 'api::article.article', 'granularity'],
        'contentTypes["api::article.article"].granularity',
      ],
      [['contentTypes', 'api::page.page', 'license'], 'contentTypes["api::page.page"].license'],
      [['contentTypes', 'not-a-uid'], 'contentTypes["not-a-uid"]'],
      [['schedule', 'cron'], 'schedule.cron'],
      [['rateLimit', 'max'], 'rateLimit.max'],
      [['rateLimit', 'windowSeconds'], 'rateLimit.windowSeconds'],
      [['accessLogRetentionDays'], 'accessLogRetentionDays'],
      [['webhooks', 'subscribers', '0', 'url'], 'webhooks.subscribers[0].url'],
      [['webhooks', 'subscribers', '0', 'secret'], 'webhooks.subscribers[0].secret'],
      [['theme'], 'theme'],
    ];
    for (const [path, name] of expected) {
      const error = errors.find((e) => JSON.stringify(e.path) === JSON.stringify(path));
      expect(error, name).toBeDefined();
      expect(error!.message.startsWith(`${name}: `), error!.message).toBe(true);
    }
    expect(res.body.error.message).toContain('schedule.cron');
    const after = await read();
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.settings).toEqual(before.settings);
  });

  it.each([
    [
      'an unknown content type',
      (s: EditableSettings) =>
        void (s.contentTypes['api::nothing.nothing'] = clone(s.contentTypes['api::page.page']!)),
      ['contentTypes', 'api::nothing.nothing'],
    ],
    [
      'a type of a plugin',
      (s: EditableSettings) =>
        void (s.contentTypes['plugin::users-permissions.user'] = clone(
          s.contentTypes['api::page.page']!,
        )),
      ['contentTypes', 'plugin::users-permissions.user'],
    ],
    [
      'a cron node-cron refuses',
      (s: EditableSettings) => void (s.schedule.cron = '99 * * * *'),
      ['schedule', 'cron'],
    ],
    [
      'a path placeholder the type does not have',
      (s: EditableSettings) =>
        void (s.contentTypes['api::author.author'] = {
          enabled: true,
          pathPattern: '/authors/{slug}',
          granularity: ['section'],
          chunk: 'by_h2',
          maxTokens: 800,
        }),
      ['contentTypes', 'api::author.author', 'pathPattern'],
    ],
  ])(
    'refuses %s with a 400 at its field, checked on the server only',
    async (_name, change, path) => {
      const before = await read();
      const settings = clone(before.settings);
      change(settings);
      const res = await save(settings).expect(400);
      expect(res.body.error.details.errors.map((e: SettingsFieldError) => e.path)).toContainEqual(
        path,
      );
      expect((await read()).updatedAt).toBe(before.updatedAt);
    },
  );

  it('refuses a body that is not an object', async () => {
    const res = await save([1, 2]).expect(400);
    expect(res.body.error.message).toContain('"body"');
  });

  it('applies a change of the usage defaults at the next rebuild: a metadata version bump with a changelog saying why', async () => {
    const before = new Map((await crawl(app.http)).items.map((i) => [i.id, i]));
    const page = [...before.values()].find(
      (i) => i.id.startsWith('page:') && i.type === 'article',
    )!;
    const geo = before.get('article:geo-index:en')!;
    expect(page.usage.train).toBe('deny');

    const settings = clone((await read()).settings);
    settings.defaults.usage.train = 'allow';
    await save(settings).expect(200);
    // Nothing public changes before the rebuild.
    expect(
      (await app.http.get(`${API}/fragments/${page.id}`).expect(200)).body.item.usage.train,
    ).toBe('deny');

    const result = await rebuild();
    expect(result.skipped).toBe(false);
    const after = new Map((await crawl(app.http)).items.map((i) => [i.id, i]));
    const changed = after.get(page.id)!;
    expect(changed.usage.train).toBe('allow');
    const [content, meta] = page.version.slice(1).split('.').map(Number) as [number, number];
    expect(changed.version).toBe(`v${content}.${meta + 1}`);
    expect(changed.checksum).toBe(page.checksum);
    // An entry that denies training itself keeps denying it.
    expect(after.get(geo.id)!.usage.train).toBe('deny');
    expect(after.get(geo.id)!.version).toBe(geo.version);
    const log = (await app.http.get(`${API}/fragments/${page.id}/changelog`).expect(200))
      .body as ChangelogPage;
    expect(log.entries[0]!.kind).toBe('metadata');
    expect(log.entries[0]!.desc).toMatch(/^site settings changed: .*usage\.train: deny → allow/);
  });

  it('removes the items of a type disabled in Settings at the next rebuild, and brings them back when enabled again', async () => {
    const guides = (items: ManifestItem[]) => items.filter((i) => i.id.startsWith('guide:'));
    expect(guides((await crawl(app.http)).items).length).toBeGreaterThan(0);

    const settings = clone((await read()).settings);
    settings.contentTypes['api::guide.guide']!.enabled = false;
    await save(settings).expect(200);
    const removed = await rebuild();
    expect(removed.snapshot!.changes.removed).toBeGreaterThan(0);
    expect(guides((await crawl(app.http)).items)).toEqual([]);

    settings.contentTypes['api::guide.guide']!.enabled = true;
    await save(settings).expect(200);
    await rebuild();
    expect(guides((await crawl(app.http)).items).length).toBeGreaterThan(0);
  });

  it('indexes a type that the file config did not enable, without a restart, editors’ values included', async () => {
    const memos = app.strapi.documents('api::internal-memo.internal-memo' as never) as unknown as {
      create(p: object): Promise<{ documentId: string }>;
      publish(p: object): Promise<unknown>;
    };
    const memo = await memos.create({
      data: {
        title: 'Runtime-enabled memo',
        body: '## First\n\nText.',
        sitemapAi: { topics: ['Runtime'] },
      },
    });
    await memos.publish({ documentId: memo.documentId });

    const settings = clone((await read()).settings);
    settings.contentTypes['api::internal-memo.internal-memo'] = {
      enabled: true,
      pathPattern: '/memos/{documentId}',
      granularity: ['section'],
      chunk: 'by_h2',
      maxTokens: 500,
    };
    await save(settings).expect(200);
    const enabled = (await app.http.get('/sitemap-ai/content-types').set(auth(owner)).expect(200))
      .body.data as { uid: string }[];
    expect(enabled.map((t) => t.uid)).toContain('api::internal-memo.internal-memo');
    await rebuild();
    const items = (await crawl(app.http)).items.filter((i) => i.id.startsWith('internal-memo:'));
    const page = items.find(
      (i) => i.url.endsWith(`/memos/${memo.documentId}`) && i.type === 'article',
    );
    expect(page?.topics).toEqual(['Runtime']);
    expect(page?.embedding_hint).toEqual({ chunk: 'by_h2', max_tokens: 500 });

    settings.contentTypes['api::internal-memo.internal-memo']!.enabled = false;
    await save(settings).expect(200);
    await rebuild();
    expect((await crawl(app.http)).items.filter((i) => i.id.startsWith('internal-memo:'))).toEqual(
      [],
    );
  });

  it('keeps the enabled types computed until the Settings change, and computes them again after a save', async () => {
    const service = app.strapi.plugin('sitemap-ai').service('config');
    const original = clone((await read()).settings);
    // Given the enabled types as every publish reads them
    const first = service.enabledTypes() as { uid: string; policy: { maxTokens: number } }[];
    expect(service.enabledTypes()).toBe(first);
    expect(service.trackedUids()).toBe(service.trackedUids());
    const guide = first.find((t) => t.uid === 'api::guide.guide')!;
    // When a save changes one of them
    const settings = clone(original);
    settings.contentTypes['api::guide.guide']!.maxTokens = guide.policy.maxTokens + 100;
    await save(settings).expect(200);
    // Then they are computed again, with the saved value
    const after = service.enabledTypes() as typeof first;
    expect(after).not.toBe(first);
    expect(after.find((t) => t.uid === 'api::guide.guide')!.policy.maxTokens).toBe(
      guide.policy.maxTokens + 100,
    );
    await save(original).expect(200);
    expect(
      (service.enabledTypes() as typeof first).find((t) => t.uid === 'api::guide.guide')!.policy
        .maxTokens,
    ).toBe(guide.policy.maxTokens);
  });

  it('resets the rate limiter with the new limits', async () => {
    const settings = clone((await read()).settings);
    settings.rateLimit = { enabled: true, max: 3, windowSeconds: 60 };
    await save(settings).expect(200);
    for (let i = 0; i < 3; i += 1) await app.http.get(`${API}/schema.json`).expect(200);
    const limited = await app.http.get(`${API}/schema.json`);
    expect(limited.status).toBe(429);
    settings.rateLimit = { enabled: true, max: 999_999, windowSeconds: 60 };
    await save(settings).expect(200);
    await app.http.get(`${API}/schema.json`).expect(200);
  });

  it('restarts the schedule when it changes: a seconds cron ticks, and turning it off stops it', async () => {
    const scheduler = app.strapi.plugin('sitemap-ai').service('scheduler');
    expect(scheduler.isRunning()).toBe(false);
    const ticksBefore = scheduler.ticks() as number;
    const settings = clone((await read()).settings);
    settings.schedule = { enabled: true, cron: '* * * * * *' };
    await save(settings).expect(200);
    expect(scheduler.isRunning()).toBe(true);
    for (let i = 0; i < 40 && scheduler.ticks() === ticksBefore; i += 1)
      await new Promise((r) => setTimeout(r, 250));
    expect(scheduler.ticks()).toBeGreaterThan(ticksBefore);

    settings.schedule = { enabled: false, cron: '* * * * * *' };
    await save(settings).expect(200);
    expect(scheduler.isRunning()).toBe(false);
    const ticksAfter = scheduler.ticks() as number;
    await new Promise((r) => setTimeout(r, 1500));
    expect(scheduler.ticks()).toBe(ticksAfter);
  });

  it('sends a signed test event with the stored secret of a masked URL, or with the secret given', async () => {
    receiver.requests.length = 0;
    const res = await app.http
      .post('/sitemap-ai/webhooks/test')
      .set(auth(owner))
      .send({ url: hookUrl, secret: SECRET_MASK })
      .expect(200);
    const result = res.body.data as WebhookTestResult;
    expect(result).toMatchObject({ status: 202, body: 'accepted by the test receiver' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const pings = () =>
      receiver.requests.filter((r) => (JSON.parse(r.body) as { event: string }).event === 'ping');
    const ping = pings().at(-1)!;
    expect(JSON.parse(ping.body)).toMatchObject({ event: 'ping' });
    expect(
      verifySignature(
        ping.headers['x-sitemap-ai-signature'] as string,
        SECRET,
        ping.body,
        new Date(),
      ),
    ).toBe(true);

    await app.http
      .post('/sitemap-ai/webhooks/test')
      .set(auth(owner))
      .send({ url: hookUrl, secret: OTHER_SECRET })
      .expect(200);
    expect(pings()).toHaveLength(2);
    const second = pings().at(-1)!;
    expect(
      verifySignature(
        second.headers['x-sitemap-ai-signature'] as string,
        OTHER_SECRET,
        second.body,
        new Date(),
      ),
    ).toBe(true);

    const refused = await app.http
      .post('/sitemap-ai/webhooks/test')
      .set(auth(owner))
      .send({ url: 'https://hooks.example.org/unknown', secret: SECRET_MASK });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('"secret"');
    for (const body of [
      { url: 'not a url', secret: OTHER_SECRET },
      { url: hookUrl, secret: 'short' },
      { url: hookUrl },
      { url: hookUrl, secret: OTHER_SECRET, extra: 1 },
    ]) {
      expect(
        (await app.http.post('/sitemap-ai/webhooks/test').set(auth(owner)).send(body)).status,
        JSON.stringify(body),
      ).toBe(400);
    }
  });

  it('refuses an Editor (403) and a request without an admin token (401), and changes nothing', async () => {
    const before = await read();
    expect((await app.http.get('/sitemap-ai/settings').set(auth(editor))).status).toBe(403);
    expect(
      (await app.http.put('/sitemap-ai/settings').set(auth(editor)).send(before.settings)).status,
    ).toBe(403);
    expect(
      (
        await app.http
          .post('/sitemap-ai/webhooks/test')
          .set(auth(editor))
          .send({ url: hookUrl, secret: SECRET_MASK })
      ).status,
    ).toBe(403);
    expect((await app.http.get('/sitemap-ai/settings')).status).toBe(401);
    expect((await app.http.put('/sitemap-ai/settings').send(before.settings)).status).toBe(401);
    expect(
      (await app.http.post('/sitemap-ai/webhooks/test').send({ url: hookUrl, secret: SECRET_MASK }))
        .status,
    ).toBe(401);
    expect((await read()).updatedAt).toBe(before.updatedAt);
  });

  it('follows a value another instance stored under the same updatedAt (a save in the same millisecond)', async () => {
    const before = await read();
    const current = app.strapi.store({ type: 'plugin', name: 'sitemap-ai' });
    const record = (await current.get({ key: 'settings' })) as {
      settings: EditableSettings;
      updatedAt: string;
    };
    expect(record.updatedAt).toBe(before.updatedAt);
    const other = clone(record.settings);
    const flipped = config().defaults.usage.train === 'deny' ? 'allow' : 'deny';
    other.defaults.usage.train = flipped;
    await current.set({ key: 'settings', value: { ...record, settings: other } });
    const after = await read();
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.settings.defaults.usage.train).toBe(flipped);
    expect(config().defaults.usage.train).toBe(flipped);
    // Back to what was stored, again under the same stamp.
    await current.set({ key: 'settings', value: record });
    expect((await read()).settings).toEqual(before.settings);
    expect(config().defaults.usage.train).toBe(before.settings.defaults.usage.train);
  });

  it('ends two saves at once with one stored value, the one this instance applies, and one re-compare', async () => {
    const base = clone((await read()).settings);
    const a = clone(base);
    a.defaults.usage.cache = 'deny';
    a.rateLimit.max = 601;
    const b = clone(base);
    b.defaults.usage.cache = 'allow';
    b.rateLimit.max = 602;
    const [savedA, savedB] = await Promise.all([save(a), save(b)]);
    expect(savedA.status).toBe(200);
    expect(savedB.status).toBe(200);
    const rows = await app.strapi.db
      .query('strapi::core-store')
      .findMany({ where: { key: 'plugin_sitemap-ai_settings' } });
    expect(rows).toHaveLength(1);
    const now = (await read()).settings;
    const winner = now.rateLimit.max === 601 ? a : b;
    expect(now).toEqual(winner);
    expect(config().rateLimit.max).toBe(winner.rateLimit.max);
    expect(config().defaults.usage.cache).toBe(winner.defaults.usage.cache);
    await rebuild();
    expect((await rebuild()).skipped).toBe(true);
  });

  it('keeps the stored settings across a restart', async () => {
    const before = await read();
    await app.close({ keepDatabase: true });
    app = await bootPlayground(client, { database: app.database });
    owner = await loginToken(app);
    const after = await read();
    expect(after.settings).toEqual(before.settings);
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(config().accessLog.retentionDays).toBe(45);
    expect(config().defaults.usage.train).toBe('allow');
  });
});
