import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  ITEM_ID_MAX_LENGTH,
  PAGE_TOKEN_MAX_LENGTH,
  PAGE_TOKEN_VERSION,
  TOKEN_POSITION_MAX,
} from '../../../shared/constants';
import { InvalidPageTokenError } from './errors';

/**
 * Where a traversal stands (docs/protocol.md §5): the snapshot it reads, the last id
 * served (keyset paging) and the filters it was started with.
 */
export interface PagePosition {
  snapshot: number;
  /**
   * When that snapshot was built (ms since the epoch): snapshot numbers start again from 1 when a
   * site's plugin data is emptied and built anew, and a token must not resume a traversal in the
   * new snapshot of its number. `null` in tokens of version 1, which did not carry it; 0 where no
   * snapshot applies (a changelog's pages).
   */
  built: number | null;
  after: string;
  /** Canonical form of the filters (`type=…&lang=…`); a token is only valid with the same filters. */
  filters: string;
  /** Which feed the token belongs to: the full manifest or a delta since a snapshot. */
  feed: string;
}

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/**
 * Deterministic, opaque, tamper-evident page token: base64url(payload) + "." +
 * base64url(HMAC-SHA256(secret, payload)). Same position → same token.
 */
export function encodePageToken(position: PagePosition, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify([
      PAGE_TOKEN_VERSION,
      position.snapshot,
      position.built ?? 0,
      position.after,
      position.filters,
      position.feed,
    ]),
    'utf8',
  ).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** A changelog page's position (a row id) from a token's `after`; anything else is refused. */
export function changelogPosition(after: string): number {
  const value = /^[1-9][0-9]{0,9}$/.test(after) ? Number(after) : NaN;
  if (!Number.isSafeInteger(value) || value > TOKEN_POSITION_MAX)
    throw new InvalidPageTokenError('unsupported token version or contents');
  return value;
}

/** Decode and verify a page token; throws InvalidPageTokenError for anything not issued by us. */
export function decodePageToken(token: string, secret: string): PagePosition {
  if (typeof token !== 'string' || token.length === 0)
    throw new InvalidPageTokenError('empty token');
  if (token.length > PAGE_TOKEN_MAX_LENGTH) throw new InvalidPageTokenError('token too long');
  const parts = token.split('.');
  if (
    parts.length !== 2 ||
    !/^[A-Za-z0-9_-]+$/.test(parts[0]!) ||
    !/^[A-Za-z0-9_-]+$/.test(parts[1]!)
  ) {
    throw new InvalidPageTokenError('malformed token');
  }
  const [payload, signature] = parts as [string, string];
  // Compare the signature as text: decoding base64url would ignore the unused
  // low bits of its last character, so several strings would be accepted.
  const expected = Buffer.from(mac(secret, payload).toString('base64url'), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidPageTokenError(
      'signature does not match (the token was altered or issued by another site)',
    );
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidPageTokenError('malformed token');
  }
  // Version 1 (earlier releases) had no build time: [1, snapshot, after, filters, feed].
  const fields = Array.isArray(decoded)
    ? decoded[0] === PAGE_TOKEN_VERSION && decoded.length === 6
      ? decoded
      : decoded[0] === 1 && decoded.length === 5
        ? [1, decoded[1], null, ...decoded.slice(2)]
        : null
    : null;
  if (
    !fields ||
    !Number.isSafeInteger(fields[1]) ||
    (fields[1] as number) < 1 ||
    (fields[1] as number) > TOKEN_POSITION_MAX ||
    !(fields[0] === 1
      ? fields[2] === null
      : Number.isSafeInteger(fields[2]) &&
        (fields[2] as number) >= 0 &&
        (fields[2] as number) <= MAX_TIME_MS) ||
    typeof fields[3] !== 'string' ||
    (fields[3] as string).length > ITEM_ID_MAX_LENGTH ||
    typeof fields[4] !== 'string' ||
    typeof fields[5] !== 'string'
  ) {
    throw new InvalidPageTokenError('unsupported token version or contents');
  }
  return {
    snapshot: fields[1] as number,
    built: fields[2] as number | null,
    after: fields[3] as string,
    filters: fields[4] as string,
    feed: fields[5] as string,
  };
}

/** The largest time a Date holds (ms since the epoch). */
const MAX_TIME_MS = 8_640_000_000_000_000;

/** A snapshot's build time as a page token carries it. */
export function snapshotBuilt(snapshot: { builtAt: string }): number {
  const ms = Date.parse(snapshot.builtAt);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : 0;
}

/**
 * Is this the snapshot the token's traversal started on? Same number and same build time; a token
 * of version 1 (no build time) never is, so its traversal restarts (`410`) once after an upgrade.
 */
export function tokenSnapshotMatches(
  position: PagePosition,
  snapshot: { seq: number; builtAt: string },
): boolean {
  return position.snapshot === snapshot.seq && position.built === snapshotBuilt(snapshot);
}

/** The feeds a page token can belong to (docs/protocol.md §5): one traversal each. */
export const PAGE_FEEDS = {
  manifest: (): string => 'manifest',
  /** The delta since one snapshot: a token of another `since` is another feed. */
  delta: (since: number): string => `delta:${since}`,
  changelog: (itemId: string): string => `changelog:${itemId}`,
} as const;

/** Canonical form of the filters a traversal was started with (`type=…&lang=…`). */
export function pageFilters(query: { type?: string; lang?: string }): string {
  return `type=${query.type ?? ''}&lang=${query.lang ?? ''}`;
}

/**
 * The position of a page token that must continue `feed` with `filters`: decoded, verified and
 * checked against both, else InvalidPageTokenError saying which does not match.
 */
export function readPageToken(
  token: string,
  secret: string,
  expected: { feed: string; filters: string },
): PagePosition {
  const position = decodePageToken(token, secret);
  if (position.feed !== expected.feed)
    throw new InvalidPageTokenError(
      expected.feed.startsWith('delta:')
        ? 'the token belongs to another feed or another "since"'
        : 'the token belongs to another feed',
    );
  if (position.filters !== expected.filters)
    throw new InvalidPageTokenError(
      'the token was issued for other filters (type/lang); repeat the filters of the first page',
    );
  return position;
}
