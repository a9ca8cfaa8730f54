'use strict';

/**
 * Seed datasets (api::dataset.dataset): a Markdown description and a data.dataset
 * component pointing at a CSV file from seed-data/media.js (`file` is the media key).
 */

const datasets = () => [
  {
    key: 'crawlerRequests',
    publish: true,
    file: 'crawlerCsv',
    data: {
      title: 'AI crawler requests by agent family, 2025',
      slug: 'ai-crawler-requests-2025',
      description: `Monthly requests to the sitemap-AI endpoints of example.com, grouped by AI crawler family.

## Coverage

July to September 2025; four agent families that together sent 96 % of AI traffic. Requests from unknown agents are not included.

## How to cite

Example.com (2025). *AI crawler requests by agent family, 2025* [Data set]. https://example.com/data/ai-crawler-requests-2025`,
      dataset: {
        title: 'ai-crawler-requests-2025.csv',
        description: 'One row per month and agent family.',
        columns: [
          {
            name: 'month',
            unit: 'ISO 8601 year-month',
            datatype: 'date',
            description: 'Calendar month (UTC)',
          },
          {
            name: 'agent_family',
            datatype: 'string',
            description: 'Agent family from the user agent',
          },
          {
            name: 'requests',
            unit: 'requests/month',
            datatype: 'integer',
            description: 'Requests to manifest, delta and fragment endpoints',
          },
          {
            name: 'fragment_fetches',
            unit: 'requests/month',
            datatype: 'integer',
            description: 'Requests to fragment content endpoints',
          },
          {
            name: 'median_time_to_index_h',
            unit: 'h',
            datatype: 'number',
            description: 'Median time from a change to its first fetch',
          },
        ],
        source_method:
          'Counted from the pseudonymised access log (IP hashed with a daily rotating salt). Agent families are matched on the user-agent string; bots that do not identify themselves are excluded.',
        update_cycle: 'P1M',
      },
    },
  },
  {
    key: 'fragmentStability',
    publish: true,
    file: 'stabilityCsv',
    data: {
      title: 'Fragment stability sample',
      slug: 'fragment-stability-sample',
      description: `A sample of fragments from this site with their number of content changes, the mean interval between changes and the resulting stability score.

## Method

The score is \`1 − exp(−m / 30)\` where \`m\` is the mean interval in days, the open interval since the last change included. Metadata-only changes are not counted.`,
      dataset: {
        title: 'fragment-stability-sample.csv',
        description: 'One row per fragment.',
        columns: [
          {
            name: 'fragment_id',
            datatype: 'string',
            description: 'Stable fragment id from the manifest',
          },
          {
            name: 'content_changes',
            unit: 'count',
            datatype: 'integer',
            description: 'Content changes since first publication',
          },
          {
            name: 'mean_interval_days',
            unit: 'd',
            datatype: 'number',
            description: 'Mean interval between content changes',
          },
          {
            name: 'stability_score',
            unit: '1',
            datatype: 'number',
            description: 'Stability score between 0 and 1',
          },
          {
            name: 'last_modified',
            unit: 'ISO 8601 date',
            datatype: 'date',
            description: 'Date of the last content change',
          },
        ],
        source_method: 'Exported from the sitemap-ai changelog of example.com on 2025-10-22.',
        update_cycle: 'P1W',
      },
    },
  },
];

module.exports = { datasets };
