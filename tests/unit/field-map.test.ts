import { describe, expect, it } from 'vitest';
import { contentTypeConfigSchema, type ContentTypeConfig } from '../../server/src/core/config';
import { ConfigError } from '../../server/src/core/errors';
import { resolveFieldMap, type Attributes } from '../../server/src/core/field-map';

const UID = 'api::article.article';

/** An article schema as Strapi 5 declares it (attribute definitions only). */
const ARTICLE: Attributes = {
  title: { type: 'string' },
  slug: { type: 'uid' },
  excerpt: { type: 'text' },
  body: { type: 'blocks' },
  legacyBody: { type: 'richtext' },
  notes: { type: 'richtext', private: true },
  cover: { type: 'media' },
  gallery: { type: 'media', multiple: true },
  secretScan: { type: 'media', private: true },
  faq: { type: 'component', component: 'shared.faq-item', repeatable: true },
  stats: { type: 'component', component: 'shared.data-table', repeatable: false },
  survey: { type: 'component', component: 'shared.dataset', repeatable: true },
  seo: { type: 'component', component: 'shared.seo' },
  hiddenFaq: { type: 'component', component: 'shared.faq-item', private: true },
  author: { type: 'relation', relation: 'manyToOne', target: 'api::author.author' },
  category: { type: 'enumeration' },
  internalCode: { type: 'string', private: true },
  sitemapAi: { type: 'json' },
};

const COMPONENTS = {
  'shared.faq-item': { attributes: { question: { type: 'string' }, answer: { type: 'richtext' } } },
  'shared.data-table': {
    attributes: { caption: { type: 'string' }, columns: { type: 'json' }, rows: { type: 'json' } },
  },
  'shared.dataset': {
    attributes: { title: { type: 'string' }, columns: { type: 'json' }, file: { type: 'media' } },
  },
  'shared.seo': {
    attributes: { metaTitle: { type: 'string' }, metaDescription: { type: 'text' } },
  },
};

const TARGETS = {
  'api::author.author': {
    attributes: {
      fullName: { type: 'string' },
      orcid: { type: 'string' },
      email: { type: 'email' },
    },
  },
};

function config(input: Record<string, unknown> = {}): ContentTypeConfig {
  return contentTypeConfigSchema.parse({ pathPattern: '/{locale}/articles/{slug}', ...input });
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveFieldMap — auto-detection', () => {
  const map = resolveFieldMap(UID, ARTICLE, COMPONENTS, TARGETS, config());

  it('Given an article schema, When detected, Then title, slug and summary come from the usual attribute names', () => {
    expect(map.title).toBe('title');
    expect(map.slug).toBe('slug');
    expect(map.summary).toBe('excerpt');
  });

  it('Given blocks and richtext attributes, When detected, Then both are bodies in their format and private ones are skipped', () => {
    expect(map.bodies).toEqual([
      { field: 'body', format: 'blocks' },
      { field: 'legacyBody', format: 'markdown' },
    ]);
  });

  it('Given media attributes, When detected, Then public ones are media fields', () => {
    expect(map.media).toEqual(['cover', 'gallery']);
  });

  it('Given components, When detected, Then FAQ-, table- and dataset-shaped ones get their roles and others none', () => {
    expect(map.faq).toEqual([
      {
        field: 'faq',
        component: 'shared.faq-item',
        repeatable: true,
        question: 'question',
        answer: 'answer',
      },
    ]);
    expect(map.tables).toEqual([
      { field: 'stats', component: 'shared.data-table', repeatable: false, caption: 'caption' },
    ]);
    expect(map.datasets).toEqual([
      { field: 'survey', component: 'shared.dataset', repeatable: true, title: 'title' },
    ]);
  });

  it('Given an author relation whose target has a name and an ORCID, When detected, Then the author role reads both', () => {
    expect(map.author).toEqual({
      field: 'author',
      target: 'api::author.author',
      name: 'fullName',
      orcid: 'orcid',
    });
  });

  it('Given the path pattern, When detected, Then placeholders other than locale and documentId are path fields', () => {
    expect(map.pathFields).toEqual(['slug']);
    expect(
      resolveFieldMap(
        UID,
        ARTICLE,
        COMPONENTS,
        TARGETS,
        config({ pathPattern: '/{locale}/{category}/{slug}-{documentId}' }),
      ).pathFields,
    ).toEqual(['category', 'slug']);
  });

  it('Given a private title and a private body, When detected, Then they are never used', () => {
    const attributes: Attributes = {
      title: { type: 'string', private: true },
      name: { type: 'string' },
      body: { type: 'richtext', private: true },
    };
    const privateMap = resolveFieldMap(
      UID,
      attributes,
      {},
      {},
      config({ pathPattern: '/{documentId}' }),
    );
    expect(privateMap.title).toBe('name');
    expect(privateMap.bodies).toEqual([]);
  });

  it('Given htmlFields, When detected, Then those text attributes are bodies in html format', () => {
    const htmlMap = resolveFieldMap(
      UID,
      { ...ARTICLE, legacyHtml: { type: 'text' } },
      COMPONENTS,
      TARGETS,
      config({ htmlFields: ['legacyHtml', 'legacyBody'] }),
    );
    expect(htmlMap.bodies).toEqual([
      { field: 'body', format: 'blocks' },
      { field: 'legacyBody', format: 'html' },
      { field: 'legacyHtml', format: 'html' },
    ]);
  });

  it('Given an author target without a name attribute, When detected, Then there is no author', () => {
    const noName = resolveFieldMap(
      UID,
      ARTICLE,
      COMPONENTS,
      { 'api::author.author': { attributes: { email: { type: 'email' } } } },
      config(),
    );
    expect(noName.author).toBeUndefined();
  });

  it('Given no title-like attribute, When detected, Then ConfigError asks for titleField', () => {
    const error = configError(() =>
      resolveFieldMap(
        UID,
        { body: { type: 'richtext' } },
        {},
        {},
        config({ pathPattern: '/{documentId}' }),
      ),
    );
    expect(error.key).toBe(`contentTypes["${UID}"].titleField`);
    expect(error.message).toContain('no title attribute found');
  });
});

