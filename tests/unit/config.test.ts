import { describe, expect, it } from 'vitest';
import { parsePluginConfig, type PluginConfigInput } from '../../server/src/core/config';
import { ConfigError } from '../../server/src/core/errors';

const VALID: PluginConfigInput = {
  siteUrl: 'https://example.com/',
  siteName: 'Example News',
  defaults: { license: 'https://example.com/license#tdm' },
  contentTypes: { 'api::article.article': { pathPattern: '/{locale}/articles/{slug}' } },
  tokenSecret: 'f3c1e9a7b5d2084e6c1a9f7e3d5b2c8a',
};

function configError(raw: unknown): ConfigError {
  try {
    parsePluginConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parsePluginConfig — valid config', () => {
  it('Given a minimal valid config, When parsed, Then defaults are filled in and the site URL loses its trailing slash', () => {
    const config = parsePluginConfig(VALID);
    expect(config).toMatchObject({
      siteUrl: 'https://example.com',
      siteName: 'Example News',
      licenses: [],
      tokenSecret: 'f3c1e9a7b5d2084e6c1a9f7e3d5b2c8a',
      pageSize: { default: 500, max: 1000 },
      snapshotRetention: 10,
      rebuildOnBootstrap: true,
      buildHeapBudgetMb: 64,
      rateLimit: { enabled: true, max: 600, windowSeconds: 60 },
    });
    expect(config.defaults).toEqual({
      license: 'https://example.com/license#tdm',
      usage: {},
      embedding: { chunk: 'by_h2', maxTokens: 800 },
    });
    expect(config.contentTypes).toEqual({
      'api::article.article': {
        enabled: true,
        pathPattern: '/{locale}/articles/{slug}',
        schema: [],
        htmlFields: [],
      },
    });
    expect(config).not.toHaveProperty('apiUrl');
    expect(config).not.toHaveProperty('defaultLocale');
  });

  it('Given a full config, When parsed, Then every given value is kept', () => {
    const config = parsePluginConfig({
      ...VALID,
      apiUrl: 'https://cms.example.com',
      mediaUrl: 'https://media.example.com/',
      defaultLocale: 'sk',
      defaults: {
        license: 'https://example.com/license#tdm',
        usage: { train: 'allow', redistribute: 'allow-with-citation' },
        embedding: { chunk: 'by_h3', maxTokens: 1200, stopSequences: ['\n## '] },
      },
      licenses: [{ uri: 'https://creativecommons.org/licenses/by/4.0/', label: 'CC BY 4.0' }],
      contentTypes: {
        'api::article.article': {
          pathPattern: '/{locale}/articles/{slug}',
          granularity: ['section', 'faq'],
          chunk: 'whole',
          license: 'https://creativecommons.org/licenses/by-nc/4.0/',
          usage: { cache: 'deny' },
          schema: ['Article', 'NewsArticle'],
          htmlFields: ['legacyBody'],
          faqHeadings: ['Otázky'],
        },
        'plugin::docs.page': { enabled: false, pathPattern: '/docs/{documentId}' },
      },
      pageSize: { default: 200, max: 400 },
    });
    expect(config.mediaUrl).toBe('https://media.example.com');
    expect(config.defaults.usage).toEqual({ train: 'allow', redistribute: 'allow-with-citation' });
    expect(config.contentTypes['api::article.article']!.granularity).toEqual(['section', 'faq']);
    expect(config.contentTypes['plugin::docs.page']!.enabled).toBe(false);
    expect(config.pageSize).toEqual({ default: 200, max: 400 });
  });

  it('Given a URN licence, When parsed, Then any absolute URI is accepted as a licence', () => {
    expect(
      parsePluginConfig({ ...VALID, defaults: { license: 'urn:example:license:tdm-reserved' } })
        .defaults.license,
    ).toBe('urn:example:license:tdm-reserved');
  });
});

