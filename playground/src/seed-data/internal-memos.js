'use strict';

/** Seed internal memos (api::internal-memo.internal-memo): not enabled in sitemap-ai. */

const MARKERS = require('./markers');

const internalMemos = () => [
  {
    key: 'crawlBudget',
    publish: true,
    data: {
      title: 'Q4 crawl budget and partner agreements',
      body: `${MARKERS.INTERNAL_MEMO}: internal only.

## Partner agreements

We are negotiating paid access for two AI companies. Until the contracts are signed, \`train\` stays \`deny\` for every article.

## Budget

The manifest endpoints may use up to 5 % of the CDN budget in Q4.`,
    },
  },
];

module.exports = { internalMemos };
