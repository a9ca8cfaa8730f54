'use strict';

/**
 * Demo content for the playground, written through the Strapi 5 Document Service.
 *
 * Idempotent: does nothing when any article exists. Works on SQLite, PostgreSQL and
 * MySQL/MariaDB (no raw SQL). Media files are written into public/uploads/ and
 * registered as upload rows directly, without the upload plugin's processing.
 *
 * What it creates (see seed-data/): articles in en (some with sk), among them a
 * draft-only article, a published article with an unpublished draft edit and a
 * sensitive article; Blocks pages, HTML guides, CSV datasets, authors and an internal
 * memo. seed-data/markers.js lists the strings that must never be published.
 */

const path = require('path');

const { writeUploadFiles, createUploadRows } = require('./seed-data/media');
const { ARTICLES } = require('./seed-data/articles');
const { pages } = require('./seed-data/pages');
const { guides } = require('./seed-data/guides');
const { datasets } = require('./seed-data/datasets');
const { authors } = require('./seed-data/authors');
const { internalMemos } = require('./seed-data/internal-memos');

const UID = {
  article: 'api::article.article',
  page: 'api::page.page',
  guide: 'api::guide.guide',
  dataset: 'api::dataset.dataset',
  author: 'api::author.author',
  internalMemo: 'api::internal-memo.internal-memo',
};

const DEFAULT_LOCALE = 'en';
const EXTRA_LOCALES = [{ code: 'sk', name: 'Slovak (sk)' }];

/** Creates the playground's extra locales (en is created by i18n itself). */
async function ensureLocales(strapi) {
  const locales = strapi.plugin('i18n').service('locales');
  for (const locale of EXTRA_LOCALES) {
    if (!(await locales.findByCode(locale.code))) {
      await locales.create(locale);
      strapi.log.info(`[playground] created locale ${locale.code}`);
    }
  }
}

/**
 * The plugin adds a private JSON attribute `sitemapAi` to the content types it indexes
 * (at register time). Without the plugin the attribute does not exist: drop the value.
 */
const withEditorMetadata = (strapi, uid, data, sitemapAi) => {
  if (sitemapAi === undefined || !strapi.contentType(uid).attributes.sitemapAi) return data;
  return { ...data, sitemapAi };
};

async function createAuthors(strapi) {
  const byKey = {};
  for (const { key, data } of authors()) {
    byKey[key] = await strapi.documents(UID.author).create({ data });
  }
  return byKey;
}

async function createArticles(strapi, { media, authorsByKey }) {
  const documents = strapi.documents(UID.article);
  const created = {};

  for (const article of ARTICLES) {
    const shared = {
      ...(article.cover ? { cover: media[article.cover].id } : {}),
      ...(article.author ? { author: authorsByKey[article.author].documentId } : {}),
    };
    const localeData = ({ sitemapAi, ...fields }) =>
      withEditorMetadata(strapi, UID.article, { ...fields, ...shared }, sitemapAi);

    // 1. The default locale creates the document (a draft).
    const en = await documents.create({ locale: DEFAULT_LOCALE, data: localeData(article.en) });
    const { documentId } = en;

    // 2. update() with another locale creates that locale of the same document.
    if (article.sk) {
      await documents.update({ documentId, locale: 'sk', data: localeData(article.sk) });
    }

    // 3. Publish each locale.
    if (article.publish) {
      await documents.publish({ documentId, locale: DEFAULT_LOCALE });
      if (article.sk) await documents.publish({ documentId, locale: 'sk' });
    }

    // 4. An edit saved after publishing stays in the draft only.
    if (article.draftEdit) {
      const { bodyAppend, sitemapAi } = article.draftEdit;
      await documents.update({
        documentId,
        locale: DEFAULT_LOCALE,
        data: withEditorMetadata(
          strapi,
          UID.article,
          { body: `${article.en.body.trimEnd()}${bodyAppend}` },
          sitemapAi && { ...article.en.sitemapAi, ...sitemapAi },
        ),
      });
    }

    created[article.key] = documentId;
  }
  return created;
}

async function createPages(strapi, { media }) {
  const documents = strapi.documents(UID.page);
  for (const page of pages(media)) {
    const { documentId } = await documents.create({ locale: DEFAULT_LOCALE, data: page.en });
    if (page.sk) await documents.update({ documentId, locale: 'sk', data: page.sk });
    if (page.publish) {
      await documents.publish({ documentId, locale: DEFAULT_LOCALE });
      if (page.sk) await documents.publish({ documentId, locale: 'sk' });
    }
  }
}

/** Guides, datasets and memos are not localized: no locale parameter. */
async function createUnlocalized(strapi, uid, definitions, toData) {
  const documents = strapi.documents(uid);
  for (const definition of definitions) {
    const { documentId } = await documents.create({ data: toData(definition) });
    if (definition.publish) await documents.publish({ documentId });
  }
}

async function rebuildManifest(strapi) {
  try {
    const builder = strapi.plugin('sitemap-ai')?.service('snapshot-builder');
    if (!builder?.rebuild) return;
    await builder.rebuild({ trigger: 'seed' });
    strapi.log.info('[playground] sitemap-ai manifest rebuilt after seeding');
  } catch (error) {
    strapi.log.error(
      `[playground] sitemap-ai rebuild after seeding failed: ${error.stack || error}`,
    );
  }
}

/**
 * Seeds the demo content unless an article already exists.
 * @returns {Promise<{ seeded: boolean }>}
 */
async function seed(strapi) {
  await ensureLocales(strapi);

  // Files are written on every boot: public/uploads/ is not in git.
  const files = writeUploadFiles(path.join(strapi.dirs.static.public, 'uploads'));

  if ((await strapi.db.query(UID.article).count()) > 0) {
    return { seeded: false };
  }

  strapi.log.info('[playground] seeding demo content');
  const media = await createUploadRows(strapi, files);
  const authorsByKey = await createAuthors(strapi);

  await createPages(strapi, { media });
  await createUnlocalized(strapi, UID.guide, guides(), ({ data, hero }) => ({
    ...data,
    hero: media[hero].id,
  }));
  await createUnlocalized(strapi, UID.dataset, datasets(), ({ data, file }) => ({
    ...data,
    dataset: { ...data.dataset, file: media[file].id },
  }));
  await createUnlocalized(strapi, UID.internalMemo, internalMemos(), ({ data }) => data);
  // Articles last: their existence marks the seed as done.
  await createArticles(strapi, { media, authorsByKey });

  strapi.log.info('[playground] demo content seeded');
  await rebuildManifest(strapi);
  return { seeded: true };
}

module.exports = { seed, ensureLocales, UID };
