import { validate as isCronExpression } from 'node-cron';
import { z } from 'zod';
import {
  DEFAULT_CHUNK,
  DEFAULT_MAX_TOKENS,
  DEFAULT_SNAPSHOT_RETENTION,
  INDEXNOW_DEFAULT_ENDPOINT,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  RATE_LIMIT_STORES,
  WEBHOOK_EVENTS,
  WEBHOOK_SECRET_MIN_LENGTH,
} from '../../../shared/constants';
import {
  ACCESS_LOG_RETENTION_DAYS,
  CRON_MESSAGE,
  DISCOVERY_TEXT_BOUNDS,
  MAX_WEBHOOK_SUBSCRIBERS,
  RATE_LIMIT_BOUNDS,
  chunkSchema,
  contentTypeUidSchema,
  granularitySchema,
  httpUrlSchema,
  licenseUriSchema,
  maxTokensSchema,
  pathPatternSchema,
  fieldIssues,
  settingsFieldName,
  siteUrlSchema,
  usageOverrideSchema,
} from '../../../shared/settings-schema';
import { ConfigError } from './errors';
import { AI_CRAWLER_TOKENS } from './interop';

/*
 * The file config (config/plugins, README › Configuration), checked at start-up. What it shares
 * with Settings — URLs, the licence, path patterns, content-type UIDs, usage, embedding hints
 * and the bounds of rate limit, access log, webhooks and discovery — is built from the Settings
 * rules (shared/settings-schema.ts); a missing or mistyped value keeps zod's own wording.
 */

const httpUrl = siteUrlSchema(z.string()).transform((v) => v.replace(/\/+$/, ''));
const licenseUri = licenseUriSchema(z.string());

/** A whole number within bounds shared with Settings, in zod's wording (`>=1`, `expected int`). */
const wholeNumber = (bounds: { min: number; max: number }) =>
  z.number().int().min(bounds.min).max(bounds.max);

const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an attribute name');
const stopSequences = z.array(z.string().min(1).max(100)).max(20);
const locale = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP-47 language tag');

export const contentTypeConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    pathPattern: pathPatternSchema(z.string()),
    granularity: granularitySchema.optional(),
    chunk: chunkSchema.optional(),
    maxTokens: maxTokensSchema.optional(),
    stopSequences: stopSequences.optional(),
    license: licenseUri.optional(),
    usage: usageOverrideSchema.optional(),
    schema: z
      .array(z.string().regex(/^[A-Z][A-Za-z]+$/, 'must be a schema.org type name'))
      .default([]),
    idPrefix: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,59}$/, 'must be lowercase letters, digits and dashes')
      .optional(),
    slugField: fieldName.optional(),
    titleField: fieldName.optional(),
    summaryField: fieldName.optional(),
    bodyFields: z.array(fieldName).optional(),
    htmlFields: z.array(fieldName).default([]),
    mediaFields: z.array(fieldName).optional(),
    authorField: fieldName.optional(),
    faqHeadings: z.array(z.string().min(1)).optional(),
  })
  .strict();

/** docs/protocol.md §8 events: where signed webhooks go, and how hard delivery is retried. */
const endpointUrl = httpUrlSchema(z.string());
const webhookSubscriberSchema = z
  .object({
    url: endpointUrl,
    secret: z
      .string()
      .min(WEBHOOK_SECRET_MIN_LENGTH, `must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters`),
    events: z
      .array(z.enum(WEBHOOK_EVENTS))
      .min(1)
      .default([...WEBHOOK_EVENTS]),
  })
  .strict();
const WEBHOOKS_DEFAULTS = {
  subscribers: [],
  maxAttempts: 8,
  baseDelaySeconds: 30,
  maxDelaySeconds: 3600,
  timeoutMs: 10_000,
  deliveryLogRetentionDays: 30,
};
const webhooksConfigSchema = z
  .object({
    subscribers: z
      .array(webhookSubscriberSchema)
      .max(MAX_WEBHOOK_SUBSCRIBERS)
      .refine(
        (list) => new Set(list.map((s) => s.url)).size === list.length,
        'each subscriber url must appear only once',
      )
      .default([]),
    maxAttempts: z.number().int().min(1).max(50).default(WEBHOOKS_DEFAULTS.maxAttempts),
    baseDelaySeconds: z.number().int().min(1).max(3600).default(WEBHOOKS_DEFAULTS.baseDelaySeconds),
    maxDelaySeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(WEBHOOKS_DEFAULTS.maxDelaySeconds),
    timeoutMs: z.number().int().min(100).max(120_000).default(WEBHOOKS_DEFAULTS.timeoutMs),
    deliveryLogRetentionDays: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .default(WEBHOOKS_DEFAULTS.deliveryLogRetentionDays),
  })
  .strict()
  .refine((v) => v.baseDelaySeconds <= v.maxDelaySeconds, {
    message: 'must not be smaller than baseDelaySeconds',
    path: ['maxDelaySeconds'],
  })
  .default(WEBHOOKS_DEFAULTS);

