import { z } from 'zod';
import {
  CHUNK_RULES,
  DEFAULT_CHUNK,
  DEFAULT_MAX_TOKENS,
  DEFAULT_SNAPSHOT_RETENTION,
  FRAGMENT_TYPES,
  MAX_TOKENS_LIMIT,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  USAGE_VALUES,
} from './constants';
import { ConfigError } from './errors';
import { isHttpUrl, patternPlaceholders } from './urls';

const httpUrl = z
  .string()
  .refine(isHttpUrl, 'must be an absolute http(s) URL')
  .refine((v) => !/[?#]/.test(v), 'must not contain a query string or fragment')
  .transform((v) => v.replace(/\/+$/, ''));

const licenseUri = z.string().refine((v) => {
  try {
    return new URL(v).protocol.length > 1;
  } catch {
    return false;
  }
}, 'must be an absolute URI (a licence page, e.g. https://example.com/license#tdm)');

const usageValue = z.enum(USAGE_VALUES);
export const usageOverrideSchema = z
  .object({
    train: usageValue.optional(),
    infer: usageValue.optional(),
    cache: usageValue.optional(),
    redistribute: usageValue.optional(),
  })
  .strict();

const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an attribute name');
const maxTokens = z.number().int().min(16).max(MAX_TOKENS_LIMIT);
const stopSequences = z.array(z.string().min(1).max(100)).max(20);
const locale = z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP-47 language tag');

const pathPattern = z
  .string()
  .startsWith('/', 'must start with "/"')
  .refine((v) => !/[\s?#]/.test(v), 'must not contain spaces, "?" or "#"')
  .refine((v) => patternPlaceholders(v).length > 0, 'must contain at least one placeholder such as {slug} or {documentId}');

export const contentTypeConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    pathPattern,
    granularity: z.array(z.enum(FRAGMENT_TYPES)).min(1).optional(),
    chunk: z.enum(CHUNK_RULES).optional(),
    maxTokens: maxTokens.optional(),
    stopSequences: stopSequences.optional(),
    license: licenseUri.optional(),
    usage: usageOverrideSchema.optional(),
    schema: z.array(z.string().regex(/^[A-Z][A-Za-z]+$/, 'must be a schema.org type name')).default([]),
    idPrefix: z.string().regex(/^[a-z][a-z0-9-]{0,59}$/, 'must be lowercase letters, digits and dashes').optional(),
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

const uidKey = z.string().regex(/^(api|plugin)::[a-z0-9-]+\.[a-z0-9-]+$/, 'must be a content-type UID such as api::article.article');

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
            chunk: z.enum(CHUNK_RULES).default(DEFAULT_CHUNK),
            maxTokens: maxTokens.default(DEFAULT_MAX_TOKENS),
            stopSequences: stopSequences.optional(),
          })
          .strict()
          .default({ chunk: DEFAULT_CHUNK, maxTokens: DEFAULT_MAX_TOKENS }),
      })
      .strict(),
    licenses: z.array(z.object({ uri: licenseUri, label: z.string().min(1).max(200) }).strict()).default([]),
    contentTypes: z.record(uidKey, contentTypeConfigSchema).default({}),
    tokenSecret: z.string().min(32, 'must be at least 32 characters').optional(),
    pageSize: z
      .object({
        default: z.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
        max: z.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_MAX),
      })
      .strict()
      .refine((v) => v.default <= v.max, { message: 'default must not exceed max', path: ['default'] })
      .default({ default: PAGE_LIMIT_DEFAULT, max: PAGE_LIMIT_MAX }),
    snapshotRetention: z.number().int().min(1).max(1000).default(DEFAULT_SNAPSHOT_RETENTION),
    rebuildOnBootstrap: z.boolean().default(true),
    rateLimit: z
      .object({
        enabled: z.boolean().default(true),
        max: z.number().int().min(1).max(1_000_000).default(600),
        windowSeconds: z.number().int().min(1).max(86_400).default(60),
      })
      .strict()
      .default({ enabled: true, max: 600, windowSeconds: 60 }),
  })
  .strict();

export type PluginConfig = z.output<typeof pluginConfigSchema>;
export type PluginConfigInput = z.input<typeof pluginConfigSchema>;
export type ContentTypeConfig = z.output<typeof contentTypeConfigSchema>;

function keyPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(String(part)) ? `${index ? '.' : ''}${String(part)}` : `["${String(part)}"]`,
    )
    .join('');
}

/** Parse the plugin config; a bad value throws ConfigError naming its key. */
export function parsePluginConfig(raw: unknown): PluginConfig {
  const result = pluginConfigSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = issue.code === 'unrecognized_keys' ? keyPath([...issue.path, issue.keys[0]!]) : keyPath(issue.path);
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key (allowed keys are listed in the README)`
        : issue.code === 'invalid_key'
          ? // A bad record key (a content-type UID): zod nests the reason the key schema gave.
            (issue.issues[0]?.message ?? issue.message)
          : issue.message;
    throw new ConfigError(key || '(root)', message);
  }
  return result.data;
}
