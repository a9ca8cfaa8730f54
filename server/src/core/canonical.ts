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
 * first implementation). Written into one list of parts joined once: a first build hashes every
 * item's metadata, and the nested template strings and entry arrays of the first implementation
 * were a fifth of everything that build allocated.
 */
export function stableStringify(value: unknown): string {
  const parts: string[] = [];
  writeStable(value, parts);
  return parts.join('');
}

function writeStable(value: unknown, parts: string[]): void {
  if (value === undefined) {
    parts.push('null');
    return;
  }
  if (value === null || typeof value !== 'object') {
    // A function or symbol gives no JSON (undefined): nothing is written, as join() did.
    parts.push(JSON.stringify(value) as string);
    return;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) parts.push(',');
      if (i in value) writeStable(value[i], parts); // a hole writes nothing, as map() + join() did
    }
    parts.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  parts.push('{');
  keys.forEach((key, i) => {
    if (i > 0) parts.push(',');
    parts.push(JSON.stringify(key), ':');
    const member = record[key];
    // A member that gives no JSON (a function) was written as the word undefined.
    if (typeof member === 'function' || typeof member === 'symbol') parts.push('undefined');
    else writeStable(member, parts);
  });
  parts.push('}');
}
