/**
 * Limits and fixed values of the sitemap-ai manifest. Each names the
 * part of the protocol (docs/protocol.md) it comes from.
 */

/** docs/protocol.md §4 envelopes: the `spec` field of every manifest and delta page. */
export const SPEC_VERSION = 'sitemap-ai/1' as const;

/** XML namespace of the `.xml` serialisation (docs/protocol.md §4). */
export const XML_NAMESPACE = 'urn:sitemap-ai:1' as const;

/** `$id` of the published JSON Schema (docs/protocol.md §4 `schema.json`). */
export const SCHEMA_ID = 'urn:sitemap-ai:schema:manifest:1' as const;

/** docs/protocol.md §4: `limit` default 500, max 1000. */
export const PAGE_LIMIT_DEFAULT = 500;
export const PAGE_LIMIT_MAX = 1000;

/** docs/protocol.md §1.2 `type`. */
export const ITEM_TYPES = ['article', 'section', 'table', 'figure', 'dataset', 'faq'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** docs/protocol.md §1: fragment types (every item type but the page itself). */
export const FRAGMENT_TYPES = ['section', 'table', 'figure', 'faq', 'dataset'] as const;
export type FragmentType = (typeof FRAGMENT_TYPES)[number];

/** docs/protocol.md §2 `usage`: the four kinds of use and their three answers. */
export const USAGE_KINDS = ['train', 'infer', 'cache', 'redistribute'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];
export const USAGE_VALUES = ['allow', 'deny', 'allow-with-citation'] as const;
export type UsageValue = (typeof USAGE_VALUES)[number];

/** docs/protocol.md §1, §1.2 `embedding_hint.chunk`. */
export const CHUNK_RULES = ['by_h2', 'by_h3', 'whole'] as const;

/** Where the rate limit's counts are shared between instances: the site's database, Redis, or memory (one instance). */
export const RATE_LIMIT_STORES = ['database', 'redis', 'memory'] as const;
export type ChunkRule = (typeof CHUNK_RULES)[number];

/** docs/protocol.md §2: `train` is denied until the site owner allows it (deny by default). */
export const DEFAULT_USAGE = {
  train: 'deny',
  infer: 'allow-with-citation',
  cache: 'allow',
  redistribute: 'deny',
} as const satisfies Record<UsageKind, UsageValue>;

/** docs/protocol.md §1, §1.2 `embedding_hint` defaults. */
export const DEFAULT_CHUNK: ChunkRule = 'by_h2';
export const DEFAULT_MAX_TOKENS = 800;
export const MAX_TOKENS_LIMIT = 32_768;

/** docs/protocol.md §1: fragment keys are heading slugs; kept short so ids stay usable in URLs. */
export const FRAGMENT_KEY_MAX_LENGTH = 80;
/** The slug part of a prefixed fragment key (`faq-…`, `table-…`, `dataset-…`): the prefix fits in the 80. */
export const PREFIXED_KEY_SLUG_MAX_LENGTH = 70;
export const ENTRY_KEY_MAX_LENGTH = 100;
/** The type part of an item id (a content type's `idPrefix` or singular name). */
export const TYPE_KEY_MAX_LENGTH = 60;
/** Item ids are stored in a 255-character column. */
export const ITEM_ID_MAX_LENGTH = 255;
/** Separator of the parts of an item id: never produced by a slug. */
export const ID_SEPARATOR = ':';

/** docs/protocol.md §1.2 `checksum`. */
export const CHECKSUM_PREFIX = 'sha256:';

/** docs/protocol.md §3.2: stability = 1 − exp(−m / STABILITY_SCALE_DAYS). */
export const STABILITY_SCALE_DAYS = 30;
/** docs/protocol.md §3.2: revisit_after is derived from m; clamped to this range (days). */
export const REVISIT_MIN_DAYS = 1;
export const REVISIT_MAX_DAYS = 90;
/** Content-change timestamps kept per item for the stability score (bounded). */
export const HISTORY_MAX_LENGTH = 50;

/** Storage: the open end of an item version's snapshot range (`valid_to`). */
export const OPEN_SNAPSHOT = 2_147_483_647;

/** docs/protocol.md §5: snapshots kept (their page tokens answer 410 once collected). */
export const DEFAULT_SNAPSHOT_RETENTION = 10;

/** Rich-text inputs above this size are refused rather than fragmented (docs/protocol.md §7). */
export const MAX_RICH_TEXT_CHARS = 2_000_000;

/** docs/protocol.md §4: changelog entries per page unless `limit` says otherwise. */
export const CHANGELOG_PAGE_DEFAULT = 50;

/** Page tokens: HMAC-SHA256, base64url; bounded so a hostile token cannot cost much. */
export const PAGE_TOKEN_MAX_LENGTH = 1024;
export const PAGE_TOKEN_VERSION = 2;

/**
 * Largest snapshot number and changelog row id a page token may carry: the range of a 32-bit
 * integer column on every database we run on (PostgreSQL's `integer` is the narrowest).
 */
export const TOKEN_POSITION_MAX = 2_147_483_647;

/** Units of time in milliseconds, for retention windows and ages counted in days or hours. */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Plugin id as Strapi knows it. */
export const PLUGIN_ID = 'sitemap-ai' as const;

/** Name of the JSON attribute the plugin adds to enabled content types (README › In the admin). */
export const METADATA_ATTRIBUTE = 'sitemapAi' as const;

/** Default heading texts of a section whose H3s are question/answer pairs (docs/protocol.md §1 `faq`). */
export const DEFAULT_FAQ_HEADINGS = [
  'faq',
  'faqs',
  'frequently asked questions',
  'často kladené otázky',
  'otázky a odpovede',
] as const;

/** docs/protocol.md §8 events: the events a webhook subscriber can receive. */
export const WEBHOOK_EVENTS = ['manifest.updated'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
/** docs/protocol.md §8 events: request headers of a webhook delivery. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Sitemap-AI-Signature' as const;
export const WEBHOOK_DELIVERY_HEADER = 'X-Sitemap-AI-Delivery' as const;
export const WEBHOOK_EVENT_HEADER = 'X-Sitemap-AI-Event' as const;
export const WEBHOOK_USER_AGENT = 'strapi-plugin-sitemap-ai' as const;
/** docs/protocol.md §8 events: how old a signature's `t` may be before a receiver rejects it (replay window). */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;
/** docs/protocol.md §8 events: a subscriber's HMAC secret must be at least this long. */
export const WEBHOOK_SECRET_MIN_LENGTH = 16;
/** docs/protocol.md §8 events: statuses of a stored webhook delivery (the delivery log). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
/** docs/protocol.md §8 events, IndexNow protocol: at most 10,000 URLs per request. */
export const INDEXNOW_MAX_URLS = 10_000;
export const INDEXNOW_DEFAULT_ENDPOINT = 'https://api.indexnow.org/indexnow';
