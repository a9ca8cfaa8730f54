import { METADATA_ATTRIBUTE } from '../../../shared/constants';
import type { ContentTypeConfig } from './config';
import { ConfigError } from './errors';
import type { RichTextFormat } from './types';
import { patternPlaceholders } from '../../../shared/urls';

/** The part of a Strapi attribute definition the field map reads. */
export interface AttributeDef {
  type: string;
  private?: boolean;
  multiple?: boolean;
  component?: string;
  repeatable?: boolean;
  target?: string;
  relation?: string;
}

export type Attributes = Readonly<Record<string, AttributeDef>>;

export interface ComponentRole {
  field: string;
  component: string;
  repeatable: boolean;
}

/** Which attributes of a content type feed which part of the manifest. */
export interface FieldMap {
  title: string;
  slug?: string;
  summary?: string;
  bodies: { field: string; format: RichTextFormat }[];
  media: string[];
  faq: (ComponentRole & { question: string; answer: string })[];
  tables: (ComponentRole & { caption?: string })[];
  datasets: (ComponentRole & { title?: string })[];
  author?: { field: string; target: string; name: string; orcid?: string };
  /** Placeholders of the path pattern, other than `locale` and `documentId`, read from the entry. */
  pathFields: string[];
}

const TITLE_CANDIDATES = ['title', 'name', 'headline'];
const SUMMARY_CANDIDATES = ['summary', 'excerpt', 'description', 'lead'];
const AUTHOR_CANDIDATES = ['author', 'authors'];

function first(
  attributes: Attributes,
  names: readonly string[],
  types: readonly string[],
): string | undefined {
  return names.find(
    (n) => attributes[n] && types.includes(attributes[n]!.type) && !attributes[n]!.private,
  );
}

function requireField(
  uid: string,
  key: string,
  attributes: Attributes,
  name: string,
  types: readonly string[],
): string {
  const attribute = attributes[name];
  if (!attribute)
    throw new ConfigError(
      `contentTypes["${uid}"].${key}`,
      `"${name}" is not an attribute of ${uid}`,
    );
  if (!types.includes(attribute.type)) {
    throw new ConfigError(
      `contentTypes["${uid}"].${key}`,
      `"${name}" is a ${attribute.type} attribute; expected ${types.join(' or ')}`,
    );
  }
  if (attribute.private)
    throw new ConfigError(
      `contentTypes["${uid}"].${key}`,
      `"${name}" is private and is never published`,
    );
  return name;
}

/**
 * Work out which attributes feed the manifest: from the type's config where
 * it says, else from the schema (rich text, media, FAQ/table/dataset-shaped
 * components, an author relation). Private attributes are never used. A
 * config that names a missing or unsuitable attribute throws ConfigError.
 */
