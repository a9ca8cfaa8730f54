/**
 * Contract of the admin API (admin JWT + plugin permissions, under /sitemap-ai),
 * shared by the server and the admin panel. Every response is `{ data }`;
 * errors are Strapi's `{ error: { status, name, message, details? } }`.
 */

export type UsageKind = 'train' | 'infer' | 'cache' | 'redistribute';
export type UsageValue = 'allow' | 'deny' | 'allow-with-citation';
export type ChunkRule = 'by_h2' | 'by_h3' | 'whole';
export type FragmentType = 'section' | 'table' | 'figure' | 'faq' | 'dataset';
export type Usage = Record<UsageKind, UsageValue>;

export interface EvidenceLink {
  rel: string;
  url: string;
  title?: string;
}

/** What an editor may set on an entry or on one fragment (README › In the admin); stored in the entry's `sitemapAi` JSON. */
export interface MetadataOverride {
  license?: string;
  usage?: Partial<Usage>;
  evidence?: EvidenceLink[];
  topics?: string[];
  entity_ids?: string[];
  related?: string[];
  stability_pin?: number;
  citation?: { apa?: string; bibtex?: string };
  schema?: string[];
  alt_of?: string;
  exclude?: boolean;
  /** Figures only: resolution and labelled regions of the image (docs/protocol.md §1.2 figure fields). */
  dpi?: number;
  bounding_boxes?: { x: number; y: number; width: number; height: number; label?: string }[];
}

/** The whole `sitemapAi` attribute of an entry. */
export interface EntryMetadata extends MetadataOverride {
  sensitive?: boolean;
  /** "Reason for this change": becomes the changelog `desc` of the next publish. */
  reason?: string;
  /** Per-fragment overrides keyed by fragment id. */
  fragments?: Record<string, MetadataOverride>;
}

/* ------------------------------------------------------------------ */
/* GET /sitemap-ai/entries/:uid/:documentId?locale=xx  (fields.edit)  */
/* ------------------------------------------------------------------ */

/** Where an effective value comes from in the cascade. */
export type PolicySource = 'site' | 'type' | 'entry' | 'fragment';

export interface FragmentPreview {
  /** Item id; per-fragment overrides are stored under it in `sitemapAi.fragments`. */
  id: string;
  /** Fragment key (the anchor), e.g. `why-classic-sitemaps-fail`; `''` for the `article` item (the page itself). */
  key: string;
  type: 'article' | FragmentType;
  title: string;
  url: string;
  checksum: string;
  /** Versus the tracked published state: new, changed (content or metadata), unchanged. */
  state: 'new' | 'changed' | 'unchanged';
  /** The published version, when there is one. */
  published: { version: string; checksum: string } | null;
  /** Effective licence and usage of this fragment with the draft's values. */
  license: string;
  usage: Usage;
  /** Where each effective value comes from (site → type → entry → fragment). Added by the server engineer. */
  sources?: { license: PolicySource; usage: Record<UsageKind, PolicySource> };
  /**
   * Not published with the draft's values: the fragment's override says `exclude`, or the entry is
   * `sensitive`. Listed anyway so the editor can undo it. Added by the server engineer.
   */
  excluded?: boolean;
}

export interface EntryPanelData {
  uid: string;
  documentId: string;
  locale: string | null;
  /** Values inherited from site and content type (what the entry's values override). */
  inherited: {
    license: string;
    usage: Usage;
    sources: { license: PolicySource; usage: Record<UsageKind, PolicySource> };
  };
  /** Licences the site owner configured, for the select. */
  licenses: { uri: string; label: string }[];
  /** Fragments of the saved draft, as they would be published. */
  fragments: FragmentPreview[];
  /** Fragments removed by the draft (published now, gone after publishing). */
  removed: { id: string; title: string }[];
  /** Items that exist in the published manifest of this entry. */
  publishedVersion: string | null;
  /** The draft's `sitemapAi.sensitive`: nothing of the entry is published. Added by the server engineer. */
  sensitive?: boolean;
  /**
   * What the server could not use: stored `sitemapAi` values that do not validate (left out when
   * publishing), or a path pattern the draft cannot fill (then `fragments` is empty). Added by the server engineer.
   */
  problems?: { key: string; message: string }[];
  /**
   * The editor's reason recorded with the last published change of this entry in this locale
   * (trimmed, as the tracker stores it). Publishing the same reason again records an automatic
   * summary instead, so the panel says so. Absent when no reason was recorded yet.
   */
  lastRecordedReason?: string;
}

/* ------------------------------------------------------------------ */
/* GET /sitemap-ai/content-types  (fields.edit)                       */
/* ------------------------------------------------------------------ */

/**
 * A content type enabled for the manifest now (file config ⊕ Settings): where the
 * edit-view panel shows. Answer: `{ data: EnabledContentType[] }`. Added by the server engineer.
 */
export interface EnabledContentType {
  uid: string;
  displayName: string;
  localized: boolean;
}

/* ------------------------------------------------------------------ */
/* GET / PUT /sitemap-ai/settings  (settings.read / settings.update)  */
/* ------------------------------------------------------------------ */

