import {
  ITEM_ID_MAX_LENGTH,
  ITEM_TYPES,
  PAGE_TOKEN_MAX_LENGTH,
  type ItemType,
} from '../../../shared/constants';
import { CONTENT_TYPE_UID_PATTERN } from '../../../shared/settings-schema';
import { InvalidParameterError } from './errors';

/** Query parameters as Koa parses them: strings, arrays for repeats, nested objects for `a[b]`. */
export type RawQuery = Readonly<Record<string, unknown>>;

export interface ManifestParams {
  limit: number;
  page_token?: string;
  type?: ItemType;
  lang?: string;
}

const MANIFEST_KEYS = new Set(['limit', 'page_token', 'type', 'lang']);

function single(query: RawQuery, key: string): string | undefined {
  const value = query[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new InvalidParameterError(key, 'give it once, as a plain value');
  return value;
}

/** Routes that take no query parameters (one item, its content, the schema) refuse any. */
export function validateNoParams(query: RawQuery): void {
  const [key] = Object.keys(query);
  if (key !== undefined)
    throw new InvalidParameterError(key, 'unknown parameter; this route takes none');
}

/**
 * Validate the manifest's query string (docs/protocol.md §4, §7): unknown parameters,
 * repeats and bad values are refused with a message that says what is allowed.
 */
export function validateManifestParams(
  query: RawQuery,
  limits: { default: number; max: number },
): ManifestParams {
  for (const key of Object.keys(query)) {
    if (!MANIFEST_KEYS.has(key)) {
      throw new InvalidParameterError(
        key,
        `unknown parameter; allowed are ${[...MANIFEST_KEYS].join(', ')}`,
      );
    }
  }
  const params: ManifestParams = { limit: limits.default };
  const limit = single(query, 'limit');
  if (limit !== undefined) {
    if (!/^[0-9]{1,7}$/.test(limit))
      throw new InvalidParameterError('limit', `must be a whole number from 1 to ${limits.max}`);
    const n = Number(limit);
    if (n < 1 || n > limits.max)
      throw new InvalidParameterError('limit', `must be a whole number from 1 to ${limits.max}`);
    params.limit = n;
  }
  const token = single(query, 'page_token');
  if (token !== undefined) {
    if (token === '' || token.length > PAGE_TOKEN_MAX_LENGTH) {
      throw new InvalidParameterError(
        'page_token',
        'must be the next_page_token of a previous page',
      );
    }
    params.page_token = token;
  }
  const type = single(query, 'type');
  if (type !== undefined) {
    if (!(ITEM_TYPES as readonly string[]).includes(type)) {
      throw new InvalidParameterError('type', `must be one of ${ITEM_TYPES.join(', ')}`);
    }
    params.type = type as ItemType;
  }
  const lang = single(query, 'lang');
  if (lang !== undefined) {
    if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/.test(lang)) {
      throw new InvalidParameterError('lang', 'must be a BCP-47 language tag such as en or sk');
    }
    params.lang = lang;
  }
  return params;
}

/** A fragment id from a path: lowercase letters, digits, ":" and "-", at most 255 characters. */
export function validateItemId(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw new InvalidParameterError('id', 'missing');
  if (raw.length > ITEM_ID_MAX_LENGTH || !/^[a-z0-9][a-z0-9:-]*$/.test(raw)) {
    throw new InvalidParameterError(
      'id',
      'must be a manifest item id such as article:geo-index:en:intro',
    );
  }
  return raw;
}

export interface DeltaParams extends ManifestParams {
  since: { snapshot: number } | { time: string };
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Date.parse rolls 2026-02-30 over to March 2: refuse days the month does not have. */
function isCalendarDate(iso: string): boolean {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** `since` is a snapshot id (digits) or an ISO-8601 time with a zone (docs/protocol.md §5 delta). */
export function validateDeltaParams(
  query: RawQuery,
  limits: { default: number; max: number },
): DeltaParams {
  for (const key of Object.keys(query)) {
    if (key !== 'since' && !MANIFEST_KEYS.has(key)) {
      throw new InvalidParameterError(
        key,
        `unknown parameter; allowed are since, ${[...MANIFEST_KEYS].join(', ')}`,
      );
    }
  }
  const { since: raw, ...rest } = query;
  const base = validateManifestParams(rest, limits);
  if (raw === undefined)
    throw new InvalidParameterError(
      'since',
      'required: a snapshot id (e.g. 12) or an ISO-8601 time (e.g. 2026-11-30T09:00:00Z)',
    );
  if (typeof raw !== 'string')
    throw new InvalidParameterError('since', 'give it once, as a plain value');
  if (/^[0-9]{1,10}$/.test(raw)) return { ...base, since: { snapshot: Number(raw) } };
  if (ISO_TIME.test(raw) && !Number.isNaN(Date.parse(raw)) && isCalendarDate(raw))
    return { ...base, since: { time: new Date(raw).toISOString() } };
  throw new InvalidParameterError(
    'since',
    'must be a snapshot id (e.g. 12) or an ISO-8601 time with a zone (e.g. 2026-11-30T09:00:00Z)',
  );
}

/** `limit` and `page_token` of the changelog feed. */
export function validateChangelogParams(
  query: RawQuery,
  limits: { default: number; max: number },
): { limit: number; page_token?: string } {
  for (const key of Object.keys(query)) {
    if (key !== 'limit' && key !== 'page_token')
      throw new InvalidParameterError(key, 'unknown parameter; allowed are limit, page_token');
  }
  const { limit, page_token } = validateManifestParams(query, limits);
  return page_token === undefined ? { limit } : { limit, page_token };
}

/** Strapi 5 document ids are short lowercase alphanumerics; accept a little more, nothing that could be a path. */
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A locale code as Strapi's i18n names them (BCP-47). */
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export interface EntryPanelRequest {
  uid: string;
  documentId: string;
  locale?: string;
}

/** The path and query of GET /sitemap-ai/entries/:uid/:documentId?locale= (README › In the admin). */
export function validateEntryPanelRequest(
  params: Readonly<Record<string, unknown>>,
  query: RawQuery,
): EntryPanelRequest {
  const { uid, documentId } = params;
  if (typeof uid !== 'string' || !CONTENT_TYPE_UID_PATTERN.test(uid))
    throw new InvalidParameterError(
      'uid',
      'must be a content-type UID such as api::article.article',
    );
  if (typeof documentId !== 'string' || !DOCUMENT_ID.test(documentId))
    throw new InvalidParameterError('documentId', 'must be a document id');
  const { locale, ...rest } = query;
  const [unknown] = Object.keys(rest);
  if (unknown !== undefined)
    throw new InvalidParameterError(unknown, 'unknown parameter; allowed is locale');
  if (locale === undefined) return { uid, documentId };
  if (typeof locale !== 'string' || !LOCALE.test(locale))
    throw new InvalidParameterError('locale', 'must be one BCP-47 language tag such as en or sk');
  return { uid, documentId, locale };
}
