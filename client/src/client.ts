/**
 * `strapi-plugin-sitemap-ai/client` — the agents' side of the `sitemap-ai/1` protocol
 * (docs/protocol.md): a client for any site that runs the plugin, with no Strapi dependency
 * (Node ≥ 20: global `fetch`, `node:crypto`, `node:fs`).
 *
 * - `SitemapAiClient`: manifest pages and the full walk (§4.1, §5), the delta (§4.2), items,
 *   contents verified against their checksum (§4.4), conditional requests (§6), 429/503 with
 *   `Retry-After` (§7), and `sync()`: delta from a saved `next_since`, a full walk when there is
 *   none or the site answers 410.
 * - `syncMirror()` / `exportSite()`: what the `sitemap-ai` CLI runs — an incremental, resumable
 *   mirror of the contents, and a static copy of the manifest and the discovery documents (§9).
 * - `verifyWebhook()`: the `X-Sitemap-AI-Signature` check of §8 (the same code as
 *   `strapi-plugin-sitemap-ai/webhooks`, bundled into this module).
 *
 * Published as a single module: its declaration file must stand alone, so every type it shows
 * is declared here; the webhook code it imports is bundled in at build time.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { verifySignature } from '../../server/src/core/webhooks';

/* ------------------------------------------------------------------ */
/* Protocol types (docs/protocol.md §1.2, §4)                          */
/* ------------------------------------------------------------------ */

export const SPEC = 'sitemap-ai/1';
export const DEFAULT_PREFIX = '/api/sitemap-ai';
/** §4.1: a page holds at most this many items. */
export const MAX_PAGE_LIMIT = 1000;
/** §8: the header of a signed webhook delivery. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Sitemap-AI-Signature';

export type Usage = Record<'train' | 'infer' | 'cache' | 'redistribute', string>;

/** One manifest item (§1.2). Fields beyond the always-present ones are kept as they came. */
export interface ManifestItem {
  id: string;
  url: string;
  type: string;
  lang: string;
  license: string;
  usage: Usage;
  checksum: string;
  version: string;
  modified: string;
  content_url: string;
  parent?: string;
  title?: string;
  [field: string]: unknown;
}

export interface SnapshotRef {
  id: string;
  created_at: string;
}

export interface ManifestPage {
  spec: string;
  snapshot: SnapshotRef;
  items: ManifestItem[];
  next_page_token: string | null;
}

/** §4.2: an id that went, when, and its successor when it was renamed. */
export interface Tombstone {
  id: string;
  removed_at: string;
  replaced_by?: string;
}

export interface DeltaPage extends ManifestPage {
  since: string;
  removed: Tombstone[];
  next_since: string;
}

export interface ItemAnswer {
  spec: string;
  snapshot: SnapshotRef;
  item: ManifestItem;
  alias?: { requested: string; current: string };
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

export class SitemapAiClientError extends Error {
  override name = 'SitemapAiClientError';
}

/** A response the client does not accept (any status but 200 and an expected 304). */
export class HttpError extends SitemapAiClientError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly url: string,
    /** The `error.message` of a Strapi error body, or the start of the body. */
    readonly detail: string,
  ) {
    super(`${status} from ${url}${detail ? `: ${detail}` : ''}`);
  }
}

/** 410: a page token or a `since` older than the snapshots the site keeps (§4.2, §5). */
export class GoneError extends HttpError {
  override name = 'GoneError';
}

/** The request never got an answer (DNS, connection, timeout). */
export class NetworkError extends SitemapAiClientError {
  override name = 'NetworkError';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
  }
}

/**
 * A content whose SHA-256 is not the checksum it should have (§4.4). `changed` is true when
 * the body matches the checksum the server sent with it: the site published a newer version
 * after the item was read, nothing was corrupted. Otherwise the bytes are not what the site
 * says they are, and must not be used.
 */
export class ChecksumMismatchError extends SitemapAiClientError {
  override name = 'ChecksumMismatchError';
  constructor(
    readonly id: string,
    readonly expected: string,
    readonly actual: string,
    readonly served: string | null,
  ) {
    super(
      `content of ${id} hashes to ${actual}, expected ${expected}` +
        (served && served !== expected ? ` (the server sent it as ${served})` : ''),
    );
  }

  get changed(): boolean {
    return this.served === this.actual;
  }
}

/* ------------------------------------------------------------------ */
/* Pure helpers                                                        */
/* ------------------------------------------------------------------ */

