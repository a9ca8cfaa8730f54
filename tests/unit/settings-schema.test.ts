/* eslint-disable @typescript-eslint/no-explicit-any -- the tests write deliberately ill-typed values into settings */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EditableSettings } from '../../shared/contracts/admin';
import {
  CRON_PATTERN,
  SECRET_MASK,
  settingsFieldName,
  validateDiscoverySettings,
  validateSettings,
} from '../../shared/settings-schema';

const valid = (): EditableSettings => ({
  siteUrl: 'https://example.com',
  defaults: {
    license: 'https://example.com/license#tdm',
    usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
    embedding: { chunk: 'by_h2', maxTokens: 800 },
  },
  contentTypes: {
    'api::article.article': {
      enabled: true,
      pathPattern: '/{locale}/articles/{slug}',
      granularity: ['section', 'table', 'figure', 'faq', 'dataset'],
      chunk: 'by_h2',
      maxTokens: 800,
    },
    'api::dataset.dataset': {
      enabled: false,
      pathPattern: '/data/{slug}',
      granularity: ['dataset'],
      chunk: 'whole',
      maxTokens: 2000,
      license: 'https://creativecommons.org/licenses/by/4.0/',
      usage: { train: 'allow-with-citation' },
    },
  },
  schedule: { enabled: true, cron: '*/15 * * * *' },
  webhooks: {
    subscribers: [{ url: 'https://hooks.example.org/sitemap', secret: 'whsec_0123456789abcdef' }],
  },
  rateLimit: { enabled: true, max: 600, windowSeconds: 60 },
  accessLogRetentionDays: 30,
  discovery: {
    title: 'Example Research',
    summary: 'Articles and datasets of Example Research.',
    agents: ['GPTBot', 'ClaudeBot', 'PerplexityBot'],
    serveAtRoot: false,
  },
});

/** The field errors of `settings` as `path → message`. */
function errorsOf(settings: unknown): Map<string, string> {
  const result = validateSettings(settings);
  if (result.ok) return new Map();
  return new Map(result.errors.map((e) => [e.path.join('|'), e.message]));
}

function mutate(change: (s: Record<string, any>) => void): Record<string, any> {
  const settings = valid() as unknown as Record<string, any>;
  change(settings);
  return settings;
}