/** docs/protocol.md §8 events: the optional IndexNow ping of changed page URLs. */
const indexNowConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    endpoint: endpointUrl.default(INDEXNOW_DEFAULT_ENDPOINT),
    key: z
      .string()
      .regex(/^[A-Za-z0-9-]{8,128}$/, 'must be 8 to 128 characters: letters, digits and dashes')
      .optional(),
    keyLocation: endpointUrl.optional(),
  })
  .strict()
  .refine((v) => !v.enabled || v.key !== undefined, {
    message:
      'required when indexNow.enabled is true: set indexNow.key to the key your site serves at /<key>.txt',
    path: ['key'],
  })
  .default({ enabled: false, endpoint: INDEXNOW_DEFAULT_ENDPOINT });

/**
 * Verified AI agents (docs/protocol.md §7.2): Web Bot Auth key directories and published IP
 * ranges per agent family, how long what they publish is trusted, and the verified tier's limit.
 */
const familyName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'must be an agent family name such as GPTBot');
const AGENTS_DEFAULTS = {
  directories: [],
  ipRanges: [],
  cacheSeconds: 3600,
  requireVerifiedFor: [],
  verifiedRateLimit: { max: 6000, windowSeconds: 60 },
};
const agentsConfigSchema = z
  .object({
    directories: z
      .array(z.object({ family: familyName, url: endpointUrl }).strict())
      .max(50)
      .default([]),
    ipRanges: z
      .array(z.object({ family: familyName, url: endpointUrl }).strict())
      .max(50)
      .default([]),
    cacheSeconds: z.number().int().min(10).max(86_400).default(3600),
    /** Serve fragment content and llms-full.txt only to verified agents (the manifest stays open). */
    requireVerifiedFor: z
      .array(z.enum(['content', 'llms-full']))
      .max(2)
      .default([]),
    verifiedRateLimit: z
      .object({
        max: z.number().int().min(1).max(1_000_000).default(6000),
        windowSeconds: z.number().int().min(1).max(86_400).default(60),
      })
      .strict()
      .default({ max: 6000, windowSeconds: 60 }),
  })
  .strict()
  .default(AGENTS_DEFAULTS);

/** Discovery documents (docs/protocol.md §9): llms.txt text, crawlers named, root serving. */
const DISCOVERY_DEFAULTS = { serveAtRoot: false, optionalTypes: [], sitemapUrlsPerFile: 50_000 };
const discoveryConfigSchema = z
  .object({
    /** Also answer /llms.txt, /llms-full.txt, /sitemap.xml, /robots.txt and /.well-known/tdmrep.json. */
    serveAtRoot: z.boolean().default(false),
    title: z.string().trim().min(1).max(DISCOVERY_TEXT_BOUNDS.title).optional(),
    summary: z.string().trim().min(1).max(DISCOVERY_TEXT_BOUNDS.summary).optional(),
    details: z.string().trim().min(1).max(5000).optional(),
    agents: z
      .array(
        z.enum(AI_CRAWLER_TOKENS as [string, ...string[]], {
          message: `must be one of ${AI_CRAWLER_TOKENS.join(', ')}`,
        }),
      )
      .optional(),
    optionalTypes: z.array(contentTypeUidSchema).default([]),
    sitemapUrlsPerFile: z.number().int().min(1).max(50_000).default(50_000),
  })
  .strict()
  .default(DISCOVERY_DEFAULTS);

/** README "Memory of long builds": a build's old-generation growth before it asks for a full collection. */
const DEFAULT_BUILD_HEAP_BUDGET_MB = 64;

