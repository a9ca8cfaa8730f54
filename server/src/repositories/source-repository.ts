import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { sha256Hex } from '../core/canonical';
import { PackedStringSet } from '../core/packed-strings';
import { METADATA_ATTRIBUTE } from '../../../shared/constants';
import type { FieldMap } from '../core/field-map';
import { readEntryMetadata, type MetadataProblem } from '../core/metadata';
import type { Column, EntrySource, MediaSource } from '../core/types';
import { createContentSchemas } from './content-schemas';

type Doc = Record<string, unknown>;

const PAGE = 100;
/** Documents listed per query (ids and slugs only) before they are read in slug order. */
const LIST_PAGE = 1000;

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function isoOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' && value !== '') {
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString();
  }
  return undefined;
}

function list(value: unknown): Doc[] {
  if (Array.isArray(value))
    return value.filter((v): v is Doc => typeof v === 'object' && v !== null);
  if (typeof value === 'object' && value !== null) return [value as Doc];
  return [];
}

function columnsOf(value: unknown): Column[] {
  return list(value)
    .map((c) => ({
      name: str(c.name) ?? '',
      unit: str(c.unit) || undefined,
      datatype: str(c.datatype) || undefined,
      description: str(c.description) || undefined,
    }))
    .filter((c) => c.name !== '');
}

function rowsOf(value: unknown): unknown[][] {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return [];
    }
  }
  return Array.isArray(parsed) ? parsed.filter(Array.isArray) : [];
}

/** Populate tree for everything the field map reads (and nothing private). */
export function populateFor(map: FieldMap): Record<string, unknown> {
  const populate: Record<string, unknown> = {};
  for (const field of map.media) populate[field] = true;
  for (const role of map.faq) populate[role.field] = true;
  for (const role of map.tables) populate[role.field] = { populate: { columns: true } };
  for (const role of map.datasets)
    populate[role.field] = { populate: { file: true, columns: true } };
  if (map.author) {
    const fields = [map.author.name, ...(map.author.orcid ? [map.author.orcid] : [])];
    populate[map.author.field] = { fields };
  }
  return populate;
}