describe('parsePluginConfig — bad values name their key', () => {
  it.each<[string, string, unknown, RegExp]>([
    [
      'siteUrl is ftp',
      'siteUrl',
      { ...VALID, siteUrl: 'ftp://example.com' },
      /absolute http\(s\) URL/,
    ],
    ['siteUrl is relative', 'siteUrl', { ...VALID, siteUrl: '/blog' }, /absolute http\(s\) URL/],
    [
      'siteUrl has a query',
      'siteUrl',
      { ...VALID, siteUrl: 'https://example.com/?utm=x' },
      /query string or fragment/,
    ],
    ['siteUrl is missing', 'siteUrl', { defaults: VALID.defaults }, /expected string/],
    [
      'an unknown top-level key',
      'sitemapUrl',
      { ...VALID, sitemapUrl: 'https://example.com' },
      /unknown key/,
    ],
    [
      'an unknown nested key',
      'defaults.licence',
      { ...VALID, defaults: { license: 'https://x.org/l', licence: 'typo' } },
      /unknown key/,
    ],
    [
      'a malformed content-type UID',
      'contentTypes.article',
      { ...VALID, contentTypes: { article: { pathPattern: '/{slug}' } } },
      /content-type UID/,
    ],
    [
      'an uppercase UID',
      'contentTypes["api::Article.article"]',
      { ...VALID, contentTypes: { 'api::Article.article': { pathPattern: '/{slug}' } } },
      /content-type UID/,
    ],
    [
      'a path pattern without placeholder',
      'contentTypes["api::article.article"].pathPattern',
      { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/articles/latest' } } },
      /placeholder/,
    ],
    [
      'a relative path pattern',
      'contentTypes["api::article.article"].pathPattern',
      { ...VALID, contentTypes: { 'api::article.article': { pathPattern: 'articles/{slug}' } } },
      /start with "\/"/,
    ],
    [
      'a path pattern with a fragment',
      'contentTypes["api::article.article"].pathPattern',
      { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/a/{slug}#top' } } },
      /"#"/,
    ],
    [
      'an invalid usage value',
      'defaults.usage.train',
      { ...VALID, defaults: { license: 'https://x.org/l', usage: { train: 'yes' } } },
      /allow/,
    ],
    [
      'an unknown usage kind',
      'contentTypes["api::article.article"].usage.scrape',
      {
        ...VALID,
        contentTypes: {
          'api::article.article': { pathPattern: '/{slug}', usage: { scrape: 'allow' } },
        },
      },
      /unknown key/,
    ],
    [
      'a short token secret',
      'tokenSecret',
      { ...VALID, tokenSecret: 'changeme' },
      /at least 32 characters/,
    ],
    [
      'a page size default above max',
      'pageSize.default',
      { ...VALID, pageSize: { default: 800, max: 500 } },
      /must not exceed max/,
    ],
    [
      'a page size max above 1000',
      'pageSize.max',
      { ...VALID, pageSize: { default: 500, max: 5000 } },
      /1000/,
    ],
    [
      'a missing default licence',
      'defaults.license',
      { ...VALID, defaults: {} },
      /expected string/,
    ],
    ['missing defaults', 'defaults', { siteUrl: 'https://example.com' }, /expected object/],
    [
      'a licence that is not a URI',
      'defaults.license',
      { ...VALID, defaults: { license: 'CC BY 4.0' } },
      /absolute URI/,
    ],
    [
      'max tokens too large',
      'defaults.embedding.maxTokens',
      { ...VALID, defaults: { license: 'https://x.org/l', embedding: { maxTokens: 100_000 } } },
      /32768/,
    ],
    [
      'an unknown granularity',
      'contentTypes["api::article.article"].granularity[0]',
      {
        ...VALID,
        contentTypes: {
          'api::article.article': { pathPattern: '/{slug}', granularity: ['paragraph'] },
        },
      },
      /section/,
    ],
    [
      'a lowercase schema type',
      'contentTypes["api::article.article"].schema[0]',
      {
        ...VALID,
        contentTypes: { 'api::article.article': { pathPattern: '/{slug}', schema: ['article'] } },
      },
      /schema\.org type/,
    ],
    ['a bad locale', 'defaultLocale', { ...VALID, defaultLocale: 'english!' }, /BCP-47/],
    ['zero retention', 'snapshotRetention', { ...VALID, snapshotRetention: 0 }, />=1/],
    ['a zero rate limit', 'rateLimit.max', { ...VALID, rateLimit: { max: 0 } }, />=1/],
    [
      'a heap budget too small to be one',
      'buildHeapBudgetMb',
      { ...VALID, buildHeapBudgetMb: 8 },
      /0 \(off\) or at least 16/,
    ],
    ['a negative heap budget', 'buildHeapBudgetMb', { ...VALID, buildHeapBudgetMb: -1 }, />=0/],
    [
      'a heap budget as text',
      'buildHeapBudgetMb',
      { ...VALID, buildHeapBudgetMb: '64' },
      /expected number/,
    ],
    [
      'a fractional rate window',
      'rateLimit.windowSeconds',
      { ...VALID, rateLimit: { windowSeconds: 1.5 } },
      /expected int/,
    ],
  ])('Given %s, When parsed, Then ConfigError names %s', (_, key, raw, message) => {
    const error = configError(raw);
    expect(error.key).toBe(key);
    expect(error.message).toContain(`sitemap-ai config "${key}"`);
    expect(error.message).toMatch(message);
    expect(error.name).toBe('ConfigError');
  });

  it('Given a config that is not an object, When parsed, Then the root is named', () => {
    expect(configError('https://example.com').key).toBe('(root)');
  });

  it('Given no config at all, When parsed, Then the first missing key is named', () => {
    expect(configError(undefined).key).toBe('siteUrl');
  });
});
