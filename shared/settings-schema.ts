/**
 * Validation of the site owner's Settings (README › In the admin, issue 4: "validated on both
 * sides with the same rules"). Shared by the server (PUT /sitemap-ai/settings)
 * and the admin's Settings form, so it imports zod and pure constants only —
 * nothing that needs Node. The server checks a little more on top (the cron
 * expression with node-cron, that a content type exists, that its fields can
 * be indexed, that a masked secret has a stored one).
 *
 * The file config (config/plugins, README › Configuration) is built from the same rules: its
 * schema takes the bounds, the UID pattern, the URL, licence and path-pattern rules and the
 * field names from here. Rules that take a base string schema let each side keep its own
 * wording for a missing value (Settings: "is required"; the file config: zod's own).
 */
import { z } from 'zod';
import {
  CHUNK_RULES,
  FRAGMENT_TYPES,
  MAX_TOKENS_LIMIT,
  USAGE_KINDS,
  USAGE_VALUES,
  WEBHOOK_SECRET_MIN_LENGTH,
} from './constants';
import { isAbsoluteUri, isHttpUrl, patternPlaceholders } from './urls';
import type { DiscoverySettings, EditableSettings, SettingsFieldError } from './contracts/admin';

/** What GET /sitemap-ai/settings answers for a webhook secret that is set; a PUT with it keeps the stored one. */
export const SECRET_MASK = '********';

/** Access-log retention in days (README › Observability): bounds and default. */
export const ACCESS_LOG_RETENTION_DAYS = { min: 1, max: 365, default: 30 } as const;

/** Rate limit bounds (requests per window, window length in seconds). */
export const RATE_LIMIT_BOUNDS = {
  max: { min: 1, max: 1_000_000 },
  windowSeconds: { min: 1, max: 86_400 },
} as const;

/** Max tokens of an embedding hint. */
export const MAX_TOKENS_BOUNDS = { min: 16, max: MAX_TOKENS_LIMIT } as const;

/** At most this many webhook subscribers. */
export const MAX_WEBHOOK_SUBSCRIBERS = 50;

/** Lengths of the llms.txt texts (the file config's `discovery` schema has the same bounds). */
export const DISCOVERY_TEXT_BOUNDS = { title: 200, summary: 1000 } as const;

/** At most this many crawler tokens in `discovery.agents`. */
export const MAX_DISCOVERY_AGENTS = 100;

/**
 * A robots.txt product token (RFC 9309 §2.2.1: letters, "-" and "_"). Which tokens are known is
 * the server's list (`SettingsData.crawlers`); the server refuses any other.
 */
export const ROBOTS_PRODUCT_TOKEN = /^[A-Za-z_-]{1,100}$/;

const CRON_ITEM = String.raw`(?:\*|\d{1,2}(?:-\d{1,2})?|[A-Za-z]{3}(?:-[A-Za-z]{3})?)(?:\/\d{1,2})?`;
const CRON_FIELD = `${CRON_ITEM}(?:,${CRON_ITEM})*`;
/**
 * Shape of a node-cron expression: five fields (minute hour day month weekday)
 * or six (seconds first). The server also parses it with node-cron.
 */
export const CRON_PATTERN = new RegExp(`^\\s*${CRON_FIELD}(?:\\s+${CRON_FIELD}){4,5}\\s*$`);

export const CONTENT_TYPE_UID_PATTERN = /^(api|plugin)::[a-z0-9-]+\.[a-z0-9-]+$/;

/** Longest URL or URI accepted anywhere in Settings, the file config and entry metadata. */
export const URL_MAX_LENGTH = 2048;

export const CRON_MESSAGE =
  'must be a cron expression such as */15 * * * * (minutes) or */30 * * * * * (seconds)';

const LICENSE_URI_MESSAGE =
  'must be an absolute URI (a licence page, e.g. https://example.com/license#tdm)';

/** `is required` when the value is missing, `message` otherwise. */
const expect = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message),
});

/** A strict object whose absence or wrong type says so (not zod's "expected object, received …"). */
const record = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.object(shape, expect('must be an object')).strict();

const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .number(expect(message))
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
};

const flag = z.boolean(expect('must be true or false'));

/** An absolute http(s) URL (`base` says how a missing value or another type is worded). */
export const httpUrlSchema = (base = z.string(expect('must be an absolute http(s) URL'))) =>
  base
    .max(URL_MAX_LENGTH, { error: `must be at most ${URL_MAX_LENGTH} characters` })
    .refine(isHttpUrl, { error: 'must be an absolute http(s) URL' });

/** The site's (or API's, or media's) public base URL: http(s), no query string or fragment. */
export const siteUrlSchema = (base?: z.ZodString) =>
  httpUrlSchema(base).refine((v) => !/[?#]/.test(v), {
    error: 'must not contain a query string or fragment',
  });

