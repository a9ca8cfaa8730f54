import type {
  EntryMetadata,
  EvidenceLink,
  MetadataOverride,
  UsageKind,
  UsageValue,
} from '../../../shared/contracts/admin';

/*
 * Editor metadata helpers (README › In the admin). The validation mirrors the server's
 * reading of the `sitemapAi` attribute (server/src/core/metadata.ts): the
 * server keeps a valid value and leaves an invalid one out, so the panel
 * shows the same rules next to the fields before the entry is saved.
 */

export const USAGE_KINDS: readonly UsageKind[] = ['train', 'infer', 'cache', 'redistribute'];
export const USAGE_VALUES: readonly UsageValue[] = ['allow', 'deny', 'allow-with-citation'];

/** Wikidata QID (Q2013); the server also takes a prefixed id (`wd:Q2013`). */
const ENTITY_ID = /^(Q[1-9][0-9]*|[a-z][a-z0-9]*:[^\s]+)$/;
const EVIDENCE_REL = /^[a-z][a-z0-9-]{0,39}$/;
export const MAX_TAGS = 50;
export const MAX_TOPIC_LENGTH = 120;

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Any absolute URI (a licence page, `urn:…`): what the site and type licences take. */
export function isAbsoluteUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

export const isEntityId = (value: string): boolean => ENTITY_ID.test(value);
export const isEvidenceRel = (value: string): boolean => EVIDENCE_REL.test(value);

/** Message keys (translations) of the problems the panel shows. */
export type MetadataProblem =
  | 'validation.licenseUrl'
  | 'validation.evidenceUrl'
  | 'validation.evidenceRel'
  | 'validation.stability'
  | 'validation.entityId'
  | 'validation.topic'
  | 'validation.tooMany';

/** Problems of one override, keyed by the field path below it (`license`, `evidence.0.url`, `stability_pin`). */
export function validateOverride(value: MetadataOverride): Record<string, MetadataProblem> {
  const problems: Record<string, MetadataProblem> = {};
  if (value.license !== undefined && !isHttpUrl(value.license))
    problems.license = 'validation.licenseUrl';
  (value.evidence ?? []).forEach((link, index) => {
    if (!isEvidenceRel(link.rel)) problems[`evidence.${index}.rel`] = 'validation.evidenceRel';
    if (!isHttpUrl(link.url)) problems[`evidence.${index}.url`] = 'validation.evidenceUrl';
  });
  if (
    value.stability_pin !== undefined &&
    !(value.stability_pin >= 0 && value.stability_pin <= 1)
  ) {
    problems.stability_pin = 'validation.stability';
  }
  const entityIds = value.entity_ids ?? [];
  if (entityIds.length > MAX_TAGS) problems.entity_ids = 'validation.tooMany';
  else if (entityIds.some((id) => !isEntityId(id))) problems.entity_ids = 'validation.entityId';
  // The server trims a topic before measuring it.
  const topics = value.topics ?? [];
  if (topics.length > MAX_TAGS) problems.topics = 'validation.tooMany';
  else if (topics.some((topic) => topic.trim() === '' || topic.trim().length > MAX_TOPIC_LENGTH))
    problems.topics = 'validation.topic';
  return problems;
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