describe('validateSettings (shared by the server and the admin Settings form)', () => {
  it('Given complete valid settings, When validated, Then they pass unchanged', () => {
    const result = validateSettings(valid());
    expect(result).toEqual({ ok: true, value: valid() });
  });

  it('Given a masked webhook secret, When validated, Then it passes (the server swaps in the stored secret)', () => {
    expect(
      validateSettings(mutate((s) => (s.webhooks.subscribers[0].secret = SECRET_MASK))).ok,
    ).toBe(true);
  });

  it.each([
    [
      'siteUrl',
      (s: Record<string, any>) => (s.siteUrl = 'example.com'),
      'siteUrl: must be an absolute http(s) URL',
    ],
    [
      'siteUrl',
      (s: Record<string, any>) => (s.siteUrl = 'https://example.com/?a=1'),
      'siteUrl: must not contain a query string or fragment',
    ],
    [
      'defaults|license',
      (s: Record<string, any>) => (s.defaults.license = 'no licence'),
      'defaults.license: must be an absolute URI',
    ],
    [
      'defaults|usage|train',
      (s: Record<string, any>) => (s.defaults.usage.train = 'maybe'),
      'defaults.usage.train: must be one of allow, deny, allow-with-citation',
    ],
    [
      'defaults|usage|cache',
      (s: Record<string, any>) => delete s.defaults.usage.cache,
      'defaults.usage.cache: is required',
    ],
    [
      'defaults|embedding|chunk',
      (s: Record<string, any>) => (s.defaults.embedding.chunk = 'by_h4'),
      'defaults.embedding.chunk: must be one of by_h2, by_h3, whole',
    ],
    [
      'defaults|embedding|maxTokens',
      (s: Record<string, any>) => (s.defaults.embedding.maxTokens = 10.5),
      'defaults.embedding.maxTokens: must be a whole number from 16 to 32768',
    ],
    [
      'contentTypes|api::article.article|pathPattern',
      (s: Record<string, any>) =>
        (s.contentTypes['api::article.article'].pathPattern = '/articles/'),
      'contentTypes["api::article.article"].pathPattern: must contain at least one placeholder',
    ],
    [
      'contentTypes|api::article.article|pathPattern',
      (s: Record<string, any>) =>
        (s.contentTypes['api::article.article'].pathPattern = 'articles/{slug}'),
      'contentTypes["api::article.article"].pathPattern: must start with "/"',
    ],
    [
      'contentTypes|api::article.article|granularity',
      (s: Record<string, any>) => (s.contentTypes['api::article.article'].granularity = []),
      'contentTypes["api::article.article"].granularity: must name at least one fragment type',
    ],
    [
      'contentTypes|api::article.article|granularity',
      (s: Record<string, any>) =>
        (s.contentTypes['api::article.article'].granularity = ['section', 'section']),
      'contentTypes["api::article.article"].granularity: must not name a fragment type twice',
    ],
    [
      'contentTypes|api::article.article|granularity|0',
      (s: Record<string, any>) =>
        (s.contentTypes['api::article.article'].granularity = ['paragraph']),
      'contentTypes["api::article.article"].granularity[0]: must be one of section, table, figure, faq, dataset',
    ],
    [
      'contentTypes|api::dataset.dataset|usage|train',
      (s: Record<string, any>) => (s.contentTypes['api::dataset.dataset'].usage.train = 'yes'),
      'contentTypes["api::dataset.dataset"].usage.train: must be one of',
    ],
    [
      'contentTypes|api::article.article|enabled',
      (s: Record<string, any>) => (s.contentTypes['api::article.article'].enabled = 'true'),
      'contentTypes["api::article.article"].enabled: must be true or false',
    ],
    [
      'contentTypes|Article',
      (s: Record<string, any>) => (s.contentTypes.Article = s.contentTypes['api::article.article']),
      'contentTypes["Article"]: must be a content-type UID',
    ],
    [
      'schedule|cron',
      (s: Record<string, any>) => (s.schedule.cron = 'every 15 minutes'),
      'schedule.cron: must be a cron expression',
    ],
    [
      'schedule|enabled',
      (s: Record<string, any>) => delete s.schedule.enabled,
      'schedule.enabled: is required',
    ],
    [
      'webhooks|subscribers|0|url',
      (s: Record<string, any>) => (s.webhooks.subscribers[0].url = 'ftp://hooks.example.org'),
      'webhooks.subscribers[0].url: must be an absolute http(s) URL',
    ],
    [
      'webhooks|subscribers|0|secret',
      (s: Record<string, any>) => (s.webhooks.subscribers[0].secret = 'short'),
      'webhooks.subscribers[0].secret: must be at least 16 characters',
    ],
    [
      'webhooks|subscribers|1|url',
      (s: Record<string, any>) => s.webhooks.subscribers.push({ ...s.webhooks.subscribers[0] }),
      'webhooks.subscribers[1].url: must appear only once',
    ],
    [
      'rateLimit|max',
      (s: Record<string, any>) => (s.rateLimit.max = 0),
      'rateLimit.max: must be a whole number from 1 to 1000000',
    ],
    [
      'rateLimit|windowSeconds',
      (s: Record<string, any>) => (s.rateLimit.windowSeconds = '60'),
      'rateLimit.windowSeconds: must be a whole number from 1 to 86400',
    ],
    [
      'accessLogRetentionDays',
      (s: Record<string, any>) => (s.accessLogRetentionDays = 366),
      'accessLogRetentionDays: must be a whole number from 1 to 365',
    ],
    [
      'accessLogRetentionDays',
      (s: Record<string, any>) => (s.accessLogRetentionDays = 0),
      'accessLogRetentionDays: must be a whole number from 1 to 365',
    ],
    ['theme', (s: Record<string, any>) => (s.theme = 'dark'), 'theme: unknown field'],
    ['schedule', (s: Record<string, any>) => delete s.schedule, 'schedule: is required'],
    ['defaults', (s: Record<string, any>) => (s.defaults = 'open'), 'defaults: must be an object'],
    [
      'webhooks|subscribers|0',
      (s: Record<string, any>) => (s.webhooks.subscribers = ['https://hooks.example.org']),
      'webhooks.subscribers[0]: must be an object',
    ],
    [
      'defaults|embedding|stopSequences',
      (s: Record<string, any>) => (s.defaults.embedding.stopSequences = ['\n\n']),
      'defaults.embedding.stopSequences: unknown field',
    ],
    [
      'discovery|title',
      (s: Record<string, any>) => (s.discovery.title = 'T'.repeat(201)),
      'discovery.title: must be at most 200 characters',
    ],
    [
      'discovery|summary',
      (s: Record<string, any>) => (s.discovery.summary = 'S'.repeat(1001)),
      'discovery.summary: must be at most 1000 characters',
    ],
    [
      'discovery|title',
      (s: Record<string, any>) => (s.discovery.title = 'Research\u0000Hub'),
      'discovery.title: must not contain control characters',
    ],
    [
      'discovery|summary',
      (s: Record<string, any>) => (s.discovery.summary = null),
      'discovery.summary: must be text',
    ],
    [
      'discovery|agents|1',
      (s: Record<string, any>) => (s.discovery.agents = ['GPTBot', 'GPTBot\nDisallow: /']),
      'discovery.agents[1]: must be a crawler token such as GPTBot',
    ],
    [
      'discovery|agents|0',
      (s: Record<string, any>) => (s.discovery.agents = ['*']),
      'discovery.agents[0]: must be a crawler token such as GPTBot',
    ],
    [
      'discovery|agents',
      (s: Record<string, any>) => (s.discovery.agents = ['GPTBot', 'GPTBot']),
      'discovery.agents: must not name a crawler twice',
    ],
    [
      'discovery|agents',
      (s: Record<string, any>) => (s.discovery.agents = 'GPTBot'),
      'discovery.agents: must be a list of crawler tokens, or null for every known crawler',
    ],
    [
      'discovery|agents',
      (s: Record<string, any>) =>
        (s.discovery.agents = Array.from(
          { length: 101 },
          (_, i) => `Bot-${String.fromCharCode(97 + (i % 26))}${'x'.repeat(i / 26)}`,
        )),
      'discovery.agents: must name at most 100 crawlers',
    ],
    [
      'discovery|serveAtRoot',
      (s: Record<string, any>) => (s.discovery.serveAtRoot = 'yes'),
      'discovery.serveAtRoot: must be true or false',
    ],
    [
      'discovery|details',
      (s: Record<string, any>) => (s.discovery.details = 'More about us.'),
      'discovery.details: unknown field',
    ],
    ['discovery', (s: Record<string, any>) => delete s.discovery, 'discovery: is required'],
  ])('Given a bad %s, When validated, Then the error names that field', (path, change, message) => {
    const errors = errorsOf(mutate(change));
    expect([...errors.keys()]).toContain(path);
    expect(errors.get(path)!.startsWith(message), errors.get(path)).toBe(true);
  });

  it('Given many bad fields, When validated, Then every one of them is reported', () => {
    const errors = errorsOf(
      mutate((s) => {
        s.siteUrl = '';
        s.defaults.usage.infer = 'always';
        s.contentTypes['api::article.article'].maxTokens = 1_000_000;
        s.schedule.cron = '';
        s.rateLimit.enabled = 1;
        s.accessLogRetentionDays = null;
      }),
    );
    expect([...errors.keys()].sort()).toEqual(
      [
        'accessLogRetentionDays',
        'contentTypes|api::article.article|maxTokens',
        'defaults|usage|infer',
        'rateLimit|enabled',
        'schedule|cron',
        'siteUrl',
      ].sort(),
    );
  });

  it.each([null, [], 'settings', 42])(
    'Given a body that is not an object (%j), When validated, Then one error says so',
    (body) => {
      expect(validateSettings(body)).toEqual({
        ok: false,
        errors: [{ path: [], message: '(settings): must be a JSON object' }],
      });
    },
  );

  it('Given a hostile key, When validated, Then it is an unknown field and nothing reaches the prototype', () => {
    const body = JSON.parse(
      `{"__proto__": {"polluted": true}, ${JSON.stringify(valid()).slice(1)}`,
    ) as object;
    const result = validateSettings(body);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if (result.ok)
      expect((result.value as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('validateDiscoverySettings (the body of the Discovery preview)', () => {
  it('Given every crawler (null), empty texts and line breaks, When validated, Then they pass as sent', () => {
    const section = {
      title: '',
      summary: 'Articles\nand datasets',
      agents: null,
      serveAtRoot: true,
    };
    expect(validateDiscoverySettings(section)).toEqual({ ok: true, value: section });
    expect(validateDiscoverySettings({ ...section, agents: [] }).ok).toBe(true);
  });

  it('Given bad values, When validated, Then each error is named at its Settings field', () => {
    const result = validateDiscoverySettings({
      title: 7,
      summary: 'ok',
      agents: ['Good-Bot', 'bad bot'],
      serveAtRoot: 1,
      extra: true,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.message).sort()).toEqual([
      'discovery.agents[1]: must be a crawler token such as GPTBot',
      'discovery.extra: unknown field',
      'discovery.serveAtRoot: must be true or false',
      'discovery.title: must be text',
    ]);
    expect(result.errors.find((e) => e.message.startsWith('discovery.agents'))!.path).toEqual([
      'discovery',
      'agents',
      '1',
    ]);
  });

  it.each([null, [], 'discovery'])(
    'Given a body that is not an object (%j), When validated, Then one error says so',
    (body) => {
      expect(validateDiscoverySettings(body)).toEqual({
        ok: false,
        errors: [{ path: ['discovery'], message: 'discovery: must be a JSON object' }],
      });
    },
  );
});

describe('CRON_PATTERN', () => {
  it.each([
    '*/15 * * * *',
    '0 3 * * *',
    '*/30 * * * * *',
    '0 0 1 jan mon',
    '0-30/5 8-18 * * 1-5',
    '0,30 * * * *',
  ])('accepts %s', (cron) => {
    expect(CRON_PATTERN.test(cron)).toBe(true);
  });
  it.each(['', '* * * *', '* * * * * * *', 'every minute', '*/15 * * * * ; rm -rf /', '@hourly'])(
    'refuses %j',
    (cron) => {
      expect(CRON_PATTERN.test(cron)).toBe(false);
    },
  );
});

describe('settingsFieldName', () => {
  it('writes paths as a reader would type them', () => {
    expect(settingsFieldName(['contentTypes', 'api::article.article', 'pathPattern'])).toBe(
      'contentTypes["api::article.article"].pathPattern',
    );
    expect(settingsFieldName(['webhooks', 'subscribers', '0', 'secret'])).toBe(
      'webhooks.subscribers[0].secret',
    );
    expect(settingsFieldName(['siteUrl'])).toBe('siteUrl');
  });
});

describe('the module the admin bundle imports', () => {
  it('imports zod and pure shared modules only (nothing that needs Node)', () => {
    const source = readFileSync(
      join(__dirname, '..', '..', 'shared', 'settings-schema.ts'),
      'utf8',
    );
    const imports = [...source.matchAll(/ from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual(['zod', './constants', './urls', './contracts/admin']);
    for (const module of ['constants', 'urls']) {
      const core = readFileSync(join(__dirname, '..', '..', 'shared', `${module}.ts`), 'utf8');
      expect(core, module).not.toMatch(/^import /m);
    }
  });
});
