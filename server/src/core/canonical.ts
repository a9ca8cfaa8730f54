import * as crypto from 'node:crypto';
import { CHECKSUM_PREFIX } from '../../../shared/constants';

/**
 * Canonical text of a fragment (docs/protocol.md §1.2 `checksum`): Unicode NFC, LF line
 * endings, trimmed. The content endpoint serves exactly this text, so anyone
 * can recompute the checksum.
 */
export function canonicalText(text: string): string {
  const nfc = text.normalize('NFC');
  // (most texts have no CR: looking for one is cheaper than the replacement's scan)
  return (nfc.includes('\r') ? nfc.replace(/\r\n?/g, '\n') : nfc).trim();
}

/** `sha256:` + lowercase hex of the UTF-8 bytes of the canonical text. */
export function checksumOf(canonical: string): string {
  return CHECKSUM_PREFIX + sha256Hex(canonical);
}

/**
 * Node's one-shot digest (`crypto.hash`, Node 20.12 and later): no Hash object per call, about
 * half the time of createHash for the short texts a build hashes by the hundred thousand.
 */
const oneShotHash = (
  crypto as {
    hash?: (algorithm: string, data: string | Uint8Array, outputEncoding: string) => unknown;
  }
).hash;

export function sha256Hex(data: string | Uint8Array): string {
  if (oneShotHash) return oneShotHash('sha256', data, 'hex') as string;
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 digest of `data` (UTF-8 for a string), as bytes. */
export function sha256Bytes(data: string | Uint8Array): Buffer {
  if (oneShotHash) return oneShotHash('sha256', data, 'buffer') as Buffer;
  return crypto.createHash('sha256').update(data).digest();
}

/**
 * The key of a stored text: 128 bits of its SHA-256, base64url (22 characters). Two texts share a
 * key with a chance of about 1 in 10^26 on a site of 10 million texts. Earlier releases kept 192
 * bits (32 characters); their keys stay valid (a key is looked up, never recomputed), and a text
 * written again is stored under its new key beside the old row until the sweep collects that.
 * Each key is stored in its text's row and index and in up to four references per item, so its
 * length is paid about eight times per item.
 */
export function blobKey(text: string): string {
  return sha256Bytes(text).subarray(0, 16).toString('base64url');
}

/** A checksum in its public form (checksumOf): `sha256:` and 64 lowercase hex digits. */
export const PUBLIC_CHECKSUM = new RegExp(`^${CHECKSUM_PREFIX}[0-9a-f]{64}$`);

/**
 * The key of a canonical text (blobKey) from its checksum (checksumOf), which holds the same
 * SHA-256: a first build stores 140k canonical texts at 10k articles, and hashed each twice.
 */
export function blobKeyOfChecksum(checksum: string): string {
  if (!PUBLIC_CHECKSUM.test(checksum)) throw new Error(`not a checksum: ${checksum}`);
  const hex = checksum.slice(CHECKSUM_PREFIX.length, CHECKSUM_PREFIX.length + 32);
  return Buffer.from(hex, 'hex').toString('base64url');
}

/**
 * Deterministic JSON (object keys sorted) for hashing metadata. Stored metadata hashes depend on
 * it byte for byte: its output must never change (tests/unit/canonical.test.ts holds it to the
 * first implementation). A first build hashes every item's metadata, so it is written for speed:
 * one string grown by concatenation (V8 joins the pieces once, when the hash reads it), keys
 * sorted by the default order (UTF-16 code units, as the first implementation compared them) and
 * common keys quoted once.
 */
export function stableStringify(value: unknown): string {
  return writeStable(value);
}

/**
 * Would stableStringify write `a` and `b` alike? Records of strings, booleans and nulls (usage
 * rules) are compared member by member without writing either; anything else is written.
 */
export function stableEqual(a: unknown, b: unknown): boolean {
  if (isFlatRecord(a) && isFlatRecord(b)) {
    let count = 0;
    for (const key of Object.keys(a)) {
      if (a[key] === undefined) continue;
      if (a[key] !== b[key]) return false;
      count += 1;
    }
    for (const key of Object.keys(b)) if (b[key] !== undefined) count -= 1;
    return count === 0;
  }
  return stableStringify(a) === stableStringify(b);
}

/** A plain record whose members are strings, booleans, nulls or undefined. */
function isFlatRecord(
  value: unknown,
): value is Record<string, string | boolean | null | undefined> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (value instanceof WithoutMember) return false;
  for (const member of Object.values(value)) {
    if (
      member !== null &&
      member !== undefined &&
      typeof member !== 'string' &&
      typeof member !== 'boolean'
    )
      return false;
  }
  return true;
}

/** JSON of the keys metadata repeats (most are the plugin's own field names), quoted once. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 1_000;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** A record to be written without one of its members: `withoutMember`. */
class WithoutMember {
  constructor(
    readonly record: Record<string, unknown>,
    readonly omitted: string,
  ) {}
}

/**
 * `record` as stableStringify writes it once `omitted` is deleted from a copy, without the copy (a
 * first build hashed a copy of every item's metadata). Only for stableStringify's input.
 */
export function withoutMember(record: object, omitted: string): unknown {
  return new WithoutMember(record as Record<string, unknown>, omitted);
}

/**
 * The keys sorted in place by UTF-16 code units, as Array.prototype.sort orders strings: insertion
 * sort, as metadata objects have a handful of keys and the built-in sort allocated a work array
 * for each (an eighth of what a first build allocated).
 */
function sortKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function writeStable(value: unknown): string {
  if (value === undefined) return 'null';
  // A function or symbol gives no JSON (undefined): nothing is written, as join() did.
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (value instanceof WithoutMember) return writeRecord(value.record, value.omitted);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out += ',';
      if (i in value) out += writeStable(value[i]); // a hole writes nothing, as map() + join() did
    }
    return out + ']';
  }
  return writeRecord(value as Record<string, unknown>, undefined);
}

function writeRecord(record: Record<string, unknown>, omitted: string | undefined): string {
  const keys = sortKeys(Object.keys(record));
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || key === omitted) continue;
    out += first ? quotedKey(key) : ',' + quotedKey(key);
    first = false;
    // A member that gives no JSON (a function) was written as the word undefined.
    out +=
      typeof member === 'function' || typeof member === 'symbol'
        ? ':undefined'
        : ':' + writeStable(member);
  }
  return out + '}';
}