/** `sha256:<hex>` of bytes or of a string's UTF-8 — the form of an item's `checksum` (§1.2). */
export function checksumOf(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/**
 * Throws ChecksumMismatchError unless `content` hashes to `expected`. `served` is the
 * checksum the server sent with the content (`X-Sitemap-AI-Checksum`), if any.
 */
export function verifyChecksum(
  id: string,
  content: string | Uint8Array,
  expected: string,
  served: string | null = null,
): void {
  const actual = checksumOf(content);
  if (actual !== expected.toLowerCase())
    throw new ChecksumMismatchError(id, expected, actual, served);
}

/**
 * Milliseconds a `Retry-After` value asks for (§7): delta-seconds or an HTTP date; `null` when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** `http(s)://host[/path]` → the API base: the prefix is added unless the URL already ends with it. */
export function apiBase(baseUrl: string, prefix: string = DEFAULT_PREFIX): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SitemapAiClientError(`not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SitemapAiClientError(`not an http(s) URL: ${baseUrl}`);
  url.search = '';
  url.hash = '';
  const base = url.toString().replace(/\/+$/, '');
  const cleanPrefix = `/${prefix.replace(/^\/+|\/+$/g, '')}`;
  return cleanPrefix === '/' || base.endsWith(cleanPrefix) ? base : `${base}${cleanPrefix}`;
}

/**
 * The beacon URL that reports a visit arriving from an AI assistant (docs/protocol.md §10), for a
 * site's front end: `landing` is the page the visitor landed on (with its `#anchor`), `referrer`
 * `document.referrer`; the `utm_source` of the landing URL is passed along. The site counts the
 * visit only when the referrer or the utm_source names a known assistant.
 */
export function assistantVisitBeacon(
  baseUrl: string,
  visit: { landing: string; referrer?: string },
): string {
  const landing = new URL(visit.landing);
  const query = new URLSearchParams({ url: landing.href });
  if (visit.referrer) query.set('ref', visit.referrer);
  const utm = landing.searchParams.get('utm_source');
  if (utm) query.set('utm_source', utm.slice(0, 100));
  return `${apiBase(baseUrl)}/beacon?${query.toString()}`;
}

/**
 * Send that beacon (in a browser: `reportAssistantVisit(cms, { landing: location.href, referrer:
 * document.referrer })`). Never throws: a lost beacon must not break a page.
 */
export async function reportAssistantVisit(
  baseUrl: string,
  visit: { landing: string; referrer?: string },
  fetchImpl: FetchLike = (url, init) => fetch(url, init),
): Promise<boolean> {
  try {
    const response = await fetchImpl(assistantVisitBeacon(baseUrl, visit), {
      method: 'GET',
      keepalive: true,
      credentials: 'omit',
    });
    return response.status === 204;
  } catch {
    return false;
  }
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const FILE_NAME_MAX = 180;

/**
 * A file name (without extension) for an item id, safe on every file system and injective:
 * `:` becomes `.`, `[a-z0-9-]` stay, every other byte is `_` + two hex digits (so `_` and `.`
 * in an id never collide with them). Never empty, never starts with `.`, never a reserved
 * Windows name; ids longer than the limit are cut and end in `~` + a hash of the whole id.
 */
export function fileNameForId(id: string): string {
  if (id.length === 0) throw new SitemapAiClientError('an item id cannot be empty');
  let name = '';
  for (const byte of Buffer.from(id.normalize('NFC'), 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[a-z0-9-]/.test(char)) name += char;
    else if (char === ':' && name.length > 0) name += '.';
    else name += `_${byte.toString(16).padStart(2, '0')}`;
  }
  if (WINDOWS_RESERVED.test(name.split('.')[0]!))
    name = `_${name.charCodeAt(0).toString(16)}${name.slice(1)}`;
  if (name.length > FILE_NAME_MAX) {
    const hash = createHash('sha256').update(id).digest('hex').slice(0, 16);
    name = `${name.slice(0, FILE_NAME_MAX - 17)}~${hash}`;
  }
  return name;
}

/**
 * Check a webhook delivery (§8): `header` is `X-Sitemap-AI-Signature`, `rawBody` the exact bytes
 * received. True only when the HMAC matches (constant-time) and its time is within
 * `toleranceSeconds` (300 by default) of `now`. Never throws. The same function as
 * `verifySignature` of `strapi-plugin-sitemap-ai/webhooks`.
 */
export function verifyWebhook(
  header: string | null | undefined,
  secret: string,
  rawBody: string | Uint8Array,
  now: Date | number = new Date(),
  toleranceSeconds?: number,
): boolean {
  return verifySignature(header, secret, rawBody, now, toleranceSeconds);
}

/* ------------------------------------------------------------------ */
/* The HTTP client                                                     */
/* ------------------------------------------------------------------ */

/** What `signRequest` is given: the request about to be sent. */
export interface SignableRequest {
  method: 'GET';
  url: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * Extra headers for a request — the hook for HTTP message signatures such as Web Bot Auth
 * (`Signature`, `Signature-Input`, `Signature-Agent`). The client signs nothing itself; it
 * calls this before every attempt (a retry is signed again).
 */
export type SignRequest = (
  request: SignableRequest,
) => Record<string, string> | Promise<Record<string, string>>;

/** An Ed25519 private key as a JWK (what `crypto.generateKeyPairSync('ed25519')` exports). */
export interface Ed25519PrivateJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  d: string;
}

/**
 * A `signRequest` that signs each request with Web Bot Auth (HTTP Message Signatures, RFC 9421,
 * Ed25519; docs/protocol.md §7.2): `Signature-Agent` names your key directory, the signature
 * covers `@authority` and `signature-agent`, with `keyid` the key's JWK thumbprint, valid for
 * `lifetimeSeconds` (60 by default; sites accept at most a day). The signing is the maintained
 * `web-bot-auth` library's.
 */
export function webBotAuthSigner(options: {
  privateKey: Ed25519PrivateJwk;
  /** Your key directory's origin (or URL), as sites will fetch it. */
  signatureAgent: string;
  lifetimeSeconds?: number;
}): SignRequest {
  const lifetime = (options.lifetimeSeconds ?? 60) * 1000;
  const signer = signerFromJWK(options.privateKey);
  return async (request) => {
    const headers = new Headers(request.headers as Record<string, string>);
    headers.set('Signature-Agent', `"${options.signatureAgent}"`);
    const created = new Date();
    const signed = await signatureHeaders(
      { method: request.method, url: request.url, headers },
      await signer,
      { created, expires: new Date(created.getTime() + lifetime) },
    );
    return {
      'Signature-Agent': `"${options.signatureAgent}"`,
      Signature: signed.Signature,
      'Signature-Input': signed['Signature-Input'],
    };
  };
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface SitemapAiClientOptions {
  /** Where Strapi answers (`https://cms.example.com`) or the full API prefix. */
  baseUrl: string;
  /** API prefix added to `baseUrl` (default `/api/sitemap-ai`). */
  prefix?: string;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  userAgent?: string;
  /** Headers sent with every request (e.g. `From`). */
  headers?: Record<string, string>;
  signRequest?: SignRequest;
  /** Retries of a 429 or 503 (default 3). */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the request fails (default 120 s). */
  maxRetryAfterSeconds?: number;
  /** Timeout of one attempt (default 30 s). */
  timeoutMs?: number;
  /** How the client waits; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Aborts every request in flight and every wait. */
  signal?: AbortSignal;
}

export interface RawAnswer {
  status: 200 | 304;
  url: string;
  headers: Headers;
  /** Empty for a 304. */
  body: Uint8Array;
  etag: string | null;
}

export interface RequestOptions {
  /** An ETag from an earlier answer: sent as `If-None-Match`, a 304 is then an answer. */
  etag?: string | null;
  accept?: string;
}

export type Conditional<T> =
  | { notModified: false; value: T; etag: string | null }
  | { notModified: true; etag: string | null };

export interface ContentAnswer {
  id: string;
  text: string;
  checksum: string;
  etag: string | null;
}

export interface PageQuery {
  limit?: number;
  type?: string;
  lang?: string;
}

/** One step of `sync()`: items to add or update and tombstones to apply, in order. */
export interface SyncBatch {
  mode: 'full' | 'delta';
  snapshot: SnapshotRef;
  items: ManifestItem[];
  removed: Tombstone[];
}

export interface SyncHandler {
  onBatch(batch: SyncBatch): void | Promise<void>;
  /**
   * After a complete full walk: `ids` is every id of the snapshot. Anything held that is not
   * in it is gone (a full walk has no tombstones).
   */
  onFullWalk?(ids: ReadonlySet<string>, snapshot: SnapshotRef): void | Promise<void>;
}

export interface SyncResult {
  mode: 'full' | 'delta';
  /** Save it and pass it as `since` next time. */
  nextSince: string;
  snapshot: SnapshotRef;
  /** True when a delta was asked for and the site answered 410, so a full walk ran. */
  resynced: boolean;
  items: number;
  removed: number;
}

const DEFAULT_USER_AGENT = 'strapi-plugin-sitemap-ai-client/1';
const MAX_FULL_WALK_RESTARTS = 3;
const MAX_PAGES = 1_000_000;

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new SitemapAiClientError('aborted');
}

function defaultSleep(signal: AbortSignal | undefined): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

async function errorDetail(body: Uint8Array): Promise<string> {
  const text = Buffer.from(body).toString('utf8');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

export class SitemapAiClient {
  /** The API base every path is resolved against, e.g. `https://cms.example.com/api/sitemap-ai`. */
  readonly api: string;
  private readonly fetchImpl: FetchLike;
  private readonly options: SitemapAiClientOptions;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: SitemapAiClientOptions) {
    this.options = options;
    this.api = apiBase(options.baseUrl, options.prefix);
    this.fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
    this.sleep = options.sleep ?? defaultSleep(options.signal);
  }

  /** The absolute URL of an API path (`manifest`, `fragments/…`). */
  url(pathAndQuery: string): string {
    return `${this.api}/${pathAndQuery.replace(/^\/+/, '')}`;
  }

  /**
   * GET an API path: 200, or 304 when `etag` was given and still holds. Waits out 429 and 503
   * (their `Retry-After`, else 1, 2, 4 … s) at most `maxRetries` times; any other status
   * throws HttpError (GoneError for 410).
   */
  async get(pathAndQuery: string, options: RequestOptions = {}): Promise<RawAnswer> {
    const url = this.url(pathAndQuery);
    const maxRetries = this.options.maxRetries ?? 3;
    const maxWaitMs = (this.options.maxRetryAfterSeconds ?? 120) * 1000;
    for (let attempt = 0; ; attempt += 1) {
      const headers: Record<string, string> = {
        'User-Agent': this.options.userAgent ?? DEFAULT_USER_AGENT,
        Accept: options.accept ?? 'application/json',
        ...this.options.headers,
      };
      if (options.etag) headers['If-None-Match'] = options.etag;
      if (this.options.signRequest)
        Object.assign(headers, await this.options.signRequest({ method: 'GET', url, headers }));
      const signals = [AbortSignal.timeout(this.options.timeoutMs ?? 30_000)];
      if (this.options.signal) signals.push(this.options.signal);
      let response: Response;
      try {
        response = await this.fetchImpl(url, {
          method: 'GET',
          headers,
          redirect: 'follow',
          signal: AbortSignal.any(signals),
        });
      } catch (error) {
        if (this.options.signal?.aborted) throw abortError(this.options.signal);
        const err = error as {
          name?: string;
          message?: string;
          cause?: { code?: string; message?: string };
        };
        const cause = err?.cause?.code ?? err?.cause?.message;
        const reason =
          err?.name === 'TimeoutError'
            ? `timed out after ${this.options.timeoutMs ?? 30_000} ms`
            : `${err?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
        throw new NetworkError(url, reason);
      }
      const body = new Uint8Array(await response.arrayBuffer());
      const etag = response.headers.get('etag');
      if (response.status === 200)
        return { status: 200, url, headers: response.headers, body, etag };
      if (response.status === 304 && options.etag)
        return { status: 304, url, headers: response.headers, body: new Uint8Array(), etag };
      if ((response.status === 429 || response.status === 503) && attempt < maxRetries) {
        const asked = retryAfterMs(response.headers.get('retry-after'));
        const wait = asked ?? 1000 * 2 ** attempt;
        if (wait <= maxWaitMs) {
          await this.sleep(wait);
          continue;
        }
      }
      const detail = await errorDetail(body);
      if (response.status === 410) throw new GoneError(410, url, detail);
      throw new HttpError(response.status, url, detail);
    }
  }

  private async getJson<T>(pathAndQuery: string, etag?: string | null): Promise<Conditional<T>> {
    const answer = await this.get(pathAndQuery, { etag });
    if (answer.status === 304) return { notModified: true, etag: answer.etag ?? etag ?? null };
    let value: T;
    try {
      value = JSON.parse(Buffer.from(answer.body).toString('utf8')) as T;
    } catch {
      throw new HttpError(200, answer.url, 'the answer is not JSON');
    }
    return { notModified: false, value, etag: answer.etag };
  }

  private static query(params: Record<string, string | number | undefined | null>): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params))
      if (value !== undefined && value !== null) search.set(key, String(value));
    const text = search.toString();
    return text ? `?${text}` : '';
  }

  /** One manifest page (§4.1). */
  async manifestPage(
    query: PageQuery & { pageToken?: string | null; etag?: string | null } = {},
  ): Promise<Conditional<ManifestPage>> {
    const qs = SitemapAiClient.query({
      limit: query.limit,
      page_token: query.pageToken,
      type: query.type,
      lang: query.lang,
    });
    const answer = await this.getJson<ManifestPage>(`manifest${qs}`, query.etag);
    if (!answer.notModified) assertPage(answer.value, 'manifest');
    return answer;
  }

  /**
   * Every page of the manifest, following `next_page_token`, all of one snapshot (§5). A
   * token whose snapshot is gone throws GoneError: start again (`sync()` does).
   */
  async *manifest(query: PageQuery = {}): AsyncGenerator<ManifestPage> {
    let pageToken: string | null = null;
    for (let n = 0; n < MAX_PAGES; n += 1) {
      const answer = await this.manifestPage({ ...query, pageToken });
      if (answer.notModified) throw new SitemapAiClientError('unexpected 304');
      yield answer.value;
      pageToken = answer.value.next_page_token;
      if (!pageToken) return;
      if (answer.value.items.length === 0)
        throw new SitemapAiClientError('an empty manifest page names a next page');
    }
  }

  /** One page of the delta after `since` (a snapshot id or an ISO time, §4.2). */
  async deltaPage(
    since: string,
    query: { limit?: number; pageToken?: string | null; etag?: string | null } = {},
  ): Promise<Conditional<DeltaPage>> {
    const qs = SitemapAiClient.query({
      since,
      limit: query.limit,
      page_token: query.pageToken,
    });
    const answer = await this.getJson<DeltaPage>(`delta${qs}`, query.etag);
    if (!answer.notModified) {
      assertPage(answer.value, 'delta');
      if (!Array.isArray(answer.value.removed) || typeof answer.value.next_since !== 'string')
        throw new HttpError(200, this.url('delta'), 'not a delta page (removed, next_since)');
    }
    return answer;
  }

  /** Every page of the delta after `since`; the last one's `next_since` is where to go on. */
  async *delta(since: string, query: { limit?: number } = {}): AsyncGenerator<DeltaPage> {
    let pageToken: string | null = null;
    for (let n = 0; n < MAX_PAGES; n += 1) {
      const answer = await this.deltaPage(since, { ...query, pageToken });
      if (answer.notModified) throw new SitemapAiClientError('unexpected 304');
      yield answer.value;
      pageToken = answer.value.next_page_token;
      if (!pageToken) return;
    }
  }

  /** One item (§4.3); an old id answers with its successor and `alias`. */
  async item(id: string, etag?: string | null): Promise<Conditional<ItemAnswer>> {
    return this.getJson<ItemAnswer>(`fragments/${encodeURIComponent(id)}`, etag);
  }

  /**
   * The canonical text of an item (§4.4), verified: its SHA-256 must be `expected` (the
   * item's `checksum`) when given, and always the checksum the server sends with it.
   * Throws ChecksumMismatchError otherwise.
   */
  async content(
    id: string,
    options: { expected?: string; etag?: string | null } = {},
  ): Promise<Conditional<ContentAnswer>> {
    const answer = await this.get(`fragments/${encodeURIComponent(id)}/content`, {
      etag: options.etag,
      accept: 'text/markdown, text/plain;q=0.9',
    });
    if (answer.status === 304) return { notModified: true, etag: answer.etag ?? null };
    const served = answer.headers.get('x-sitemap-ai-checksum');
    const expected = options.expected ?? served;
    if (!expected)
      throw new SitemapAiClientError(`${answer.url}: no checksum to verify the content against`);
    verifyChecksum(id, answer.body, expected, served);
    if (served && served !== expected) verifyChecksum(id, answer.body, served, served);
    return {
      notModified: false,
      value: {
        id,
        text: Buffer.from(answer.body).toString('utf8'),
        checksum: expected,
        etag: answer.etag,
      },
      etag: answer.etag,
    };
  }

  /** A document as bytes (`llms.txt`, `robots.txt`, `sitemap.xml`, `schema.json` …, §9.3). */
  async document(name: string, etag?: string | null): Promise<RawAnswer> {
    return this.get(name, { etag, accept: '*/*' });
  }

  /**
   * Bring a copy up to date. With `since` (a saved `nextSince`) it follows the delta; without
   * one, or when the site answers 410 (too old, §4.2), it walks the whole manifest and calls
   * `onFullWalk` with every id it saw. A full walk whose snapshot is dropped mid-way (410 on a
   * page token, §5) starts again, at most 3 times. Each page is handed to `onBatch` before the
   * next is read; when `onBatch` throws, the sync stops there and the saved `since` still
   * holds.
   */
  async sync(
    options: { since?: string | null; limit?: number },
    handler: SyncHandler,
  ): Promise<SyncResult> {
    let resynced = false;
    if (options.since) {
      let items = 0;
      let removed = 0;
      let last: DeltaPage | null = null;
      try {
        for await (const page of this.delta(options.since, { limit: options.limit })) {
          await handler.onBatch({
            mode: 'delta',
            snapshot: page.snapshot,
            items: page.items,
            removed: page.removed,
          });
          items += page.items.length;
          removed += page.removed.length;
          last = page;
        }
      } catch (error) {
        if (!(error instanceof GoneError)) throw error;
        resynced = true;
      }
      if (last && !resynced)
        return {
          mode: 'delta',
          nextSince: last.next_since,
          snapshot: last.snapshot,
          resynced,
          items,
          removed,
        };
    }
    for (let restart = 0; ; restart += 1) {
      const seen = new Set<string>();
      let snapshot: SnapshotRef | null = null;
      let items = 0;
      try {
        for await (const page of this.manifest({ limit: options.limit })) {
          snapshot ??= page.snapshot;
          for (const item of page.items) seen.add(item.id);
          await handler.onBatch({ mode: 'full', snapshot, items: page.items, removed: [] });
          items += page.items.length;
        }
      } catch (error) {
        if (error instanceof GoneError && restart < MAX_FULL_WALK_RESTARTS) continue;
        throw error;
      }
      if (!snapshot) throw new SitemapAiClientError('the manifest answered no page');
      await handler.onFullWalk?.(seen, snapshot);
      return { mode: 'full', nextSince: snapshot.id, snapshot, resynced, items, removed: 0 };
    }
  }
}

function assertPage(value: unknown, what: string): asserts value is ManifestPage {
  const page = value as Partial<ManifestPage> | null;
  if (
    !page ||
    typeof page !== 'object' ||
    !Array.isArray(page.items) ||
    !page.snapshot ||
    typeof page.snapshot.id !== 'string' ||
    (page.next_page_token !== null && typeof page.next_page_token !== 'string')
  )
    throw new SitemapAiClientError(`not a ${what} page (items, snapshot, next_page_token)`);
  for (const item of page.items) {
    if (!item || typeof item.id !== 'string' || typeof item.checksum !== 'string')
      throw new SitemapAiClientError(`a ${what} item without an id or a checksum`);
  }
}

/* ------------------------------------------------------------------ */
/* Files: atomic writes                                                */
/* ------------------------------------------------------------------ */

let tempCounter = 0;

/** Write a file so that a reader (or a crash) sees the old or the new content, never a part. */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  tempCounter += 1;
  const temp = `${file}.${process.pid}.${tempCounter}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

const TEMP_FILE = /\.\d+\.\d+\.tmp$/;

/** Remove the temp files a killed run left in `dir` (never anything else). */
async function removeStaleTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names)
    if (TEMP_FILE.test(name)) await rm(path.join(dir, name), { force: true });
}

async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/* ------------------------------------------------------------------ */
/* Mirror: `sitemap-ai sync`                                           */
/* ------------------------------------------------------------------ */

export const MIRROR_FORMAT = 'sitemap-ai-mirror/1';
export const MIRROR_STATE_FILE = 'state.json';
export const MIRROR_INDEX_FILE = 'index.jsonl';
export const MIRROR_CONTENT_DIR = 'content';

export interface MirroredItem {
  /** Relative to the mirror's folder. */
  file: string;
  checksum: string;
  etag: string | null;
  /** The manifest item as last read. */
  item: ManifestItem;
}

/** `state.json` of a mirror: the single source of truth, written atomically after each page. */
export interface MirrorState {
  format: typeof MIRROR_FORMAT;
  api: string;
  /** The `next_since` of the last complete sync; null before the first one completes. */
  since: string | null;
  snapshot: SnapshotRef | null;
  updated_at: string | null;
  items: Record<string, MirroredItem>;
}

export function emptyMirrorState(api: string): MirrorState {
  return { format: MIRROR_FORMAT, api, since: null, snapshot: null, updated_at: null, items: {} };
}

/**
 * Parse a mirror's state (or start one when there is none). Throws when the file is not a
 * mirror state or belongs to another site: a mirror is never silently overwritten.
 */
export function parseMirrorState(text: string | null, api: string): MirrorState {
  if (text === null) return emptyMirrorState(api);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SitemapAiClientError(`${MIRROR_STATE_FILE} is not JSON`);
  }
  const state = parsed as Partial<MirrorState> | null;
  if (!state || state.format !== MIRROR_FORMAT || typeof state.items !== 'object' || !state.items)
    throw new SitemapAiClientError(`${MIRROR_STATE_FILE} is not a ${MIRROR_FORMAT} state`);
  if (state.api !== api)
    throw new SitemapAiClientError(
      `this folder mirrors ${state.api}, not ${api}: use another --out`,
    );
  if (state.since !== null && typeof state.since !== 'string')
    throw new SitemapAiClientError(`${MIRROR_STATE_FILE}: since must be a string or null`);
  return {
    format: MIRROR_FORMAT,
    api,
    since: state.since ?? null,
    snapshot: state.snapshot ?? null,
    updated_at: state.updated_at ?? null,
    items: state.items,
  };
}

/** `index.jsonl`: one manifest item per line, in id order, each with the file of its content. */
export function mirrorIndex(state: MirrorState): string {
  return Object.keys(state.items)
    .sort()
    .map((id) => {
      const entry = state.items[id]!;
      return `${JSON.stringify({ ...entry.item, file: entry.file })}\n`;
    })
    .join('');
}

export type MirrorProgress =
  | { kind: 'start'; mode: 'full' | 'delta'; since: string | null }
  | { kind: 'page'; mode: 'full' | 'delta'; items: number; fetched: number; removed: number }
  | { kind: 'content'; id: string; fetched: number };

export interface MirrorOptions {
  client: SitemapAiClient;
  /** The mirror's folder. */
  out: string;
  /** Items per manifest or delta page (default 500). */
  limit?: number;
  /** Contents fetched at once (default 4). */
  concurrency?: number;
  onProgress?: (event: MirrorProgress) => void;
}

export interface MirrorResult extends SyncResult {
  /** Contents fetched (and verified) in this run. */
  fetched: number;
  /** Items whose metadata changed but whose text did not. */
  metadataOnly: number;
  /** Contents already on disk with the right checksum (a run that was stopped). */
  adopted: number;
  /** Items deleted from the mirror. */
  deleted: number;
  /** Items whose content changed on the site while this run read them: the next run gets them. */
  deferred: string[];
}

async function forEachLimited<T>(
  list: readonly T[],
  limit: number,
  fn: (value: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < list.length && failure === null) {
      const value = list[next]!;
      next += 1;
      try {
        await fn(value);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
  if (failure !== null) throw failure;
}

/**
 * Bring the mirror in `out` up to date: `content/<file name>.md` per item (verified against its
 * checksum), `index.jsonl` of the items, and `state.json` (`since`, and per item its checksum,
 * ETag and file). Incremental — only contents whose checksum changed are fetched — and
 * resumable: the state is written atomically after each page, and a content already on disk
 * with the right checksum is not fetched again. Tombstones delete their files.
 */
export async function syncMirror(options: MirrorOptions): Promise<MirrorResult> {
  const { client, out } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const stateFile = path.join(out, MIRROR_STATE_FILE);
  const stored = await readIfExists(stateFile);
  const state = parseMirrorState(stored === null ? null : stored.toString('utf8'), client.api);
  const counts = { fetched: 0, metadataOnly: 0, adopted: 0, deleted: 0 };
  const deferred: string[] = [];
  await removeStaleTempFiles(out);
  await removeStaleTempFiles(path.join(out, MIRROR_CONTENT_DIR));

  const save = async () => {
    state.updated_at = new Date().toISOString();
    await writeFileAtomic(stateFile, `${JSON.stringify(state, null, 1)}\n`);
    await writeFileAtomic(path.join(out, MIRROR_INDEX_FILE), mirrorIndex(state));
  };
  const remove = async (id: string) => {
    const entry = state.items[id];
    if (!entry) return;
    await rm(path.join(out, entry.file), { force: true });
    delete state.items[id];
    counts.deleted += 1;
  };

  const apply = async (item: ManifestItem) => {
    const file = path.posix.join(MIRROR_CONTENT_DIR, `${fileNameForId(item.id)}.md`);
    const absolute = path.join(out, file);
    const held = state.items[item.id];
    if (held && held.checksum === item.checksum && held.file === file) {
      const onDisk = await readIfExists(absolute);
      if (onDisk !== null && checksumOf(onDisk) === item.checksum) {
        if (JSON.stringify(held.item) !== JSON.stringify(item)) counts.metadataOnly += 1;
        state.items[item.id] = { ...held, item };
        return;
      }
    } else {
      // A run that stopped after writing this content but before saving the state.
      const onDisk = await readIfExists(absolute);
      if (onDisk !== null && checksumOf(onDisk) === item.checksum) {
        state.items[item.id] = {
          file,
          checksum: item.checksum,
          etag: `"${item.checksum.slice(7)}"`,
          item,
        };
        counts.adopted += 1;
        return;
      }
    }
    let answer: Conditional<ContentAnswer>;
    try {
      answer = await client.content(item.id, { expected: item.checksum });
    } catch (error) {
      // Newer than the page read, or gone since: the next delta brings it (or its tombstone).
      if (
        (error instanceof ChecksumMismatchError && error.changed) ||
        (error instanceof HttpError && error.status === 404)
      ) {
        deferred.push(item.id);
        return;
      }
      throw error;
    }
    if (answer.notModified) throw new SitemapAiClientError('unexpected 304');
    await writeFileAtomic(absolute, answer.value.text);
    if (held && held.file !== file) await rm(path.join(out, held.file), { force: true });
    state.items[item.id] = { file, checksum: item.checksum, etag: answer.etag, item };
    counts.fetched += 1;
    options.onProgress?.({ kind: 'content', id: item.id, fetched: counts.fetched });
  };

  options.onProgress?.({
    kind: 'start',
    mode: state.since ? 'delta' : 'full',
    since: state.since,
  });
  const result = await client.sync(
    { since: state.since, limit: options.limit },
    {
      async onBatch(batch) {
        for (const tombstone of batch.removed) await remove(tombstone.id);
        await forEachLimited(batch.items, concurrency, apply);
        await save();
        options.onProgress?.({
          kind: 'page',
          mode: batch.mode,
          items: batch.items.length,
          fetched: counts.fetched,
          removed: counts.deleted,
        });
      },
      async onFullWalk(ids) {
        for (const id of Object.keys(state.items)) if (!ids.has(id)) await remove(id);
      },
    },
  );
  state.since = result.nextSince;
  state.snapshot = result.snapshot;
  await save();
  return { ...result, ...counts, deferred };
}

/* ------------------------------------------------------------------ */
/* Static export: `sitemap-ai export`                                  */
/* ------------------------------------------------------------------ */

/** The site documents an export copies (§4.6, §9.3), under their served names. */
export const EXPORT_DOCUMENTS = [
  'schema.json',
  'llms.txt',
  'llms-full.txt',
  'robots.txt',
  'rsl.xml',
  'tdmrep.json',
  'policy.json',
  'sitemap.xml',
] as const;

export const EXPORT_STATE_FILE = '.sitemap-ai-export.json';

export interface ExportOptions {
  client: SitemapAiClient;
  out: string;
  /** Items per manifest page (default 500). */
  limit?: number;
  onProgress?: (event: { kind: 'file'; file: string; status: 200 | 304 }) => void;
}

export interface ExportResult {
  snapshot: SnapshotRef;
  /** Files written, relative to `out`. */
  files: string[];
  /** Files left as they were because the site answered 304. */
  unchanged: string[];
  /** Documents the site does not serve (404), e.g. a discovery document it turned off. */
  missing: string[];
  pages: number;
}

/** The `sitemap-<n>.xml` parts a sitemap index names (§9.3), in order. */
export function sitemapParts(xml: string): string[] {
  if (!/<sitemapindex[\s>]/.test(xml)) return [];
  const parts: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*([^<]+?)\s*<\/loc>/g)) {
    const name = /(?:^|\/)(sitemap-\d+\.xml)$/.exec(match[1]!)?.[1];
    if (name && !parts.includes(name)) parts.push(name);
  }
  return parts;
}

/**
 * A static copy of what a site publishes, for static hosting: the documents byte for byte
 * (`llms.txt`, `robots.txt`, `rsl.xml`, `tdmrep.json`, `sitemap.xml` and its parts,
 * `policy.json`, `schema.json`, `llms-full.txt`) and every manifest page as served, as
 * `manifest/page-<n>.json`, with `manifest/index.json` mapping each page token to its file.
 * A second export sends the ETags it kept and leaves unchanged files alone.
 */
export async function exportSite(options: ExportOptions): Promise<ExportResult> {
  const { client, out } = options;
  const stateFile = path.join(out, EXPORT_STATE_FILE);
  const storedText = await readIfExists(stateFile);
  let etags: Record<string, string> = {};
  if (storedText !== null) {
    try {
      const parsed = JSON.parse(storedText.toString('utf8')) as { api?: string; etags?: unknown };
      if (parsed.api === client.api && parsed.etags && typeof parsed.etags === 'object')
        etags = parsed.etags as Record<string, string>;
    } catch {
      etags = {};
    }
  }
  const next: Record<string, string> = {};
  const files: string[] = [];
  const unchanged: string[] = [];
  const missing: string[] = [];

  const copy = async (name: string, file: string): Promise<Uint8Array | null> => {
    const target = path.join(out, file);
    const exists = (await readIfExists(target)) !== null;
    let answer: RawAnswer;
    try {
      answer = await client.document(name, exists ? (etags[file] ?? null) : null);
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 404)) throw error;
      await rm(target, { force: true });
      missing.push(file);
      return null;
    }
    if (answer.etag) next[file] = answer.etag;
    if (answer.status === 304) {
      if (etags[file]) next[file] = etags[file];
      unchanged.push(file);
      options.onProgress?.({ kind: 'file', file, status: 304 });
      return null;
    }
    await writeFileAtomic(target, answer.body);
    files.push(file);
    options.onProgress?.({ kind: 'file', file, status: 200 });
    return answer.body;
  };

  for (const name of EXPORT_DOCUMENTS) {
    const body = await copy(name, name);
    if (name === 'sitemap.xml' && !missing.includes(name)) {
      const xml = Buffer.from(body ?? (await readFile(path.join(out, name)))).toString('utf8');
      for (const part of sitemapParts(xml)) await copy(part, part);
    }
  }

  let pages: { file: string; page_token: string | null; items: number }[] = [];
  let snapshot: SnapshotRef | null = null;
  // The manifest is read raw so each page is kept byte for byte as the site served it. A
  // snapshot dropped during the walk (410 on its page token, §5) starts it again.
  for (let restart = 0; ; restart += 1) {
    pages = [];
    snapshot = null;
    let pageToken: string | null = null;
    try {
      for (let n = 1; n <= MAX_PAGES; n += 1) {
        const qs = new URLSearchParams();
        if (options.limit) qs.set('limit', String(options.limit));
        if (pageToken) qs.set('page_token', pageToken);
        const query = qs.toString();
        const answer = await client.get(`manifest${query ? `?${query}` : ''}`);
        const page = JSON.parse(Buffer.from(answer.body).toString('utf8')) as ManifestPage;
        assertPage(page, 'manifest');
        snapshot ??= page.snapshot;
        const file = `manifest/page-${n}.json`;
        await writeFileAtomic(path.join(out, file), answer.body);
        options.onProgress?.({ kind: 'file', file, status: 200 });
        pages.push({ file, page_token: pageToken, items: page.items.length });
        pageToken = page.next_page_token;
        if (!pageToken) break;
      }
      break;
    } catch (error) {
      if (error instanceof GoneError && restart < MAX_FULL_WALK_RESTARTS) continue;
      throw error;
    }
  }
  files.push(...pages.map((page) => page.file));
  if (!snapshot) throw new SitemapAiClientError('the manifest answered no page');
  // Pages of an earlier, longer export would otherwise stay behind.
  for (let n = pages.length + 1; ; n += 1) {
    const stale = path.join(out, `manifest/page-${n}.json`);
    if ((await readIfExists(stale)) === null) break;
    await rm(stale);
  }
  await writeFileAtomic(
    path.join(out, 'manifest', 'index.json'),
    `${JSON.stringify({ spec: SPEC, api: client.api, snapshot, pages }, null, 2)}\n`,
  );
  files.push('manifest/index.json');
  await writeFileAtomic(
    stateFile,
    `${JSON.stringify({ api: client.api, etags: next }, null, 1)}\n`,
  );
  return { snapshot, files, unchanged, missing, pages: pages.length };
}
