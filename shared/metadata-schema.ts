/**
 * The editor metadata of an entry (the `sitemapAi` attribute, README › In the admin): one zod
 * schema read by the server (the save guard and the lenient reading of stored values) and by
 * the admin's side panel, which shows the same rules next to the fields before a save.
 * Browser-safe: zod and pure helpers only.
 */
import { z } from 'zod';
import { URL_MAX_LENGTH, httpUrlSchema, usageOverrideSchema } from './settings-schema';
import { isHttpUrl } from './urls';

/** At most this many evidence links, topics, entity ids or related items per override. */
export const METADATA_LIST_MAX = 50;

/** Longest topic, counted without surrounding spaces. */
export const TOPIC_MAX_LENGTH = 120;

/** Wikidata QIDs and other knowledge-graph ids (`Q2013`, `wd:Q2013`, `gnd:4002214-6`). */
const ENTITY_ID = /^(Q[1-9][0-9]*|[a-z][a-z0-9]*:[^\s]+)$/;

/** An evidence link's relation (docs/protocol.md §1.2 `evidence`): `standard`, `dataset`, `source`. */
const EVIDENCE_REL = /^[a-z][a-z0-9-]{0,39}$/;

export const isEntityId = (value: string): boolean => ENTITY_ID.test(value);
export const isEvidenceRel = (value: string): boolean => EVIDENCE_REL.test(value);

const entityId = z.string().regex(ENTITY_ID, 'must be a Wikidata QID (Q2013) or a prefixed id');

export const evidenceSchema = z
  .object({
    rel: z
      .string()
      .regex(
        EVIDENCE_REL,
        'must be a short lowercase relation such as standard, dataset or source',
      ),
    url: httpUrlSchema(z.string()),
    title: z.string().max(300).optional(),
  })
  .strict();

const label = z.string().trim().min(1).max(TOPIC_MAX_LENGTH);
const itemId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9:-]*$/)
  .max(255);

export const metadataOverrideSchema = z
  .object({
    // An entry's licence is a page a reader can open: http(s) only (a site's may be a `urn:`).
    license: z
      .string()
      .max(URL_MAX_LENGTH)
      .refine(isHttpUrl, 'must be an absolute http(s) URI')
      .optional(),
    usage: usageOverrideSchema.optional(),
    evidence: z.array(evidenceSchema).max(METADATA_LIST_MAX).optional(),
    topics: z.array(label).max(METADATA_LIST_MAX).optional(),
    entity_ids: z.array(entityId).max(METADATA_LIST_MAX).optional(),
    related: z.array(itemId).max(METADATA_LIST_MAX).optional(),
    stability_pin: z.number().min(0).max(1).optional(),
    citation: z
      .object({ apa: z.string().max(2000).optional(), bibtex: z.string().max(4000).optional() })
      .strict()
      .optional(),
    schema: z
      .array(z.string().regex(/^[A-Z][A-Za-z]+$/))
      .max(20)
      .optional(),
    alt_of: itemId.optional(),
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
