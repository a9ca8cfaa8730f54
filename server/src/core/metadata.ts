import type { z } from 'zod';
import { metadataOverrideSchema } from '../../../shared/metadata-schema';
import type { EntryMetadata, MetadataOverride } from './types';

export interface MetadataProblem {
  key: string;
  message: string;
}

function parseOverride(
  raw: unknown,
  prefix: string,
  problems: MetadataProblem[],
): MetadataOverride {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    if (raw !== undefined && raw !== null)
      problems.push({ key: prefix || '(root)', message: 'must be an object' });
    return {};
  }
  const result: Record<string, unknown> = {};
  const shape = metadataOverrideSchema.shape as Record<string, z.ZodType>;
  for (const [key, value] of Object.entries(raw)) {
    // Entry-only keys are read by readEntryMetadata; inside a fragment override they are unknown
    // (a fragment is hidden with `exclude`, and a silently ignored `sensitive` would mislead).
    if (prefix === '' && (key === 'fragments' || key === 'sensitive' || key === 'reason')) continue;
    // Own keys only: `constructor`, `__proto__`, `toString` are unknown keys, not Object.prototype members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      problems.push({ key: `${prefix}${key}`, message: 'unknown key' });
      continue;
    }
    const parsed = field.safeParse(value);
    if (parsed.success) result[key] = parsed.data;
    else problems.push({ key: `${prefix}${key}`, message: parsed.error.issues[0]!.message });
  }
  return result as MetadataOverride;
}

/**
 * Editor metadata as stored in the entry (README › In the admin), read leniently: a value
 * that does not validate is left out and reported, the rest still applies.
 */
export function readEntryMetadata(raw: unknown): {
  metadata: EntryMetadata;
  problems: MetadataProblem[];
} {
  const problems: MetadataProblem[] = [];
  const metadata: EntryMetadata = parseOverride(raw, '', problems);
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    if (typeof record.sensitive === 'boolean') metadata.sensitive = record.sensitive;
    else if (record.sensitive !== undefined)
      problems.push({ key: 'sensitive', message: 'must be a boolean' });
    if (typeof record.reason === 'string') metadata.reason = record.reason.slice(0, 2000);
    if (record.fragments !== undefined) {
      if (
        typeof record.fragments !== 'object' ||
        record.fragments === null ||
        Array.isArray(record.fragments)
      ) {
        problems.push({ key: 'fragments', message: 'must be an object keyed by fragment id' });
      } else {
        // Object.fromEntries defines own properties: an id "__proto__" cannot replace the prototype.
        metadata.fragments = Object.fromEntries(
          Object.entries(record.fragments as Record<string, unknown>).map(([id, value]) => [
            id,
            parseOverride(value, `fragments["${id}"].`, problems),
          ]),
        );
      }
    }
  }
  return { metadata, problems };
}