/** A licence (docs/protocol.md §2): any absolute URI, a licence page or a `urn:`. */
export const licenseUriSchema = (base = z.string(expect(LICENSE_URI_MESSAGE))) =>
  base
    .max(URL_MAX_LENGTH, { error: `must be at most ${URL_MAX_LENGTH} characters` })
    .refine(isAbsoluteUri, { error: LICENSE_URI_MESSAGE });

/** A content type's page path (`/{locale}/articles/{slug}`, README › Configuration). */
export const pathPatternSchema = (
  base = z.string(expect('must be a path such as /articles/{slug}')),
) =>
  base
    .max(300, { error: 'must be at most 300 characters' })
    .refine((v) => v.startsWith('/'), { error: 'must start with "/"' })
    .refine((v) => !/[\s?#]/.test(v), { error: 'must not contain spaces, "?" or "#"' })
    .refine((v) => patternPlaceholders(v).length > 0, {
      error: 'must contain at least one placeholder such as {slug} or {documentId}',
    });

export const contentTypeUidSchema = z.string().regex(CONTENT_TYPE_UID_PATTERN, {
  error: 'must be a content-type UID such as api::article.article',
});

const httpUrl = httpUrlSchema();
const licenseUri = licenseUriSchema();

const usageValue = z.enum(USAGE_VALUES, expect(`must be one of ${USAGE_VALUES.join(', ')}`));
const usage = record(
  Object.fromEntries(USAGE_KINDS.map((k) => [k, usageValue])) as Record<
    (typeof USAGE_KINDS)[number],
    typeof usageValue
  >,
);
/** docs/protocol.md §2: the usage kinds a level of the cascade sets (the others inherit). */
export const usageOverrideSchema = record(
  Object.fromEntries(USAGE_KINDS.map((k) => [k, usageValue.optional()])) as Record<
    (typeof USAGE_KINDS)[number],
    z.ZodOptional<typeof usageValue>
  >,
);
/** docs/protocol.md §1.2 `embedding_hint`: the chunk rule and the token budget. */
export const chunkSchema = z.enum(CHUNK_RULES, expect(`must be one of ${CHUNK_RULES.join(', ')}`));
export const maxTokensSchema = wholeNumber(MAX_TOKENS_BOUNDS.min, MAX_TOKENS_BOUNDS.max);

/** The fragment types a content type is cut into (docs/protocol.md §1). */
export const granularitySchema = z
  .array(
    z.enum(FRAGMENT_TYPES, expect(`must be one of ${FRAGMENT_TYPES.join(', ')}`)),
    expect('must be a list of fragment types'),
  )
  .min(1, { error: 'must name at least one fragment type' })
  .refine((list) => new Set(list).size === list.length, {
    error: 'must not name a fragment type twice',
  });

export const contentTypeSettingsSchema = record({
  enabled: flag,
  pathPattern: pathPatternSchema(),
  granularity: granularitySchema,
  chunk: chunkSchema,
  maxTokens: maxTokensSchema,
  license: licenseUri.optional(),
  usage: usageOverrideSchema.optional(),
});

const secret = z
  .string(expect(`must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters`))
  .max(512, { error: 'must be at most 512 characters' })
  .refine((v) => v === SECRET_MASK || v.length >= WEBHOOK_SECRET_MIN_LENGTH, {
    error: `must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters`,
  });

const subscriber = record({ url: httpUrl, secret });

/** One line of llms.txt: no control characters (line breaks are folded into spaces). */
const documentText = (max: number) =>
  z
    .string(expect('must be text'))
    .max(max, { error: `must be at most ${max} characters` })
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v), {
      error: 'must not contain control characters',
    });

/** The Discovery section of Settings; also the body of POST /sitemap-ai/discovery/preview. */
export const discoverySettingsSchema = record({
  title: documentText(DISCOVERY_TEXT_BOUNDS.title),
  summary: documentText(DISCOVERY_TEXT_BOUNDS.summary),
  agents: z
    .array(
      z
        .string(expect('must be a crawler token such as GPTBot'))
        .regex(ROBOTS_PRODUCT_TOKEN, { error: 'must be a crawler token such as GPTBot' }),
      expect('must be a list of crawler tokens, or null for every known crawler'),
    )
    .max(MAX_DISCOVERY_AGENTS, { error: `must name at most ${MAX_DISCOVERY_AGENTS} crawlers` })
    .refine((list) => new Set(list).size === list.length, {
      error: 'must not name a crawler twice',
    })
    .nullable(),
  serveAtRoot: flag,
});

