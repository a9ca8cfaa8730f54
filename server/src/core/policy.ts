import { DEFAULT_USAGE, USAGE_KINDS } from '../../../shared/constants';
import type { EmbeddingHint, EvidenceLink, MetadataOverride, Usage } from './types';
import type { ChunkRule } from '../../../shared/constants';

/** One level of the policy cascade: site, content type, entry or fragment. */
export interface PolicyLayer {
  license?: string;
  usage?: Partial<Usage>;
  chunk?: ChunkRule;
  maxTokens?: number;
  stopSequences?: string[];
}

export interface EffectivePolicy {
  license: string;
  usage: Usage;
  embedding_hint: EmbeddingHint;
}

/**
 * Effective licence, usage and embedding hints (docs/protocol.md §2 "policy cascade"):
 * site defaults → content-type policy → entry → fragment override, the most
 * specific value winning. Usage kinds nobody set fall back to DEFAULT_USAGE,
 * where `train` is `deny` (deny by default).
 */
export function resolvePolicy(
  layers: readonly (PolicyLayer | undefined)[],
  fallbackLicense: string,
): EffectivePolicy {
  let license = fallbackLicense;
  const usage: Usage = { ...DEFAULT_USAGE };
  let chunk: ChunkRule = 'by_h2';
  let maxTokens = 800;
  let stopSequences: string[] | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    if (layer.license) license = layer.license;
    for (const kind of USAGE_KINDS) {
      const value = layer.usage?.[kind];
      if (value) usage[kind] = value;
    }
    if (layer.chunk) chunk = layer.chunk;
    if (layer.maxTokens) maxTokens = layer.maxTokens;
    if (layer.stopSequences) stopSequences = [...layer.stopSequences];
  }
  const embedding_hint: EmbeddingHint = { chunk, max_tokens: maxTokens };
  if (stopSequences && stopSequences.length > 0) embedding_hint.stop_sequences = stopSequences;
  return { license, usage, embedding_hint };
}

/** An editor's override of one item: by the item's id, else by its fragment key. */
export function overrideOf(
  overrides: Readonly<Record<string, MetadataOverride>> | undefined,
  id: string,
  key: string,
): MetadataOverride | undefined {
  return overrides?.[id] ?? overrides?.[key];
}

/**
 * The licence and usage of one item (README: "Policy integrity"): site defaults → content
 * type → entry → the item's own override. The item builder and the check the builder runs
 * before publishing both use it.
 */
export function cascadePolicy(
  site: PolicyLayer & { license: string },
  type: PolicyLayer,
  entry: MetadataOverride | undefined,
  override: MetadataOverride | undefined,
): EffectivePolicy {
  return resolvePolicy([site, type, metadataLayer(entry), metadataLayer(override)], site.license);
}

/** An editor's override as a policy layer (only licence and usage cascade from it). */
export function metadataLayer(meta: MetadataOverride | undefined): PolicyLayer | undefined {
  if (!meta) return undefined;
  return { license: meta.license, usage: meta.usage };
}

/** Evidence links deduplicated by URL, first occurrence (most specific) winning. */
export function mergeEvidence(
  ...lists: readonly (readonly EvidenceLink[] | undefined)[]
): EvidenceLink[] {
  const seen = new Set<string>();
  const merged: EvidenceLink[] = [];
  for (const list of lists) {
    for (const link of list ?? []) {
      if (seen.has(link.url)) continue;
      seen.add(link.url);
      merged.push({ ...link });
    }
  }
  return merged;
}

/** Topic labels normalised: trimmed, single spaces, deduplicated case-insensitively. */
export function normaliseTopics(...lists: readonly (readonly string[] | undefined)[]): string[] {
  // Made at the first topic: an item has four such lists, most of them empty.
  let seen: Set<string> | undefined;
  const topics: string[] = [];
  for (const list of lists) {
    if (!list) continue;
    for (const raw of list) {
      const topic = raw.replace(/\s+/g, ' ').trim();
      const key = topic.toLowerCase();
      if (topic === '' || seen?.has(key)) continue;
      (seen ??= new Set()).add(key);
      topics.push(topic);
    }
  }
  return topics;
}
