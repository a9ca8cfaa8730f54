import type {
  EntryMetadata,
  EvidenceLink,
  MetadataOverride,
} from '../../../shared/contracts/admin';

import type { z } from 'zod';
import { metadataOverrideSchema } from '../../../shared/metadata-schema';

/*
 * Editor metadata helpers (README › In the admin). The panel validates with the server's
 * own schema (shared/metadata-schema.ts): the server keeps a valid value and refuses or
 * leaves out an invalid one, so the panel shows the same rules next to the fields before
 * the entry is saved. What is the admin's own here: which message each problem shows.
 */

/** Message keys (translations) of the problems the panel shows. */
export type MetadataProblem =
  | 'validation.licenseUrl'
  | 'validation.evidenceUrl'
  | 'validation.evidenceRel'
  | 'validation.stability'
  | 'validation.entityId'
  | 'validation.topic'
  | 'validation.tooMany'
  | 'validation.tooLong'
  | 'validation.invalid';

/** Fields whose problems are shown for the whole list, not for one of its values. */
const LIST_FIELDS = new Set(['topics', 'entity_ids']);

/** The message of one schema issue, by the field it is about and what went wrong. */
function problemOf(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): MetadataProblem {
  const [field, index, part] = path;
  if (issue.code === 'too_big' && issue.origin === 'array') return 'validation.tooMany';
  if (field === 'license') return 'validation.licenseUrl';
  if (field === 'stability_pin') return 'validation.stability';
  if (field === 'topics' && index !== undefined) return 'validation.topic';
  if (field === 'entity_ids' && index !== undefined) return 'validation.entityId';
  if (field === 'evidence' && part === 'rel') return 'validation.evidenceRel';
  if (field === 'evidence' && part === 'url') return 'validation.evidenceUrl';
  if (issue.code === 'too_big' && issue.origin === 'string') return 'validation.tooLong';
  return 'validation.invalid';
}

/**
 * Problems of one override, keyed by the field path below it (`license`, `evidence.0.url`,
 * `stability_pin`); a list of tags has one problem for the whole list, "too many" first.
 */
export function validateOverride(value: MetadataOverride): Record<string, MetadataProblem> {
  const parsed = metadataOverrideSchema.safeParse(value);
  if (parsed.success) return {};
  const problems: Record<string, MetadataProblem> = {};
  const report = (path: readonly PropertyKey[], problem: MetadataProblem) => {
    const key = LIST_FIELDS.has(String(path[0])) ? String(path[0]) : path.map(String).join('.');
    if (problems[key] === undefined || problem === 'validation.tooMany') problems[key] = problem;
  };
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys')
      for (const key of issue.keys) report([...issue.path, key], 'validation.invalid');
    else report(issue.path, problemOf(issue, issue.path));
  }
  return problems;
}

/** The problem of one tag an editor is adding to `field`, checked as the server checks the list. */
export function tagProblem(field: 'topics' | 'entity_ids', tag: string): MetadataProblem | null {
  return validateOverride({ [field]: [tag] })[field] ?? null;
}

function cleanEvidence(links: EvidenceLink[] | undefined): EvidenceLink[] | undefined {
  if (!links || links.length === 0) return undefined;
  return links.map((link) => (link.title ? link : { rel: link.rel, url: link.url }));
}

/**
 * An override without its empty parts: "inherit" and empty inputs are absent
 * keys, so the cascade (site → type → entry → fragment) applies to them.
 * Evidence rows are kept even when half filled, so the editor sees them.
 */
