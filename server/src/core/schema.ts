import {
  CHUNK_RULES,
  ITEM_TYPES,
  SCHEMA_ID,
  SPEC_VERSION,
  USAGE_VALUES,
} from '../../../shared/constants';

const usageValue = { enum: [...USAGE_VALUES] };
const stringList = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true };
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://' };
const isoTime = { type: 'string', format: 'date-time' };

const column = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    unit: { type: 'string' },
    datatype: { type: 'string' },
    description: { type: 'string' },
  },
  additionalProperties: false,
};

const item = {
  type: 'object',
  required: [
    'id',
    'url',
    'type',
    'lang',
    'license',
    'usage',
    'version',
    'checksum',
    'modified',
    'content_url',
  ],
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9:-]*$', maxLength: 255 },
    url: { ...httpUrl, description: 'Permalink; fragments carry a #anchor' },
    type: { enum: [...ITEM_TYPES] },
    parent: { type: 'string' },
    lang: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'BCP-47' },
    alt_of: { type: 'string' },
    title: { type: 'string' },
    topics: stringList,
    entity_ids: stringList,
    related: stringList,
    license: { type: 'string', format: 'uri' },
    usage: {
      type: 'object',
      required: ['train', 'infer', 'cache', 'redistribute'],
      properties: {
        train: usageValue,
        infer: usageValue,
        cache: usageValue,
        redistribute: usageValue,
      },
      additionalProperties: false,
    },
    checksum: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
    version: { type: 'string', pattern: '^v[0-9]+\\.[0-9]+$' },
    modified: isoTime,
    stability_score: { type: 'number', minimum: 0, maximum: 1 },
    revisit_after: { type: 'string', pattern: '^P[0-9]+D$' },
    evidence: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rel', 'url'],
        properties: {
          rel: { type: 'string', minLength: 1 },
          url: httpUrl,
          title: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    schema: stringList,
    embedding_hint: {
      type: 'object',
      required: ['chunk', 'max_tokens'],
      properties: {
        chunk: { enum: [...CHUNK_RULES] },
        max_tokens: { type: 'integer', minimum: 1 },
        stop_sequences: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    },
    citation: {
      type: 'object',
      required: ['apa', 'bibtex'],
      properties: { apa: { type: 'string' }, bibtex: { type: 'string' } },
      additionalProperties: false,
    },
    changelog: {
      type: 'array',
      items: {
        type: 'object',
        required: ['date', 'version', 'desc'],
        properties: {
          date: { type: 'string' },
          version: { type: 'string' },
          desc: { type: 'string' },
          kind: { type: 'string' },
          checksum_before: { type: ['string', 'null'] },
          checksum_after: { type: ['string', 'null'] },
        },
      },
    },
    signals: {
      type: 'object',
      properties: {
        canonical: httpUrl,
        author_id: { type: 'string', pattern: '^ORCID:[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$' },
        author: { type: 'string' },
        first_published: isoTime,
      },
      additionalProperties: false,
    },
    content_url: httpUrl,
    markdown_url: httpUrl,
    jsonld_url: httpUrl,
    columns: { type: 'array', items: column },
    units: { type: 'array', items: { type: 'string' } },
    source_method: { type: 'string' },
    update_cycle: { type: 'string' },
    alt: { type: 'string' },
    caption: { type: 'string' },
    dpi: { type: 'number', exclusiveMinimum: 0 },
    bounding_boxes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['x', 'y', 'width', 'height'],
        properties: {
          x: { type: 'number' },
          y: { type: 'number' },
          width: { type: 'number', minimum: 0 },
          height: { type: 'number', minimum: 0 },
          label: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    media_url: httpUrl,
    file_url: httpUrl,
    file_checksum: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
  },
  additionalProperties: false,
  allOf: [
    {
      if: { properties: { type: { const: 'article' } } },
      then: { properties: { parent: false } },
      else: {
        required: ['parent'],
        properties: {
          parent: { type: 'string' },
          url: { type: 'string', pattern: '#[a-z0-9-]+$' },
        },
      },
    },
  ],
};

const snapshot = {
  type: 'object',
  required: ['id', 'created_at'],
  properties: { id: { type: 'string', pattern: '^[0-9]+$' }, created_at: isoTime },
  additionalProperties: false,
};

/** JSON Schema (2020-12) of the manifest (docs/protocol.md §4 `schema.json`). */
export const MANIFEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: SCHEMA_ID,
  title: 'sitemap-ai manifest page',
  description:
    'A page of the sitemap-ai manifest: pointers to content fragments with licence, usage rules, checksums, versions and citations.',
  type: 'object',
  required: ['spec', 'snapshot', 'items', 'next_page_token'],
  properties: {
    spec: { const: SPEC_VERSION },
    snapshot: { $ref: '#/$defs/snapshot' },
    items: { type: 'array', items: { $ref: '#/$defs/item' } },
    next_page_token: { type: ['string', 'null'] },
  },
  additionalProperties: false,
  $defs: { item, snapshot, column },
} as const;
