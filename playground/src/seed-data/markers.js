'use strict';

/**
 * Strings the seed plants in places that must never reach a public manifest, delta,
 * fragment or REST response. Tests import this object and search the output for them.
 */
module.exports = {
  /** In `internalNotes` (a `private` attribute) of every seeded article, in both locales. */
  INTERNAL_NOTE: 'INTERNAL-NOTE-DO-NOT-PUBLISH',
  /** In the body of an article that was never published. */
  DRAFT_ONLY: 'DRAFT-ONLY-SECRET',
  /** In the draft body (and draft `sitemapAi.reason`) of a published article edited afterwards. */
  UNPUBLISHED_EDIT: 'UNPUBLISHED-EDIT-SECRET',
  /** In the body of a published internal memo (content type not enabled in sitemap-ai). */
  INTERNAL_MEMO: 'INTERNAL-MEMO-SECRET',
  /** In the body of a published article whose `sitemapAi` says `sensitive: true`. */
  SENSITIVE_ENTRY: 'SENSITIVE-ENTRY-SECRET',
  /** Private e-mail of a seeded author (`email` is a `private` attribute). */
  AUTHOR_EMAIL: 'jana.novak@example.org',
};