export function resolveFieldMap(
  uid: string,
  attributes: Attributes,
  components: Readonly<Record<string, { attributes: Attributes }>>,
  targets: Readonly<Record<string, { attributes: Attributes }>>,
  config: ContentTypeConfig,
): FieldMap {
  const textTypes = ['string', 'text', 'uid'];
  const title = config.titleField
    ? requireField(uid, 'titleField', attributes, config.titleField, textTypes)
    : first(attributes, TITLE_CANDIDATES, textTypes);
  if (!title)
    throw new ConfigError(
      `contentTypes["${uid}"].titleField`,
      'no title attribute found; name one',
    );
  const slug = config.slugField
    ? requireField(uid, 'slugField', attributes, config.slugField, textTypes)
    : Object.keys(attributes).find((n) => attributes[n]!.type === 'uid' && !attributes[n]!.private);
  const summary = config.summaryField
    ? requireField(uid, 'summaryField', attributes, config.summaryField, ['string', 'text'])
    : first(attributes, SUMMARY_CANDIDATES, ['string', 'text']);

  const html = new Set(config.htmlFields);
  for (const name of html)
    requireField(uid, 'htmlFields', attributes, name, ['text', 'richtext', 'string']);
  const bodyNames = config.bodyFields
    ? config.bodyFields.map((n) =>
        requireField(uid, 'bodyFields', attributes, n, ['richtext', 'blocks', 'text']),
      )
    : Object.keys(attributes).filter(
        (n) =>
          (attributes[n]!.type === 'richtext' || attributes[n]!.type === 'blocks' || html.has(n)) &&
          !attributes[n]!.private,
      );
  for (const name of html) if (!bodyNames.includes(name)) bodyNames.push(name);
  const bodies = bodyNames.map((field) => ({
    field,
    format: (html.has(field)
      ? 'html'
      : attributes[field]!.type === 'blocks'
        ? 'blocks'
        : 'markdown') as RichTextFormat,
  }));

  const media = config.mediaFields
    ? config.mediaFields.map((n) => requireField(uid, 'mediaFields', attributes, n, ['media']))
    : Object.keys(attributes).filter(
        (n) => attributes[n]!.type === 'media' && !attributes[n]!.private,
      );

  const faq: FieldMap['faq'] = [];
  const tables: FieldMap['tables'] = [];
  const datasets: FieldMap['datasets'] = [];
  for (const [field, attribute] of Object.entries(attributes)) {
    if (attribute.type !== 'component' || attribute.private || !attribute.component) continue;
    const component = components[attribute.component];
    if (!component) continue;
    const inner = component.attributes;
    const role = {
      field,
      component: attribute.component,
      repeatable: attribute.repeatable === true,
    };
    const question = first(inner, ['question', 'q'], ['string', 'text']);
    const answer = first(inner, ['answer', 'a'], ['richtext', 'text', 'string']);
    if (question && answer) {
      faq.push({ ...role, question, answer });
    } else if (inner.columns && inner.file?.type === 'media') {
      datasets.push({ ...role, title: first(inner, TITLE_CANDIDATES, ['string']) });
    } else if (inner.columns && inner.rows) {
      tables.push({ ...role, caption: first(inner, ['caption', 'title'], ['string', 'text']) });
    }
  }

  let author: FieldMap['author'];
  const authorField =
    config.authorField ?? AUTHOR_CANDIDATES.find((n) => attributes[n]?.type === 'relation');
  if (authorField) {
    const attribute = attributes[authorField];
    if (!attribute || attribute.type !== 'relation' || !attribute.target) {
      if (config.authorField)
        throw new ConfigError(
          `contentTypes["${uid}"].authorField`,
          `"${authorField}" is not a relation of ${uid}`,
        );
    } else {
      const target = targets[attribute.target]?.attributes ?? {};
      const name = first(target, ['name', 'fullName', 'displayName', 'title'], ['string']);
      if (name)
        author = {
          field: authorField,
          target: attribute.target,
          name,
          orcid: first(target, ['orcid', 'ORCID'], ['string']),
        };
    }
  }

  const pathFields = patternPlaceholders(config.pathPattern).filter(
    (p) => p !== 'locale' && p !== 'documentId',
  );
  for (const name of pathFields) {
    const attribute = attributes[name];
    if (
      !attribute ||
      attribute.private ||
      !['string', 'uid', 'integer', 'enumeration', 'date'].includes(attribute.type)
    ) {
      throw new ConfigError(
        `contentTypes["${uid}"].pathPattern`,
        `placeholder {${name}} is not a public string, uid, number, enumeration or date attribute of ${uid}`,
      );
    }
  }
  if (attributes[METADATA_ATTRIBUTE] && attributes[METADATA_ATTRIBUTE].type !== 'json') {
    throw new ConfigError(
      `contentTypes["${uid}"]`,
      `attribute "${METADATA_ATTRIBUTE}" is reserved by sitemap-ai`,
    );
  }
  return { title, slug, summary, bodies, media, faq, tables, datasets, author, pathFields };
}
