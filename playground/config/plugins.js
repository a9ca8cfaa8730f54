'use strict';

const path = require('path');

const TDM_LICENSE = 'https://example.com/license#tdm';
const CC_BY_4 = 'https://creativecommons.org/licenses/by/4.0/';

module.exports = ({ env }) => ({
  // The plugin under development: the repository root (two levels up from config/).
  'sitemap-ai': {
    enabled: env.bool('SITEMAP_AI_ENABLED', true),
    resolve: path.resolve(__dirname, '..', '..'),
    config: {
      siteUrl: env('SITEMAP_AI_SITE_URL', 'https://example.com'),
      // Where this Strapi answers, so content_url links work in the demo.
      apiUrl: env('SITEMAP_AI_API_URL', `http://localhost:${env.int('PORT', 1337)}`),
      snapshotRetention: env.int('SITEMAP_AI_SNAPSHOT_RETENTION', 10),
      snapshotRetentionHours: env.float('SITEMAP_AI_SNAPSHOT_RETENTION_HOURS', 24),
      changelogRetention: {
        days: env.float('SITEMAP_AI_CHANGELOG_DAYS', 365),
        keepPerItem: env.int('SITEMAP_AI_CHANGELOG_KEEP', 20),
        collectEveryMinutes: env.int('SITEMAP_AI_CHANGELOG_COLLECT_MINUTES', 60),
      },
      rebuildOnBootstrap: env.bool('SITEMAP_AI_REBUILD_ON_BOOTSTRAP', true),
      buildHeapBudgetMb: env.int('SITEMAP_AI_BUILD_HEAP_BUDGET_MB', 64),
      schedule: {
        enabled: env.bool('SITEMAP_AI_SCHEDULE', true),
        cron: env('SITEMAP_AI_CRON', '*/15 * * * *'),
      },
      rateLimit: {
        enabled: env.bool('SITEMAP_AI_RATE_LIMIT', true),
        max: env.int('SITEMAP_AI_RATE_LIMIT_MAX', 600),
        windowSeconds: 60,
      },
      // Counts shared by every instance: the database by default, Redis when SITEMAP_AI_REDIS_URL is set.
      rateLimitStore: {
        kind: env(
          'SITEMAP_AI_RATE_LIMIT_STORE',
          env('SITEMAP_AI_REDIS_URL') ? 'redis' : 'database',
        ),
        ...(env('SITEMAP_AI_REDIS_URL') ? { redisUrl: env('SITEMAP_AI_REDIS_URL') } : {}),
        keyPrefix: env('SITEMAP_AI_REDIS_PREFIX', 'sitemap-ai:'),
        syncMs: env.int('SITEMAP_AI_RATE_LIMIT_SYNC_MS', 250),
        waitMs: env.int('SITEMAP_AI_RATE_LIMIT_WAIT_MS', 250),
      },
      // Signed webhooks (docs/protocol.md §8 events): one subscriber when SITEMAP_AI_WEBHOOK_URL is set.
      webhooks: {
        subscribers: env('SITEMAP_AI_WEBHOOK_URL')
          ? [{ url: env('SITEMAP_AI_WEBHOOK_URL'), secret: env('SITEMAP_AI_WEBHOOK_SECRET', '') }]
          : [],
        baseDelaySeconds: env.int('SITEMAP_AI_WEBHOOK_BASE_DELAY', 30),
      },
      // IndexNow ping of changed page URLs: off unless SITEMAP_AI_INDEXNOW=true (and a key).
      indexNow: {
        enabled: env.bool('SITEMAP_AI_INDEXNOW', false),
        endpoint: env('SITEMAP_AI_INDEXNOW_ENDPOINT', 'https://api.indexnow.org/indexnow'),
        key: env('SITEMAP_AI_INDEXNOW_KEY'),
      },
      // Verified AI agents: Web Bot Auth key directories and published IP ranges (tests set them).
      agents: {
        directories: env.json('SITEMAP_AI_AGENT_DIRECTORIES', []),
        ipRanges: env.json('SITEMAP_AI_AGENT_RANGES', []),
        requireVerifiedFor: env.array('SITEMAP_AI_REQUIRE_VERIFIED', []),
        verifiedRateLimit: {
          max: env.int('SITEMAP_AI_VERIFIED_RATE_LIMIT_MAX', 6000),
          windowSeconds: 60,
        },
      },
      // Discovery documents (llms.txt, robots.txt, RSL, TDMRep, sitemap.xml) also at the origin's root.
      discovery: {
        serveAtRoot: env.bool('SITEMAP_AI_SERVE_AT_ROOT', true),
        summary: 'Articles, guides and datasets of the sitemap-ai playground.',
        optionalTypes: ['api::page.page'],
        sitemapUrlsPerFile: env.int('SITEMAP_AI_SITEMAP_URLS_PER_FILE', 50000),
      },
      defaultLocale: 'en',
      defaults: {
        license: TDM_LICENSE,
        // SITEMAP_AI_TRAIN lets the tests play a site owner who allows training.
        usage: {
          train: env('SITEMAP_AI_TRAIN', 'deny'),
          infer: 'allow-with-citation',
          cache: 'allow',
          redistribute: 'deny',
        },
        embedding: { chunk: 'by_h2', maxTokens: 800 },
      },
      licenses: [
        { uri: TDM_LICENSE, label: 'Example TDM licence (reservation of rights)' },
        { uri: CC_BY_4, label: 'CC BY 4.0' },
      ],
      contentTypes: {
        'api::article.article': {
          enabled: true,
          // SITEMAP_AI_ARTICLE_PATH lets the tests change config/plugins between two starts.
          pathPattern: env('SITEMAP_AI_ARTICLE_PATH', '/{locale}/articles/{slug}'),
          schema: ['Article'],
        },
        'api::page.page': {
          enabled: true,
          pathPattern: '/{locale}/{slug}',
          schema: ['WebPage'],
        },
        'api::guide.guide': {
          enabled: true,
          pathPattern: '/guides/{slug}',
          chunk: 'by_h2',
          maxTokens: 600,
          htmlFields: ['bodyHtml'],
          schema: ['HowTo'],
        },
        'api::dataset.dataset': {
          enabled: true,
          pathPattern: '/data/{slug}',
          license: CC_BY_4,
          usage: { train: 'allow-with-citation' },
          schema: ['Dataset'],
        },
        // api::internal-memo.internal-memo and api::author.author are deliberately NOT enabled:
        // deny by default, so neither may appear in the manifest.
      },
    },
  },
  // The classic sitemap, for the real-site bench only (scripts/bench-site.js, BENCH_WEBTOOLS=1):
  // the figure the plugin's first build is measured against. Bench-only devDependencies.
  ...(env('BENCH_WEBTOOLS') === '1'
    ? {
        webtools: {
          enabled: true,
          resolve: path.dirname(require.resolve('strapi-plugin-webtools/package.json')),
        },
        'webtools-addon-sitemap': {
          enabled: true,
          resolve: path.dirname(require.resolve('webtools-addon-sitemap/package.json')),
          config: { cron: false, autoGenerate: false, limit: 45000, xsl: true },
        },
      }
    : {}),
});