describe('resolveFieldMap — explicit config', () => {
  it('Given explicit fields, When resolved, Then they replace detection', () => {
    const map = resolveFieldMap(
      UID,
      { ...ARTICLE, headline: { type: 'string' }, permalink: { type: 'uid' } },
      COMPONENTS,
      TARGETS,
      config({
        titleField: 'headline',
        slugField: 'permalink',
        summaryField: 'excerpt',
        bodyFields: ['legacyBody'],
        mediaFields: ['cover'],
      }),
    );
    expect(map).toMatchObject({
      title: 'headline',
      slug: 'permalink',
      summary: 'excerpt',
      bodies: [{ field: 'legacyBody', format: 'markdown' }],
      media: ['cover'],
    });
  });

  it.each([
    [
      'titleField naming a missing attribute',
      'titleField',
      { titleField: 'heading' },
      /"heading" is not an attribute of api::article.article/,
    ],
    [
      'titleField naming a blocks attribute',
      'titleField',
      { titleField: 'body' },
      /"body" is a blocks attribute; expected string or text or uid/,
    ],
    [
      'titleField naming a private attribute',
      'titleField',
      { titleField: 'internalCode' },
      /"internalCode" is private and is never published/,
    ],
    ['slugField naming media', 'slugField', { slugField: 'cover' }, /is a media attribute/],
    [
      'summaryField naming a uid',
      'summaryField',
      { summaryField: 'slug' },
      /expected string or text/,
    ],
    ['bodyFields naming a private richtext', 'bodyFields', { bodyFields: ['notes'] }, /private/],
    [
      'bodyFields naming a relation',
      'bodyFields',
      { bodyFields: ['author'] },
      /is a relation attribute/,
    ],
    [
      'htmlFields naming a missing attribute',
      'htmlFields',
      { htmlFields: ['content'] },
      /"content" is not an attribute/,
    ],
    [
      'mediaFields naming a private media',
      'mediaFields',
      { mediaFields: ['secretScan'] },
      /private/,
    ],
    [
      'authorField naming a string',
      'authorField',
      { authorField: 'title' },
      /"title" is not a relation/,
    ],
    [
      'a path placeholder that is private',
      'pathPattern',
      { pathPattern: '/{internalCode}/{slug}' },
      /\{internalCode\} is not a public/,
    ],
    [
      'a path placeholder that does not exist',
      'pathPattern',
      { pathPattern: '/{year}/{slug}' },
      /\{year\}/,
    ],
    [
      'a path placeholder that is a relation',
      'pathPattern',
      { pathPattern: '/{author}/{slug}' },
      /\{author\}/,
    ],
  ])(
    'Given %s, When resolved, Then ConfigError names contentTypes["uid"].%s',
    (_, key, input, message) => {
      const error = configError(() =>
        resolveFieldMap(UID, ARTICLE, COMPONENTS, TARGETS, config(input)),
      );
      expect(error.key).toBe(`contentTypes["${UID}"].${key}`);
      expect(error.message).toMatch(message);
    },
  );

  it('Given a content type whose own "sitemapAi" attribute is not JSON, When resolved, Then the reserved name is reported', () => {
    const error = configError(() =>
      resolveFieldMap(
        UID,
        { ...ARTICLE, sitemapAi: { type: 'string' } },
        COMPONENTS,
        TARGETS,
        config(),
      ),
    );
    expect(error.key).toBe(`contentTypes["${UID}"]`);
    expect(error.message).toContain('reserved by sitemap-ai');
  });
});
