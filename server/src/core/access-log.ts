import { createHmac } from 'node:crypto';
import { ITEM_ID_MAX_LENGTH } from '../../../shared/constants';

/**
 * The access log of the public routes (README › Observability): what a request was for,
 * who asked (pseudonymised), and whether the agent held an older version.
 * Pure helpers; the service stores what they compute.
 */

/** Which public route a request hit (docs/protocol.md §4). */
export const ROUTE_KINDS = [
  'manifest',
  'delta',
  'fragment',
  'content',
  'changelog',
  'schema',
  'discovery',
  'page',
  'beacon',
] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** Route kinds that serve one item (their log entry names the item and its type). */
export const ITEM_ROUTE_KINDS: ReadonlySet<RouteKind> = new Set([
  'fragment',
  'content',
  'changelog',
  'page',
]);

/** README › Observability: how long access-log entries are kept unless configured (days). */
export const ACCESS_LOG_RETENTION_DEFAULT_DAYS = 30;
/** An `If-None-Match` header is read up to this many characters. */
const VALIDATOR_HEADER_MAX_CHARS = 1024;
/** …and up to this many entity tags. */
const VALIDATOR_MAX_TAGS = 8;

/** `2026-11-30`: the UTC day a time falls on (the salt of the client pseudonym rotates daily). */
export function utcDay(time: Date | string | number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * The stored stand-in for a client's IP address: HMAC-SHA256 of the address
 * under the day's random salt (README › Observability "IP hashed with a rotating salt").
 * The same client gets the same value within a UTC day and an unrelated one
 * the next day; once a day's salt is gone, its values cannot be linked back.
 */
export function pseudonymiseClient(ip: string, salt: string): string {
  return createHmac('sha256', salt).update(ip.trim().toLowerCase(), 'utf8').digest('hex');
}

/** An item id as it may appear in a path (the manifest's id alphabet), else null. */
export function loggableItemId(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '' || raw.length > ITEM_ID_MAX_LENGTH) return null;
  return /^[a-z0-9][a-z0-9:-]*$/.test(raw) ? raw : null;
}

/**
 * The item a public route answered with, as its controller leaves it in `ctx.state` for the
 * access log: the current id (also when an old id was asked for), its type, version and checksum.
 */
export interface ServedItem {
  itemId: string;
  type: string;
  version: string;
  checksum: string;
}

export interface ClientValidators {
  /** Item versions named by fragment ETags (`"s12-…-v2.1"`). */
  versions: string[];
  /** Checksums named by content ETags (`"<sha256 hex>"`), as `sha256:<hex>`. */
  checksums: string[];
}

/**
 * What copy of an item the client says it holds, read from its
 * `If-None-Match`: fragment ETags end with the item's version, content ETags
 * are the checksum of its text.
 */
export function parseClientValidators(
  header: string | readonly string[] | undefined,
): ClientValidators {
  const raw = Array.isArray(header) ? header.join(',') : header;
  const result: ClientValidators = { versions: [], checksums: [] };
  if (typeof raw !== 'string' || raw === '') return result;
  const tags = raw.slice(0, VALIDATOR_HEADER_MAX_CHARS).split(',').slice(0, VALIDATOR_MAX_TAGS);
  for (const tag of tags) {
    const value = tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    const version = /-(v[0-9]{1,9}\.[0-9]{1,9})$/.exec(value);
    if (version) result.versions.push(version[1]!);
    else if (/^[0-9a-f]{64}$/.test(value)) result.checksums.push(`sha256:${value}`);
  }
  return result;
}

/** Compare two `v{content}.{metadata}` versions: negative when `a` is older. Unreadable versions compare equal. */
export function compareVersions(a: string, b: string): number {
  const pa = /^v([0-9]+)\.([0-9]+)$/.exec(a);
  const pb = /^v([0-9]+)\.([0-9]+)$/.exec(b);
  if (!pa || !pb) return 0;
  return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]);
}

export interface DriftInput {
  kind: RouteKind;
  status: number;
  validators: ClientValidators;
  /** The item as served (current snapshot), when it exists. */
  served: { version: string; checksum: string } | null;
}

/**
 * Drift (README › Observability): the agent asked for an item while holding an older copy
 * than the current one — a fragment ETag naming an older version, or a
 * content ETag with another checksum — and got the new one. A 304 means its
 * copy was current. Returns the version the agent held, when the ETag names it.
 */
export function detectDrift(input: DriftInput): { drift: boolean; clientVersion: string | null } {
  const none = { drift: false, clientVersion: null };
  if (!input.served || input.status < 200 || input.status >= 300) return none;
  if (input.kind === 'fragment') {
    const older = input.validators.versions.filter(
      (v) => compareVersions(v, input.served!.version) < 0,
    );
    if (older.length === 0) return none;
    const newest = older.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
    return { drift: true, clientVersion: newest };
  }
  if (input.kind === 'content') {
    const { checksums } = input.validators;
    if (checksums.length === 0 || checksums.includes(input.served.checksum)) return none;
    return { drift: true, clientVersion: null };
  }
  return none;
}

/**
 * The "type" an ingest row is grouped by: the item's type for fragment and
 * content requests, else the route (manifest, delta, changelog, schema, or
 * fragment/content when no item was found).
 */
export function ingestType(kind: RouteKind, itemType: string | null | undefined): string {
  return (kind === 'fragment' || kind === 'content') && itemType ? itemType : kind;
}

/** A 2xx or a 304 is a successful fetch. */
export function isSuccessfulStatus(status: number): boolean {
  return (status >= 200 && status < 300) || status === 304;
}