export const editableSettingsSchema = z
  .object({
    siteUrl: siteUrlSchema(),
    defaults: record({
      license: licenseUri,
      usage,
      embedding: record({ chunk: chunkSchema, maxTokens: maxTokensSchema }),
    }),
    contentTypes: z.record(
      contentTypeUidSchema,
      contentTypeSettingsSchema,
      expect('must be an object keyed by content-type UID'),
    ),
    schedule: record({
      enabled: flag,
      cron: z
        .string(expect('must be a cron expression'))
        .max(200, { error: 'must be at most 200 characters' })
        .regex(CRON_PATTERN, { error: CRON_MESSAGE }),
    }),
    webhooks: record({
      subscribers: z
        .array(subscriber, expect('must be a list of subscribers'))
        .max(MAX_WEBHOOK_SUBSCRIBERS, {
          error: `must have at most ${MAX_WEBHOOK_SUBSCRIBERS} subscribers`,
        })
        .superRefine((list, ctx) => {
          const seen = new Set<string>();
          list.forEach((s, index) => {
            if (seen.has(s.url))
              ctx.addIssue({
                code: 'custom',
                path: [index, 'url'],
                message: 'must appear only once',
              });
            seen.add(s.url);
          });
        }),
    }),
    rateLimit: record({
      enabled: flag,
      max: wholeNumber(RATE_LIMIT_BOUNDS.max.min, RATE_LIMIT_BOUNDS.max.max),
      windowSeconds: wholeNumber(
        RATE_LIMIT_BOUNDS.windowSeconds.min,
        RATE_LIMIT_BOUNDS.windowSeconds.max,
      ),
    }),
    accessLogRetentionDays: wholeNumber(
      ACCESS_LOG_RETENTION_DAYS.min,
      ACCESS_LOG_RETENTION_DAYS.max,
    ),
    discovery: discoverySettingsSchema,
  })
  .strict();

/** Objects whose keys are data (content-type UIDs, fragment ids), written in brackets. */
const RECORDS = new Set(['contentTypes', 'fragments']);

/**
 * `contentTypes["api::article.article"].pathPattern`, `webhooks.subscribers[0].url`: how every
 * message names a field of Settings, of the file config and of entry metadata. With
 * `bracketRecordKeys: false` a data key that reads as a name is written as one
 * (`contentTypes.article`), as the file config names the keys it was given.
 */
export function settingsFieldName(
  path: readonly (string | number)[],
  { bracketRecordKeys = true }: { bracketRecordKeys?: boolean } = {},
): string {
  return path
    .map((raw, index) => {
      const part = String(raw);
      const recordKey = bracketRecordKeys && RECORDS.has(String(path[index - 1] ?? ''));
      if (typeof raw === 'number' || (/^\d+$/.test(part) && !recordKey)) return `[${part}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(part) && !recordKey) return `${index ? '.' : ''}${part}`;
      return `["${part}"]`;
    })
    .join('');
}

/** A field error whose message names the field: `schedule.cron: must be a cron expression …`. */
export function settingsFieldError(
  path: readonly (string | number)[],
  message: string,
): SettingsFieldError {
  const parts = path.map(String);
  return { path: parts, message: `${settingsFieldName(parts) || '(settings)'}: ${message}` };
}

/** One zod issue at the field it is about; `unknownKey`: the field is not in the schema. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
  unknownKey: boolean;
}

/** Zod issues by field: an unknown key at its own path, a bad record key with its nested reason. */
export function fieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue): FieldIssue[] => {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p.description) : p));
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ path: [...path, key], message: '', unknownKey: true }));
    // A bad record key (a content-type UID): the reason is nested.
    if (issue.code === 'invalid_key')
      return [{ path, message: issue.issues[0]?.message ?? issue.message, unknownKey: false }];
    return [{ path, message: issue.message, unknownKey: false }];
  });
}

/**
 * Zod issues as field errors (an unknown key is reported at its own path).
 * `mapPath` renames paths (the server maps config keys to Settings fields).
 */
export function settingsIssues(
  issues: readonly z.core.$ZodIssue[],
  mapPath: (path: (string | number)[]) => (string | number)[] = (path) => path,
): SettingsFieldError[] {
  return fieldIssues(issues).map((issue) =>
    settingsFieldError(mapPath(issue.path), issue.unknownKey ? 'unknown field' : issue.message),
  );
}

export type SettingsValidation =
  { ok: true; value: EditableSettings } | { ok: false; errors: SettingsFieldError[] };

/** Validate a whole Settings body: every bad field is reported, each message naming its field. */
export function validateSettings(raw: unknown): SettingsValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, errors: [settingsFieldError([], 'must be a JSON object')] };
  }
  const result = editableSettingsSchema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data as EditableSettings };
  return { ok: false, errors: settingsIssues(result.error.issues) };
}

export type DiscoverySettingsValidation =
  { ok: true; value: DiscoverySettings } | { ok: false; errors: SettingsFieldError[] };

/**
 * Validate the Discovery section alone (the preview's body): the same rules as in a whole
 * Settings body, each error named at its Settings field (`discovery.title: …`).
 */
export function validateDiscoverySettings(raw: unknown): DiscoverySettingsValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, errors: [settingsFieldError(['discovery'], 'must be a JSON object')] };
  }
  const result = discoverySettingsSchema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data as DiscoverySettings };
  return {
    ok: false,
    errors: settingsIssues(result.error.issues, (path) => ['discovery', ...path]),
  };
}
