/**
 * Signed webhooks and IndexNow pings (docs/protocol.md §8 events): the pure part — event
 * bodies, signatures, retry schedule, IndexNow request bodies. No I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { INDEXNOW_MAX_URLS, WEBHOOK_SIGNATURE_TOLERANCE_SECONDS } from '../../../shared/constants';
import { isHttpUrl } from '../../../shared/urls';

/** docs/protocol.md §8 events: the body of a `manifest.updated` delivery (field names are public contract). */
export interface ManifestUpdatedEvent {
  event: 'manifest.updated';
  snapshot: { id: string; created_at: string };
  /** The snapshot (or time) the previous event announced; `null` for the first one. */
  since: string | null;
  counts: { added: number; changed: number; removed: number };
  delta_url: string;
}

/** A body a subscriber can receive; `ping` is only sent by the Settings "send test event" button. */
export type WebhookEvent = ManifestUpdatedEvent;
export interface PingEvent {
  event: 'ping';
}

export interface ManifestUpdatedEventInput {
  snapshot: { id: string | number; created_at: string };
  since: string | null;
  counts: { added: number; changed: number; removed: number };
  deltaUrl: string;
}

/** The `manifest.updated` body for a published snapshot with changes (docs/protocol.md §8 events). */
export function manifestUpdatedEvent(input: ManifestUpdatedEventInput): ManifestUpdatedEvent {
  return {
    event: 'manifest.updated',
    snapshot: { id: String(input.snapshot.id), created_at: input.snapshot.created_at },
    since: input.since,
    counts: {
      added: input.counts.added,
      changed: input.counts.changed,
      removed: input.counts.removed,
    },
    delta_url: input.deltaUrl,
  };
}

/** The body of a test delivery. */
export function pingEvent(): PingEvent {
  return { event: 'ping' };
}

function hmacHex(secret: string, rawBody: string | Uint8Array, unixSeconds: number): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
}

function assertUnixSeconds(unixSeconds: number): void {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError(
      `unixSeconds must be a non-negative integer (seconds, not milliseconds), got ${unixSeconds}`,
    );
  }
}

/**
 * Value of the `X-Sitemap-AI-Signature` header (docs/protocol.md §8 events):
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the secret>`.
 * Sign the exact bytes that are sent.
 */
export function signPayload(
  secret: string,
  rawBody: string | Uint8Array,
  unixSeconds: number,
): string {
  assertUnixSeconds(unixSeconds);
  return `t=${unixSeconds},v1=${hmacHex(secret, rawBody, unixSeconds)}`;
}

/** Headers longer than this are refused unread (a receiver's input is hostile until verified). */
const SIGNATURE_HEADER_MAX_LENGTH = 1024;

interface ParsedSignature {
  t: number;
  v1: string[];
}

function parseSignatureHeader(header: string): ParsedSignature | null {
  if (header.length === 0 || header.length > SIGNATURE_HEADER_MAX_LENGTH) return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== null || !/^\d{1,12}$/.test(value)) return null;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return null;
      v1.push(value.toLowerCase());
    }
    // Other schemes (a future v2) are ignored, so receivers keep working while both are sent.
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/**
 * Check a received `X-Sitemap-AI-Signature` (for receivers). True only if one
 * of its `v1` values is the HMAC of `"<t>.<raw body>"` with `secret` (compared
 * in constant time) and `t` is within `toleranceSeconds` of `now` (a replayed
 * old delivery is refused). `now` is a Date or unix seconds. Never throws.
 */
export function verifySignature(
  header: string | null | undefined,
  secret: string,
  rawBody: string | Uint8Array,
  now: Date | number,
  toleranceSeconds: number = WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (typeof header !== 'string' || secret.length === 0) return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  const nowSeconds = now instanceof Date ? Math.floor(now.getTime() / 1000) : Math.floor(now);
  if (!Number.isFinite(nowSeconds) || Math.abs(nowSeconds - parsed.t) > toleranceSeconds)
    return false;
  const expected = Buffer.from(hmacHex(secret, rawBody, parsed.t), 'hex');
  let match = false;
  for (const candidate of parsed.v1) {
    // Every candidate is compared (no early exit), each in constant time.
    if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) match = true;
  }
  return match;
}

/**
 * Seconds to wait after failed attempt number `attempt` (1-based): exponential,
 * `base · 2^(attempt − 1)`, capped at `max`. Deterministic; pass `random`
 * (returning [0, 1)) for "equal jitter": a delay in [capped / 2, capped).
 */
export function backoffDelay(
  attempt: number,
  baseSeconds: number,
  maxSeconds: number,
  random?: () => number,
): number {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer ≥ 1, got ${attempt}`);
  if (!(baseSeconds > 0) || !(maxSeconds > 0))
    throw new RangeError('baseSeconds and maxSeconds must be positive');
  const capped = Math.min(maxSeconds, baseSeconds * 2 ** (attempt - 1));
  if (!random) return capped;
  const r = Math.min(Math.max(random(), 0), 1);
  return capped / 2 + (capped / 2) * r;
}

/** docs/protocol.md §8 events, IndexNow: one request body (`POST` JSON to the IndexNow endpoint). */
export interface IndexNowBody {
  host: string;
  key: string;
  keyLocation?: string;
  urlList: string[];
}

export interface IndexNowInput {
  /** The site whose pages changed; only its URLs are submitted (IndexNow refuses others). */
  siteUrl: string;
  key: string;
  keyLocation?: string;
  urls: readonly string[];
}

/**
 * IndexNow request bodies for changed page URLs: de-duplicated, only the
 * site's own http(s) URLs, at most INDEXNOW_MAX_URLS per body. Empty when
 * nothing is left to submit.
 */
export function indexNowBodies(input: IndexNowInput): IndexNowBody[] {
  const host = new URL(input.siteUrl).host;
  const seen = new Set<string>();
  for (const url of input.urls) {
    if (!isHttpUrl(url) || new URL(url).host !== host) continue;
    seen.add(url);
  }
  const urls = [...seen];
  const bodies: IndexNowBody[] = [];
  for (let i = 0; i < urls.length; i += INDEXNOW_MAX_URLS) {
    bodies.push({
      host,
      key: input.key,
      ...(input.keyLocation ? { keyLocation: input.keyLocation } : {}),
      urlList: urls.slice(i, i + INDEXNOW_MAX_URLS),
    });
  }
  return bodies;
}
