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

/** Deterministic JSON (object keys sorted) for hashing metadata. */
export function stableStringify(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}
