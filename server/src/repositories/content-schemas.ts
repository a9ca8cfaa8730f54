import type { Core } from '@strapi/strapi';
import { contentTypes as strapiSchemas } from '@strapi/utils';
import type { Attributes } from '../core/field-map';

/** What the plugin reads of one content-type schema of the app. */
export interface ContentSchema {
  uid: string;
  kind?: string;
  attributes: Attributes;
  info: { singularName: string; displayName?: string; pluralName?: string };
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean } };
}

/** An attribute the plugin adds to an app's content type (register). */
export interface AddedAttribute {
  type: 'json';
  private: boolean;
  configurable: boolean;
  visible: boolean;
  writable: boolean;
  pluginOptions: { i18n: { localized: boolean } };
}

type StrapiModel = Parameters<typeof strapiSchemas.hasDraftAndPublish>[0];

/**
 * The app's content-type and component schemas as the plugin reads them: the one place that
 * types `strapi.contentTypes` / `strapi.components`, with Strapi's own `contentTypes` helpers
 * for what they answer (kind, draft & publish).
 */
export const createContentSchemas = ({ strapi }: { strapi: Core.Strapi }) => {
  const contentTypes = () =>
    strapi.contentTypes as unknown as Readonly<Record<string, ContentSchema | undefined>>;

  const schemas = {
    /** The schema of `uid`, or undefined when the app has no such content type. */
    get: (uid: string): ContentSchema | undefined => contentTypes()[uid],

    /** Every content type of the app (core and plugins' included), by uid. */
    all: (): Readonly<Record<string, ContentSchema>> =>
      contentTypes() as Readonly<Record<string, ContentSchema>>,

    /** Every component of the app, by uid (what a field map follows into). */
    components: (): Readonly<Record<string, { attributes: Attributes }>> =>
      strapi.components as unknown as Readonly<Record<string, { attributes: Attributes }>>,

    /** Whether the i18n plugin localizes `uid`'s entries. */
    isLocalized: (uid: string): boolean =>
      contentTypes()[uid]?.pluginOptions?.i18n?.localized === true,

    /** Whether `uid` has drafts besides its published versions (Strapi's default when unknown). */
    hasDraftAndPublish(uid: string): boolean {
      const schema = contentTypes()[uid];
      return schema ? strapiSchemas.hasDraftAndPublish(schema as unknown as StrapiModel) : true;
    },

    isSingleType: (uid: string): boolean => {
      const schema = contentTypes()[uid];
      return schema ? strapiSchemas.isSingleType(schema) : false;
    },

    /** One of the app's own (`api::`) collection or single types: what a site owner may index. */
    isAppType(uid: string): boolean {
      const schema = contentTypes()[uid];
      return (
        uid.startsWith('api::') &&
        !!schema &&
        (strapiSchemas.isCollectionType(schema) || strapiSchemas.isSingleType(schema))
      );
    },

    /** The name editors know a type by: its display name, else its singular name. */
    displayName(uid: string): string {
      const info = contentTypes()[uid]?.info;
      return info?.displayName ?? info?.singularName ?? uid.split('.').pop() ?? uid;
    },

    /** The attribute `name` of `uid` as the app declares it, if any. */
    attribute: (uid: string, name: string): { type?: string } | undefined =>
      contentTypes()[uid]?.attributes[name],

    /** Add (or replace) an attribute of an app's content type; only in register, before the schema syncs. */
    defineAttribute(uid: string, name: string, attribute: AddedAttribute): void {
      const schema = contentTypes()[uid];
      if (!schema) throw new Error(`sitemap-ai: no content type ${uid} to add "${name}" to`);
      (schema.attributes as Record<string, unknown>)[name] = attribute;
    },
  };
  return schemas;
};

export type ContentSchemas = ReturnType<typeof createContentSchemas>;