export interface ContentTypeSettings {
  enabled: boolean;
  pathPattern: string;
  granularity: FragmentType[];
  chunk: ChunkRule;
  maxTokens: number;
  license?: string;
  usage?: Partial<Usage>;
}

/**
 * The discovery documents a site owner edits in Settings (docs/protocol.md §9; file config key
 * `discovery`). They change no manifest item: a save applies to the documents at once, without a
 * re-compare. Added by the discovery-admin engineer.
 */
export interface DiscoverySettings {
  /** The H1 of llms.txt and llms-full.txt; `''` means the site name. */
  title: string;
  /** The llms.txt summary line; `''` means the plugin's generated one. */
  summary: string;
  /**
   * robots.txt product tokens of the AI crawlers the robots.txt block names (from
   * `SettingsData.crawlers`); `null` means every crawler the plugin knows, ones added by later
   * versions included.
   */
  agents: string[] | null;
  /** Also answer /llms.txt, /llms-full.txt, /sitemap.xml, /robots.txt and /.well-known/tdmrep.json. */
  serveAtRoot: boolean;
}

/** An AI crawler the robots.txt block can name (the server's list, with its operator and role). */
export interface AiCrawler {
  /** Its robots.txt product token, e.g. `GPTBot`. */
  token: string;
  operator: string;
  /** `training` crawlers follow `usage.train`; `assistant` fetchers follow `usage.infer`. */
  role: 'training' | 'assistant';
}

/** What a site owner edits in Settings; stored in the database on top of the file config. */
export interface EditableSettings {
  siteUrl: string;
  defaults: {
    license: string;
    usage: Usage;
    embedding: { chunk: ChunkRule; maxTokens: number };
  };
  contentTypes: Record<string, ContentTypeSettings>;
  schedule: { enabled: boolean; cron: string };
  webhooks: { subscribers: { url: string; secret: string }[] };
  rateLimit: { enabled: boolean; max: number; windowSeconds: number };
  accessLogRetentionDays: number;
  discovery: DiscoverySettings;
}

export interface SettingsData {
  /** The effective values (file config with the stored values on top). */
  settings: EditableSettings;
  /** Content types of the app that could be indexed (collection and single types of the app). */
  availableTypes: { uid: string; displayName: string; localized: boolean }[];
  licenses: { uri: string; label: string }[];
  /** When the stored values were last changed, and by whom (admin user id). */
  updatedAt: string | null;
  /** Admin user id of the last change (null when never changed or unknown). Added by the server engineer. */
  updatedBy?: number | null;
  /** The AI crawlers `settings.discovery.agents` may name, in robots.txt order. */
  crawlers: AiCrawler[];
}

/**
 * PUT body: the whole EditableSettings. Answer: SettingsData plus `appliesAt: 'next-rebuild'`.
 * A webhook secret sent as `'********'` (SECRET_MASK in shared/settings-schema.ts) keeps the stored secret of that URL.
 */
export type SettingsUpdate = EditableSettings;

/** Answer of PUT /sitemap-ai/settings (`{ data: SettingsUpdateResult }`). Added by the server engineer. */
export interface SettingsUpdateResult extends SettingsData {
  appliesAt: 'next-rebuild';
}

/**
 * One invalid field of a 400 answer (`error.details.errors`), Strapi's shape:
 * `path` as segments (`['contentTypes', 'api::article.article', 'pathPattern']`),
 * `message` naming the field (`contentTypes["api::article.article"].pathPattern: must start with "/"`).
 * Added by the server engineer.
 */
export interface SettingsFieldError {
  path: string[];
  message: string;
}

/* ------------------------------------------------------------------ */
/* POST /sitemap-ai/webhooks/test  (settings.update)                  */
/* ------------------------------------------------------------------ */
export interface WebhookTestRequest {
  url: string;
  /** The secret to sign with; `'********'` means the stored secret of that URL. */
  secret: string;
}

/** Answer: `{ data: WebhookTestResult }` (the receiver's status, body head, duration, or why none came). */
export type { WebhookTestResult } from './webhooks';

/* ------------------------------------------------------------------ */
/* POST /sitemap-ai/discovery/preview  (settings.update)              */
/* ------------------------------------------------------------------ */

/** Body: the Discovery section of the Settings form, saved or not (validated like a PUT). */
export type DiscoveryPreviewRequest = DiscoverySettings;

/**
 * Answer: `{ data: DiscoveryPreview }`, the documents of the current snapshot as they would read
 * with these values (503 before the first snapshot, like the documents themselves).
 */
export interface DiscoveryPreview {
  /** The robots.txt block (what /api/sitemap-ai/robots.txt would answer). */
  robots: string;
  /** llms.txt. */
  llms: string;
  /** rsl.xml and tdmrep.json: they follow the policy, not these fields; shown for the whole picture. */
  rsl: string;
  tdmrep: string;
}

/* ------------------------------------------------------------------ */
/* GET /sitemap-ai/dashboard  (dashboard.read)                        */
/* ------------------------------------------------------------------ */

