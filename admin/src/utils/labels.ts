import type {
  ChunkRule,
  FragmentPreview,
  FragmentType,
  PolicySource,
  ReadinessCheckId,
  UsageKind,
  UsageValue,
} from '../../../shared/contracts/admin';
import type { MessageKey } from '../hooks/useTranslate';

/** Translation keys of the contract's enums. */
export const USAGE_VALUE_LABELS: Record<UsageValue, MessageKey> = {
  allow: 'usage.value.allow',
  deny: 'usage.value.deny',
  'allow-with-citation': 'usage.value.allow-with-citation',
};

export const USAGE_KIND_LABELS: Record<UsageKind, MessageKey> = {
  train: 'usage.kind.train',
  infer: 'usage.kind.infer',
  cache: 'usage.kind.cache',
  redistribute: 'usage.kind.redistribute',
};

export const SOURCE_LABELS: Record<PolicySource, MessageKey> = {
  site: 'source.site',
  type: 'source.type',
  entry: 'source.entry',
  fragment: 'source.fragment',
};

export const FRAGMENT_TYPE_LABELS: Record<FragmentType | 'article', MessageKey> = {
  article: 'fragmentType.article',
  section: 'fragmentType.section',
  table: 'fragmentType.table',
  figure: 'fragmentType.figure',
  faq: 'fragmentType.faq',
  dataset: 'fragmentType.dataset',
};

export const FRAGMENT_STATE_LABELS: Record<FragmentPreview['state'], MessageKey> = {
  new: 'fragment.state.new',
  changed: 'fragment.state.changed',
  unchanged: 'fragment.state.unchanged',
};

export const CHUNK_LABELS: Record<ChunkRule, MessageKey> = {
  by_h2: 'chunk.by_h2',
  by_h3: 'chunk.by_h3',
  whole: 'chunk.whole',
};

export const READINESS_LABELS: Record<ReadinessCheckId, MessageKey> = {
  'required-fields': 'readiness.required-fields',
  permalinks: 'readiness.permalinks',
  'changelog-90-days': 'readiness.changelog-90-days',
  evidence: 'readiness.evidence',
  'embedding-hints': 'readiness.embedding-hints',
  'delta-and-paging': 'readiness.delta-and-paging',
  policy: 'readiness.policy',
  'schema-valid': 'readiness.schema-valid',
};

export const FRAGMENT_TYPES: readonly FragmentType[] = [
  'section',
  'table',
  'figure',
  'faq',
  'dataset',
];
export const CHUNK_RULES: readonly ChunkRule[] = ['by_h2', 'by_h3', 'whole'];
