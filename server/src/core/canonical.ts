import { createHash } from 'node:crypto';
import { CHECKSUM_PREFIX } from '../../../shared/constants';

/**
 * Canonical text of a fragment (docs/protocol.md §1.2 `checksum`): Unicode NFC, LF line
 * endings, trimmed. The content endpoint serves exactly this text, so anyone
 * can recompute the checksum.
 */
export function canonicalText(text: string): string {
  return text.normalize('NFC').replace(/\r\n?/g, '\n').trim();
}

/** `sha256:` + lowercase hex of the UTF-8 bytes of the canonical text. */
export function checksumOf(canonical: string): string {
  return CHECKSUM_PREFIX + sha256Hex(canonical);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
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

function writeStable(value: unknown): string {
  if (value === undefined) return 'null';
  // A function or symbol gives no JSON (undefined): nothing is written, as join() did.
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out += ',';
      if (i in value) out += writeStable(value[i]); // a hole writes nothing, as map() + join() did
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
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