export interface SnapshotSummary {
  id: string;
  created_at: string;
  item_count: number;
  counts: Record<string, number>;
  changes: { added: number; changed: number; removed: number };
  trigger: string;
  duration_ms: number;
}

/** An item that fails a readiness check, with where to fix it. */
export interface ReadinessFailure {
  itemId: string;
  title: string;
  uid: string;
  documentId: string;
  locale: string | null;
  /** Admin path of the entry's edit view, e.g. /content-manager/collection-types/api::article.article/abc?plugins[i18n][locale]=en */
  editPath: string;
  detail: string;
}

export type ReadinessCheckId =
  | 'required-fields'
  | 'permalinks'
  | 'changelog-90-days'
  | 'evidence'
  | 'embedding-hints'
  | 'delta-and-paging'
  | 'schema-valid'
  | 'policy';

export interface ReadinessCheck {
  id: ReadinessCheckId;
  ok: boolean;
  /** Human summary, e.g. "142 of 153 items (93 %)". */
  summary: string;
  /** At most 50 failing items. */
  failures: ReadinessFailure[];
  failureCount: number;
  /**
   * Problems not tied to one item (the `delta-and-paging` check: what the paging or the delta
   * feed answered wrongly); absent or empty when there are none. Added by the observability engineer.
   */
  problems?: string[];
}

export interface IngestRow {
  agent: string;
  /** Fragment type, or the feed for manifest/delta/schema requests. */
  type: string;
  requests: number;
  ok: number;
  /**
   * Requests of fragments/content where the agent held an older version than the current one
   * (README › Observability drift: its If-None-Match named an older version or checksum). Added by the observability engineer.
   */
  drift?: number;
}

export interface DashboardData {
  snapshots: SnapshotSummary[];
  readiness: ReadinessCheck[];
  /** Share of fragments with at least one evidence link (target ≥ 0.9). */
  evidenceCoverage: number;
  /** Hours from the oldest change not yet in a snapshot to now; 0 when everything is published (target < 24). */
  freshnessHours: number;
  pendingChanges: number;
  dirtyEntries: number;
  /** AI-agent ingest over the access-log retention window. */
  ingest: IngestRow[];
  /** Length of that window in days (the access-log retention). Added by the observability engineer. */
  ingestWindowDays?: number;
  /** When the readiness checklist was computed (it is reused for the same snapshot up to 10 minutes). Added by the observability engineer. */
  readinessCheckedAt?: string;
  /** The snapshot the checklist shown was computed on. */
  readinessSnapshot?: string;
  /**
   * True while the checklist of the current snapshot is still being computed (on a large site it
   * is a crawl of the whole snapshot): `readiness`, `evidenceCoverage` and `readinessCheckedAt`
   * are then of the last checklist computed (`readinessSnapshot`), or empty and 0 before the first.
   */
  readinessComputing?: boolean;
  /** The Strapi instances alive on this database, and whether their config/plugins agrees with this one's. */
  instances?: InstanceSummary[];
  /** The public discovery documents (absolute URLs from `apiUrl`), for the dashboard's links. */
  documents?: DiscoveryDocumentLink[];
}

/** One public discovery document: its file name (`llms.txt`) and absolute URL. */
export interface DiscoveryDocumentLink {
  name: string;
  url: string;
}

export interface InstanceSummary {
  id: string;
  /** The instance that answered this request. */
  self: boolean;
  /** Its config/plugins has the same fingerprint as this instance's. */
  agrees: boolean;
  /** When its presence ends unless it renews it (ISO 8601). */
  expires_at: string;
}

/** A distribution of durations in milliseconds (nearest-rank percentiles). */
export interface DurationDistribution {
  count: number;
  median: number | null;
  p90: number | null;
}

/** GET /sitemap-ai/geo?days=30 (docs/protocol.md §10): the GEO metrics of the last `windowDays`. */
export interface GeoMetrics {
  windowDays: number;
  /** Per agent family: from a published change to its first fetch of the new version. */
  timeToIndex: ({ agent: string } & DurationDistribution)[];
  /** Item fetches asking for an outdated version, per month, against the < 1 % target. */
  drift: { month: string; fetches: number; drift: number; rate: number; target: number }[];
  agents: { agent: string; type: string; requests: number; ok: number; successRatio: number }[];
  daily: { day: string; agent: string; requests: number }[];
  topFragments: { itemId: string; fetches: number }[];
  assistants: { assistant: string; visits: number }[];
  assistantDaily: { day: string; assistant: string; visits: number }[];
  topVisited: { itemId: string; anchor: string | null; visits: number }[];
}

/** A registered agent's API key as the admin lists it (never the key itself). */
export interface AgentKeySummary {
  id: number;
  label: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  /** Its own limit per window; null: the verified agents' limit. */
  rateMax: number | null;
  issuedAt: string;
  revokedAt: string | null;
}

/** POST /sitemap-ai/agents/keys: the new key, shown this once. */
export interface AgentKeyIssued {
  key: string;
  agent: AgentKeySummary;
}