/** Content of the site: the only code that reads documents for the manifest (published) and the editors' panel (drafts). */
export const createSourceRepository = ({ strapi }: { strapi: Core.Strapi }) => {
  const publicDir = (): string => strapi.dirs?.static?.public ?? path.join(process.cwd(), 'public');
  const fileChecksums = new Map<string, string | undefined>();
  const schemas = createContentSchemas({ strapi });

  /**
   * The published documents of one type in one locale, each as its key (the slug, or '') and id
   * joined by a NUL, sorted: listed in keyset pages of document ids, only those two fields. Held
   * packed (PackedStringSet) for as long as a whole-site pass reads the type: at 100k documents, a
   * string of its own each was ~5.5 MB of the pass's heap, packed ~3.4 MB.
   */
  async function listedInOrder(
    uid: string,
    map: FieldMap,
    locale: string | undefined,
  ): Promise<PackedStringSet> {
    const listed: string[] = [];
    const fields = map.slug ? ['documentId', map.slug] : ['documentId'];
    let after: string | null = null;
    for (;;) {
      const docs = (await strapi.documents(uid as never).findMany({
        status: 'published',
        ...(locale ? { locale } : {}),
        ...(after === null ? {} : { filters: { documentId: { $gt: after } } }),
        fields,
        sort: 'documentId:asc',
        limit: LIST_PAGE,
      } as never)) as unknown as Doc[];
      for (const doc of docs) {
        const documentId = String(doc.documentId);
        listed.push(`${(map.slug ? str(doc[map.slug]) : undefined) ?? ''}\0${documentId}`);
      }
      if (docs.length < LIST_PAGE) break;
      after = String(docs[docs.length - 1]!.documentId);
    }
    // By key, then id (code unit order: a key holds no NUL, which sorts before all else).
    return PackedStringSet.of(listed);
  }

  /** sha256 of a local upload's bytes (docs/protocol.md §1 dataset integrity); remote files are not fetched. */
  async function fileChecksum(file: Doc): Promise<string | undefined> {
    const url = str(file.url);
    if (!url || file.provider !== 'local' || !url.startsWith('/')) return undefined;
    const cacheKey = `${url}|${str(file.hash) ?? ''}|${str(file.size) ?? ''}`;
    if (fileChecksums.has(cacheKey)) return fileChecksums.get(cacheKey);
    const root = path.resolve(publicDir());
    const target = path.resolve(root, `.${decodeURIComponent(url.split('?')[0]!)}`);
    let checksum: string | undefined;
    if (target.startsWith(root + path.sep)) {
      try {
        checksum = `sha256:${sha256Hex(await readFile(target))}`;
      } catch {
        checksum = undefined;
      }
    }
    fileChecksums.set(cacheKey, checksum);
    return checksum;
  }

  function mediaOf(field: string, value: unknown): MediaSource[] {
    return list(value)
      .filter((file) => typeof file.url === 'string')
      .map((file) => ({
        field,
        url: String(file.url),
        mime: str(file.mime),
        alt: str(file.alternativeText) || undefined,
        caption: str(file.caption) || undefined,
        width: typeof file.width === 'number' ? file.width : undefined,
        height: typeof file.height === 'number' ? file.height : undefined,
      }));
  }

  async function toEntry(
    uid: string,
    typeKey: string,
    map: FieldMap,
    doc: Doc,
    lang: string,
  ): Promise<{ entry: EntrySource; problems: MetadataProblem[] }> {
    const { metadata, problems } = readEntryMetadata(doc[METADATA_ATTRIBUTE]);
    const pathValues: Record<string, string> = { locale: lang, documentId: String(doc.documentId) };
    for (const field of map.pathFields) {
      const value = str(doc[field]);
      if (value !== undefined) pathValues[field] = value;
    }
    const datasets = [];
    for (const role of map.datasets) {
      for (const item of list(doc[role.field])) {
        const file = list(item.file)[0];
        datasets.push({
          field: role.field,
          title: role.title ? str(item[role.title]) : undefined,
          description: str(item.description),
          fileUrl: file ? str(file.url) : undefined,
          mime: file ? str(file.mime) : undefined,
          fileChecksum: file ? await fileChecksum(file) : undefined,
          columns: columnsOf(item.columns),
          sourceMethod: str(item.source_method) || undefined,
          updateCycle: str(item.update_cycle) || undefined,
        });
      }
    }
    const entry: EntrySource = {
      uid,
      typeKey,
      documentId: String(doc.documentId),
      lang,
      slug: map.slug ? str(doc[map.slug]) : undefined,
      title: str(doc[map.title]) ?? String(doc.documentId),
      summary: map.summary ? str(doc[map.summary]) : undefined,
      createdAt: isoOf(doc.createdAt),
      updatedAt: isoOf(doc.updatedAt),
      publishedAt: isoOf(doc.publishedAt),
      bodies: map.bodies.map((b) => ({ field: b.field, format: b.format, value: doc[b.field] })),
      media: map.media.flatMap((field) => mediaOf(field, doc[field])),
      faq: map.faq.flatMap((role) =>
        list(doc[role.field]).map((item) => ({
          question: str(item[role.question]) ?? '',
          answer: str(item[role.answer]) ?? '',
        })),
      ),
      tables: map.tables.flatMap((role) =>
        list(doc[role.field]).map((item) => ({
          field: role.field,
          caption: role.caption ? str(item[role.caption]) : undefined,
          columns: columnsOf(item.columns),
          rows: rowsOf(item.rows),
          sourceMethod: str(item.source_method) || undefined,
          updateCycle: str(item.update_cycle) || undefined,
        })),
      ),
      datasets,
      authors: map.author
        ? list(doc[map.author.field]).map((a) => ({
            name: str(a[map.author!.name]) ?? '',
            orcid: map.author!.orcid ? str(a[map.author!.orcid]) || undefined : undefined,
          }))
        : [],
      metadata,
      pathValues,
    };
    return { entry, problems };
  }

  async function oneVersion(
    status: 'published' | 'draft',
    uid: string,
    typeKey: string,
    map: FieldMap,
    documentId: string,
    locale: string | undefined,
    lang: string,
  ): Promise<{ entry: EntrySource; problems: MetadataProblem[] } | null> {
    const doc = (await strapi.documents(uid as never).findOne({
      documentId,
      status,
      ...(locale ? { locale } : {}),
      populate: populateFor(map),
    } as never)) as unknown as Doc | null;
    return doc ? toEntry(uid, typeKey, map, doc, lang) : null;
  }

  return {
    /** Locale codes of the site, default first. */
    async locales(fallback: string): Promise<{ codes: string[]; defaultLocale: string }> {
      const service = strapi.plugin('i18n')?.service('locales') as
        | {
            find: () => Promise<{ code: string; isDefault?: boolean }[]>;
            getDefaultLocale?: () => Promise<string>;
          }
        | undefined;
      if (!service) return { codes: [fallback], defaultLocale: fallback };
      const found = await service.find();
      const defaultLocale = found.find((l) => l.isDefault)?.code ?? fallback;
      const codes = [defaultLocale, ...found.map((l) => l.code).filter((c) => c !== defaultLocale)];
      return { codes, defaultLocale };
    },

    isLocalized: (uid: string): boolean => schemas.isLocalized(uid),

    /** The published version of one document in one locale, or null. */
    publishedOne: (
      uid: string,
      typeKey: string,
      map: FieldMap,
      documentId: string,
      locale: string | undefined,
      lang: string,
    ) => oneVersion('published', uid, typeKey, map, documentId, locale, lang),

    /**
     * The saved draft of one document in one locale, or null — read only for
     * the editors' panel (what publishing it would publish), never for the
     * manifest.
     */
    draftOne: (
      uid: string,
      typeKey: string,
      map: FieldMap,
      documentId: string,
      locale: string | undefined,
      lang: string,
    ) => oneVersion('draft', uid, typeKey, map, documentId, locale, lang),

    /**
     * The stored `sitemapAi` value of a document's draft (the current version
     * for a type without draft & publish) in `locale` (the default locale when
     * undefined); undefined when there is no such document or locale yet.
     */
    async storedMetadata(
      uid: string,
      documentId: string,
      locale: string | undefined,
    ): Promise<unknown> {
      const draftAndPublish = schemas.hasDraftAndPublish(uid);
      const doc = (await strapi.documents(uid as never).findOne({
        documentId,
        ...(draftAndPublish ? { status: 'draft' } : {}),
        ...(locale ? { locale } : {}),
        fields: [METADATA_ATTRIBUTE],
      } as never)) as unknown as Doc | null;
      return doc ? (doc[METADATA_ATTRIBUTE] ?? null) : undefined;
    },

    /**
     * The editors' values (`sitemapAi`) of the published versions of `documentIds` in `locale`,
     * read without their content: one query per 200 documents. A document with no published
     * version in that locale is absent from the map.
     */
    async publishedMetadata(
      uid: string,
      documentIds: readonly string[],
      locale: string | undefined,
    ): Promise<Map<string, EntrySource['metadata']>> {
      const result = new Map<string, EntrySource['metadata']>();
      const ids = [...new Set(documentIds)];
      for (let i = 0; i < ids.length; i += 200) {
        const docs = (await strapi.documents(uid as never).findMany({
          status: 'published',
          ...(locale ? { locale } : {}),
          filters: { documentId: { $in: ids.slice(i, i + 200) } },
          fields: ['documentId', METADATA_ATTRIBUTE],
          limit: 200,
        } as never)) as unknown as Doc[];
        for (const doc of docs)
          result.set(String(doc.documentId), readEntryMetadata(doc[METADATA_ATTRIBUTE]).metadata);
      }
      return result;
    },

    /**
     * Published entries of one type in one locale, a page at a time, in the order of the field
     * their items' ids are made of (the slug, when the type has one; then the document id).
     *
     * The documents are listed first, only their ids and slugs, in keyset pages of document ids
     * (each page starts after the last id of the one before, so the cost of a page does not grow
     * with the site), then read a page at a time in slug order. The order is for the database:
     * the plugin's tables are indexed by item id, and a first build that wrote its items in
     * document id order (random to their ids) inserted every batch's rows all over those indexes,
     * so each commit wrote back pages across all of them, ever more as they grew (10k articles on
     * SQLite: commits 16 ms at the start, 180 ms at the end, 11.6 s in all). Written in id order,
     * a batch's rows land beside each other.
     */
    async *published(
      uid: string,
      typeKey: string,
      map: FieldMap,
      locale: string | undefined,
      lang: string,
    ): AsyncGenerator<{ entry: EntrySource; problems: MetadataProblem[] }> {
      const listed = await listedInOrder(uid, map, locale);
      const populate = populateFor(map);
      for (let i = 0; i < listed.size; i += PAGE) {
        const ids: string[] = [];
        for (let j = i; j < Math.min(i + PAGE, listed.size); j += 1) {
          const doc = listed.at(j);
          ids.push(doc.slice(doc.lastIndexOf('\0') + 1));
        }
        const docs = (await strapi.documents(uid as never).findMany({
          status: 'published',
          ...(locale ? { locale } : {}),
          filters: { documentId: { $in: ids } },
          populate,
          limit: PAGE,
        } as never)) as unknown as Doc[];
        // (a document unpublished since it was listed is no longer read: it is not published)
        const byId = new Map(docs.map((doc) => [String(doc.documentId), doc]));
        for (const documentId of ids) {
          const doc = byId.get(documentId);
          if (doc) yield toEntry(uid, typeKey, map, doc, lang);
        }
      }
    },

    /** The published entries of these documents in one locale (those that have one). */
    async publishedOf(
      uid: string,
      typeKey: string,
      map: FieldMap,
      documentIds: readonly string[],
      locale: string | undefined,
      lang: string,
    ): Promise<EntrySource[]> {
      const populate = populateFor(map);
      const result: EntrySource[] = [];
      for (let i = 0; i < documentIds.length; i += PAGE) {
        const docs = (await strapi.documents(uid as never).findMany({
          status: 'published',
          ...(locale ? { locale } : {}),
          filters: { documentId: { $in: documentIds.slice(i, i + PAGE) } },
          populate,
          limit: PAGE,
        } as never)) as unknown as Doc[];
        for (const doc of docs) result.push((await toEntry(uid, typeKey, map, doc, lang)).entry);
      }
      return result;
    },
  };
};

export type SourceRepository = ReturnType<typeof createSourceRepository>;
