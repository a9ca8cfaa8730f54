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
    expect(parsePluginConfig(VALID)).toEqual({
      siteUrl: 'https://example.com',
      siteName: 'Example News',
      defaults: { license: 'https://example.com/license#tdm', usage: {}, embedding: { chunk: 'by_h2', maxTokens: 800 } },
      licenses: [],
      contentTypes: {
        'api::article.article': { enabled: true, pathPattern: '/{locale}/articles/{slug}', schema: [], htmlFields: [] },
      },
      tokenSecret: 'f3c1e9a7b5d2084e6c1a9f7e3d5b2c8a',
      pageSize: { default: 500, max: 1000 },
      snapshotRetention: 10,
      rebuildOnBootstrap: true,
    });
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
    expect(parsePluginConfig({ ...VALID, defaults: { license: 'urn:example:license:tdm-reserved' } }).defaults.license).toBe(
      'urn:example:license:tdm-reserved',
    );
  });
});

describe('parsePluginConfig — bad values name their key', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['siteUrl is ftp', { ...VALID, siteUrl: 'ftp://example.com' }, 'siteUrl', /absolute http\(s\) URL/],
    ['siteUrl is relative', { ...VALID, siteUrl: '/blog' }, 'siteUrl', /absolute http\(s\) URL/],
    ['siteUrl has a query', { ...VALID, siteUrl: 'https://example.com/?utm=x' }, 'siteUrl', /query string or fragment/],
    ['siteUrl is missing', { defaults: VALID.defaults }, 'siteUrl', /expected string/],
    ['an unknown top-level key', { ...VALID, sitemapUrl: 'https://example.com' }, 'sitemapUrl', /unknown key/],
    ['an unknown nested key', { ...VALID, defaults: { license: 'https://x.org/l', licence: 'typo' } }, 'defaults.licence', /unknown key/],
    ['a malformed content-type UID', { ...VALID, contentTypes: { article: { pathPattern: '/{slug}' } } }, 'contentTypes.article', /content-type UID/],
    ['an uppercase UID', { ...VALID, contentTypes: { 'api::Article.article': { pathPattern: '/{slug}' } } }, 'contentTypes["api::Article.article"]', /content-type UID/],
    ['a path pattern without placeholder', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/articles/latest' } } }, 'contentTypes["api::article.article"].pathPattern', /placeholder/],
    ['a relative path pattern', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: 'articles/{slug}' } } }, 'contentTypes["api::article.article"].pathPattern', /start with "\/"/],
    ['a path pattern with a fragment', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/a/{slug}#top' } } }, 'contentTypes["api::article.article"].pathPattern', /"#"/],
    ['an invalid usage value', { ...VALID, defaults: { license: 'https://x.org/l', usage: { train: 'yes' } } }, 'defaults.usage.train', /allow/],
    ['an unknown usage kind', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', usage: { scrape: 'allow' } } } }, 'contentTypes["api::article.article"].usage.scrape', /unknown key/],
    ['a short token secret', { ...VALID, tokenSecret: 'changeme' }, 'tokenSecret', /at least 32 characters/],
    ['a page size default above max', { ...VALID, pageSize: { default: 800, max: 500 } }, 'pageSize.default', /must not exceed max/],
    ['a page size max above 1000', { ...VALID, pageSize: { default: 500, max: 5000 } }, 'pageSize.max', /1000/],
    ['a missing default licence', { ...VALID, defaults: {} }, 'defaults.license', /expected string/],
    ['missing defaults', { siteUrl: 'https://example.com' }, 'defaults', /expected object/],
    ['a licence that is not a URI', { ...VALID, defaults: { license: 'CC BY 4.0' } }, 'defaults.license', /absolute URI/],
    ['max tokens too large', { ...VALID, defaults: { license: 'https://x.org/l', embedding: { maxTokens: 100_000 } } }, 'defaults.embedding.maxTokens', /32768/],
    ['an unknown granularity', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', granularity: ['paragraph'] } } }, 'contentTypes["api::article.article"].granularity[0]', /section/],
    ['a lowercase schema type', { ...VALID, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', schema: ['article'] } } }, 'contentTypes["api::article.article"].schema[0]', /schema\.org type/],
    ['a bad locale', { ...VALID, defaultLocale: 'english!' }, 'defaultLocale', /BCP-47/],
    ['zero retention', { ...VALID, snapshotRetention: 0 }, 'snapshotRetention', />=1/],
  ])('Given %s, When parsed, Then ConfigError names %s', (_, raw, key, message) => {
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
