import { z } from 'zod';
import { usageOverrideSchema } from './config';
import { isHttpUrl } from '../../../shared/urls';
import type { EntryMetadata, MetadataOverride } from './types';

/** Wikidata QIDs and other knowledge-graph ids (`Q2013`, `wd:Q2013`, `https://…`). */
const entityId = z
  .string()
  .regex(
    /^(Q[1-9][0-9]*|[a-z][a-z0-9]*:[^\s]+)$/,
    'must be a Wikidata QID (Q2013) or a prefixed id',
  );

export const evidenceSchema = z
  .object({
    rel: z
      .string()
      .regex(
        /^[a-z][a-z0-9-]{0,39}$/,
        'must be a short lowercase relation such as standard, dataset or source',
      ),
    url: z.string().max(2048).refine(isHttpUrl, 'must be an absolute http(s) URL'),
    title: z.string().max(300).optional(),
  })
  .strict();

const label = z.string().trim().min(1).max(120);

export const metadataOverrideSchema = z
  .object({
    license: z.string().max(2048).refine(isHttpUrl, 'must be an absolute http(s) URI').optional(),
    usage: usageOverrideSchema.optional(),
    evidence: z.array(evidenceSchema).max(50).optional(),
    topics: z.array(label).max(50).optional(),
    entity_ids: z.array(entityId).max(50).optional(),
    related: z
      .array(
        z
          .string()
          .regex(/^[a-z0-9][a-z0-9:-]*$/)
          .max(255),
      )
      .max(50)
      .optional(),
    stability_pin: z.number().min(0).max(1).optional(),
    citation: z
      .object({ apa: z.string().max(2000).optional(), bibtex: z.string().max(4000).optional() })
      .strict()
      .optional(),
    schema: z
      .array(z.string().regex(/^[A-Z][A-Za-z]+$/))
      .max(20)
      .optional(),
    alt_of: z
      .string()
      .regex(/^[a-z0-9][a-z0-9:-]*$/)
      .max(255)
      .optional(),
    exclude: z.boolean().optional(),
    dpi: z.number().positive().max(100_000).optional(),
    bounding_boxes: z
      .array(
        z
          .object({
            x: z.number().min(0),
            y: z.number().min(0),
            width: z.number().min(0),
            height: z.number().min(0),
            label: z.string().max(200).optional(),
          })
          .strict(),
      )
      .max(100)
      .optional(),
  })
  .strict();

export const entryMetadataSchema = metadataOverrideSchema
  .extend({
    sensitive: z.boolean().optional(),
    reason: z.string().max(2000).optional(),
    fragments: z.record(z.string().max(255), metadataOverrideSchema).optional(),
  })
  .strict();

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