export const pluginConfigSchema = z
  .object({
    siteUrl: httpUrl,
    siteName: z.string().min(1).max(200).optional(),
    apiUrl: httpUrl.optional(),
    mediaUrl: httpUrl.optional(),
    defaultLocale: locale.optional(),
    defaults: z
      .object({
        license: licenseUri,
        usage: usageOverrideSchema.default({}),
        embedding: z
          .object({
            chunk: chunkSchema.default(DEFAULT_CHUNK),
            maxTokens: maxTokensSchema.default(DEFAULT_MAX_TOKENS),
            stopSequences: stopSequences.optional(),
          })
          .strict()
          .default({ chunk: DEFAULT_CHUNK, maxTokens: DEFAULT_MAX_TOKENS }),
      })
      .strict(),
    licenses: z
      .array(z.object({ uri: licenseUri, label: z.string().min(1).max(200) }).strict())
      .default([]),
    contentTypes: z.record(contentTypeUidSchema, contentTypeConfigSchema).default({}),
    tokenSecret: z.string().min(32, 'must be at least 32 characters').optional(),
    pageSize: z
      .object({
        default: z.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
        max: z.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_MAX),
      })
      .strict()
      .refine((v) => v.default <= v.max, {
        message: 'default must not exceed max',
        path: ['default'],
      })
      .default({ default: PAGE_LIMIT_DEFAULT, max: PAGE_LIMIT_MAX }),
    snapshotRetention: z.number().int().min(1).max(1000).default(DEFAULT_SNAPSHOT_RETENTION),
    /** Snapshots younger than this are kept too, so page tokens and `since` stay valid that long. */
    snapshotRetentionHours: z.number().min(0).max(8760).default(24),
    /** How long item histories are kept (README "Storage"). */
    changelogRetention: z
      .object({
        days: z.number().min(0).max(36_500).default(365),
        keepPerItem: z.number().int().min(0).max(1_000).default(20),
        collectEveryMinutes: z.number().int().min(1).max(1_440).default(60),
      })
      .strict()
      .default({ days: 365, keepPerItem: 20, collectEveryMinutes: 60 }),
    rebuildOnBootstrap: z.boolean().default(true),
    /**
     * How far a build lets the heap's old generation grow before it asks for a full garbage
     * collection (README "Memory of long builds"); 0 leaves collections to V8.
     */
    buildHeapBudgetMb: z
      .number()
      .int()
      .min(0)
      .max(65_536)
      .refine((mb) => mb === 0 || mb >= 16, 'must be 0 (off) or at least 16')
      .default(DEFAULT_BUILD_HEAP_BUDGET_MB),
    schedule: z
      .object({
        enabled: z.boolean().default(true),
        cron: z
          .string()
          .refine((v) => isCronExpression(v), CRON_MESSAGE)
          .default('*/15 * * * *'),
      })
      .strict()
      .default({ enabled: true, cron: '*/15 * * * *' }),
    rateLimit: z
      .object({
        enabled: z.boolean().default(true),
        max: wholeNumber(RATE_LIMIT_BOUNDS.max).default(600),
        windowSeconds: wholeNumber(RATE_LIMIT_BOUNDS.windowSeconds).default(60),
      })
      .strict()
      .default({ enabled: true, max: 600, windowSeconds: 60 }),
    /** Where the rate limit's counts are shared between instances (docs/protocol.md "Rate limits"). */
    rateLimitStore: z
      .object({
        kind: z.enum(RATE_LIMIT_STORES).default('database'),
        redisUrl: z
          .string()
          .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
          .optional(),
        keyPrefix: z.string().min(1).max(100).default('sitemap-ai:'),
        syncMs: z.number().int().min(20).max(10_000).default(250),
        /** How long a request may wait for its check against the shared count. */
        waitMs: z.number().int().min(10).max(5_000).default(250),
      })
      .strict()
      .superRefine((store, ctx) => {
        if (store.kind === 'redis' && !store.redisUrl)
          ctx.addIssue({
            code: 'custom',
            path: ['redisUrl'],
            message: 'is required when kind is redis',
          });
      })
      .default({ kind: 'database', keyPrefix: 'sitemap-ai:', syncMs: 250, waitMs: 250 }),
    webhooks: webhooksConfigSchema,
    indexNow: indexNowConfigSchema,
    discovery: discoveryConfigSchema,
    agents: agentsConfigSchema,
    /** README › Observability: the pseudonymised access log of the public routes and how long it is kept. */
    accessLog: z
      .object({
        enabled: z.boolean().default(true),
        retentionDays: wholeNumber(ACCESS_LOG_RETENTION_DAYS).default(
          ACCESS_LOG_RETENTION_DAYS.default,
        ),
      })
      .strict()
      .default({ enabled: true, retentionDays: ACCESS_LOG_RETENTION_DAYS.default }),
  })
  .strict();

export type PluginConfig = z.output<typeof pluginConfigSchema>;
export type PluginConfigInput = z.input<typeof pluginConfigSchema>;
export type ContentTypeConfig = z.output<typeof contentTypeConfigSchema>;
export type WebhooksConfig = PluginConfig['webhooks'];
export type WebhookSubscriberConfig = WebhooksConfig['subscribers'][number];
export type IndexNowConfig = PluginConfig['indexNow'];
export type AccessLogConfig = PluginConfig['accessLog'];
export type DiscoveryConfig = PluginConfig['discovery'];
export type AgentsConfig = PluginConfig['agents'];

/** Parse the plugin config; a bad value throws ConfigError naming its key. */
export function parsePluginConfig(raw: unknown): PluginConfig {
  const result = pluginConfigSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = fieldIssues(result.error.issues)[0]!;
    const key = settingsFieldName(issue.path, { bracketRecordKeys: false });
    const message = issue.unknownKey
      ? 'unknown key (allowed keys are listed in the README)'
      : issue.message;
    throw new ConfigError(key || '(root)', message);
  }
  return result.data;
}