export function cleanOverride(value: MetadataOverride): MetadataOverride {
  const result: MetadataOverride = {};
  if (value.license) result.license = value.license;
  const usage = Object.fromEntries(
    Object.entries(value.usage ?? {}).filter(
      ([, v]) => v !== undefined && v !== null && (v as string) !== '',
    ),
  );
  if (Object.keys(usage).length > 0) result.usage = usage;
  const evidence = cleanEvidence(value.evidence);
  if (evidence) result.evidence = evidence;
  if (value.topics && value.topics.length > 0) result.topics = value.topics;
  if (value.entity_ids && value.entity_ids.length > 0) result.entity_ids = value.entity_ids;
  if (value.related && value.related.length > 0) result.related = value.related;
  if (typeof value.stability_pin === 'number' && !Number.isNaN(value.stability_pin))
    result.stability_pin = value.stability_pin;
  const citation = {
    ...(value.citation?.apa ? { apa: value.citation.apa } : {}),
    ...(value.citation?.bibtex ? { bibtex: value.citation.bibtex } : {}),
  };
  if (Object.keys(citation).length > 0) result.citation = citation;
  if (value.schema && value.schema.length > 0) result.schema = value.schema;
  if (value.alt_of) result.alt_of = value.alt_of;
  if (value.exclude === true) result.exclude = true;
  // Set through the API (no input in the panel yet): kept as they are, never dropped by an edit.
  if (typeof value.dpi === 'number') result.dpi = value.dpi;
  if (value.bounding_boxes && value.bounding_boxes.length > 0)
    result.bounding_boxes = value.bounding_boxes;
  return result;
}

/** The whole attribute without empty parts; fragments without overrides disappear. */
export function cleanEntryMetadata(value: EntryMetadata): EntryMetadata {
  const { sensitive, reason, fragments, ...override } = value;
  const result: EntryMetadata = cleanOverride(override);
  if (sensitive === true) result.sensitive = true;
  if (reason && reason.trim() !== '') result.reason = reason;
  const kept = Object.entries(fragments ?? {})
    .map(([id, fragment]) => [id, cleanOverride(fragment)] as const)
    .filter(([, fragment]) => Object.keys(fragment).length > 0);
  if (kept.length > 0) result.fragments = Object.fromEntries(kept);
  return result;
}

/**
 * The reason the editor typed is the one recorded with the entry's last published
 * change: the server compares them trimmed (core/tracking.ts freshReason) and then
 * writes an automatic summary instead of repeating it.
 */
export function isRecordedReason(
  reason: string | undefined,
  lastRecordedReason: string | undefined,
): boolean {
  const typed = reason?.trim();
  return typed !== undefined && typed !== '' && typed === lastRecordedReason;
}

/** Reads the stored attribute leniently: anything that is not an object is "nothing set". */
export function readEntryMetadata(raw: unknown): EntryMetadata {
  if (typeof raw === 'string') {
    try {
      return readEntryMetadata(JSON.parse(raw));
    } catch {
      return {};
    }
  }
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw)
    ? (raw as EntryMetadata)
    : {};
}

/** Splits what an editor typed into tags (comma, semicolon or newline separated), trimmed, without duplicates of `existing`. */
export function splitTags(input: string, existing: readonly string[]): string[] {
  const seen = new Set(existing);
  const result: string[] = [];
  for (const part of input.split(/[,;\n]/)) {
    const tag = part.trim();
    if (tag === '' || seen.has(tag)) continue;
    seen.add(tag);
    result.push(tag);
  }
  return result;
}

/**
 * The Content Manager keeps a save's validation errors nested by path
 * (`{ sitemapAi: { evidence: { 1: { url: '…' } } } }`); flattened to
 * `evidence.1.url` → message, without the field name the server puts first.
 */
export function flattenFormErrors(errors: unknown, prefix = ''): Record<string, string> {
  if (typeof errors === 'string') return { [prefix]: errors.replace(/^sitemapAi[^\s]*: /, '') };
  if (typeof errors !== 'object' || errors === null) return {};
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(errors as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    Object.assign(result, flattenFormErrors(value, prefix ? `${prefix}.${key}` : key));
  }
  return result;
}

/** The first server error at `path` or below it (`evidence.1` finds `evidence.1.url`). */
export function errorAt(errors: Record<string, string>, path: string): string | undefined {
  if (errors[path] !== undefined) return errors[path];
  const below = Object.keys(errors).find((key) => key.startsWith(`${path}.`));
  return below === undefined ? undefined : errors[below];
}

/** The errors below `prefix`, with it removed from their keys. */
export function errorsBelow(
  errors: Record<string, string>,
  prefix: string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(errors)
      .filter(([key]) => key.startsWith(`${prefix}.`))
      .map(([key, message]) => [key.slice(prefix.length + 1), message]),
  );
}
