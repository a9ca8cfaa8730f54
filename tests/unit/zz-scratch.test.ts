import { it } from 'vitest';
import * as core from '../../server/src/core';
const base = { siteUrl: 'https://example.com', defaults: { license: 'https://example.com/license#tdm' }, contentTypes: { 'api::article.article': { pathPattern: '/{locale}/articles/{slug}' } } };
it('scratch', () => {
  console.log(JSON.stringify(core.parsePluginConfig(base), null, 1));
  const cases: [string, unknown][] = [
    ['siteUrl ftp', { ...base, siteUrl: 'ftp://example.com' }],
    ['siteUrl rel', { ...base, siteUrl: '/site' }],
    ['siteUrl query', { ...base, siteUrl: 'https://example.com/?a=1' }],
    ['unknown', { ...base, sitemapUrl: 'x' }],
    ['unknown nested', { ...base, defaults: { license: 'https://x.org', licence: 'y' } }],
    ['unknown ct key', { ...base, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', path: '/x' } } }],
    ['uid', { ...base, contentTypes: { 'article': { pathPattern: '/{slug}' } } }],
    ['uid2', { ...base, contentTypes: { 'api::Article.article': { pathPattern: '/{slug}' } } }],
    ['pattern', { ...base, contentTypes: { 'api::article.article': { pathPattern: '/articles/slug' } } }],
    ['pattern2', { ...base, contentTypes: { 'api::article.article': { pathPattern: 'articles/{slug}' } } }],
    ['usage', { ...base, defaults: { license: 'https://x.org', usage: { train: 'yes' } } }],
    ['usage2', { ...base, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', usage: { scrape: 'allow' } } } }],
    ['secret', { ...base, tokenSecret: 'short' }],
    ['pagesize', { ...base, pageSize: { default: 800, max: 500 } }],
    ['pagesize2', { ...base, pageSize: { default: 0 } }],
    ['license missing', { ...base, defaults: {} }],
    ['defaults missing', { siteUrl: 'https://example.com' }],
    ['license bad', { ...base, defaults: { license: 'not a uri' } }],
    ['maxTokens', { ...base, defaults: { license: 'https://x.org', embedding: { maxTokens: 100000 } } }],
    ['granularity', { ...base, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', granularity: ['paragraph'] } } }],
    ['schema', { ...base, contentTypes: { 'api::article.article': { pathPattern: '/{slug}', schema: ['article'] } } }],
    ['null', null],
    ['string', 'abc'],
    ['retention', { ...base, snapshotRetention: 0 }],
    ['stop', { ...base, defaults: { license: 'https://x.org', embedding: { stopSequences: [''] } } }],
  ];
  for (const [name, raw] of cases) {
    try { core.parsePluginConfig(raw); console.log(name, 'OK'); } catch (e) { console.log(name, '→', (e as any).key, '|', (e as Error).message); }
  }
});
