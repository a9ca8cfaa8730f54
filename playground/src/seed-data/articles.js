'use strict';

/**
 * Seed articles (api::article.article, Markdown bodies in *.md next to this file).
 * Each definition has an `en` version and optionally an `sk` version; `publish`
 * says whether it is published, `draftEdit` is applied to the draft after publishing.
 */

const fs = require('fs');
const path = require('path');
const MARKERS = require('./markers');

const md = (file) => fs.readFileSync(path.join(__dirname, file), 'utf8');

const SITEMAPS_STANDARD = {
  rel: 'standard',
  url: 'https://www.sitemaps.org/protocol.html',
  title: 'Sitemaps XML format',
};
const DSM_DIRECTIVE = {
  rel: 'law',
  url: 'https://eur-lex.europa.eu/eli/dir/2019/790/oj',
  title: 'Directive (EU) 2019/790, Article 4 (text and data mining)',
};
const TDMREP = {
  rel: 'standard',
  url: 'https://www.w3.org/community/reports/tdmrep/CG-FINAL-tdmrep-20240510/',
  title: 'TDMRep: TDM Reservation Protocol',
};

const internalNote = (text) => `${MARKERS.INTERNAL_NOTE}: ${text}`;

const ARTICLES = [
  {
    key: 'geoIndex',
    cover: 'geoCover',
    author: 'jana',
    publish: true,
    en: {
      title: 'An index of pages for AI: why we need a "sitemap-AI"',
      slug: 'geo-index',
      summary:
        'Classic sitemaps list URLs. AI agents need fragments, licences, usage rules, checksums and citations. A proposal for a manifest built for generative engines.',
      body: md('geo-index.en.md'),
      faq: [
        {
          question: 'Does a sitemap-AI replace sitemap.xml?',
          answer:
            'No. The classic sitemap stays for search engines. The sitemap-AI manifest is published next to it and points at **fragments** with licence and usage metadata.',
        },
        {
          question: 'Does the manifest contain the full text?',
          answer:
            'No. It lists pointers to exact fragments with a checksum; the canonical text of each fragment can be fetched separately and verified against that checksum.',
        },
        {
          question: 'Can we withdraw permission to train on our content later?',
          answer:
            'Yes. Usage rules are revocable: a change bumps the fragment version, is recorded in the changelog and reaches agents through the delta feed.',
        },
      ],
      tables: [
        {
          caption: 'Success metrics for GEO',
          columns: [
            { name: 'metric', datatype: 'string', description: 'What is measured' },
            { name: 'target', unit: '%', datatype: 'number', description: 'Goal, as a percentage' },
            {
              name: 'comparison',
              datatype: 'string',
              description: 'Whether the value must be above or below the target',
            },
          ],
          rows: [
            ['Citation share', 25, 'above'],
            ['Evidence coverage', 90, 'at least'],
            ['Drift incidents per month', 1, 'below'],
          ],
          source_method:
            'Targets from the sitemap-AI proposal; measured from the access log and the manifest.',
          update_cycle: 'P1M',
        },
      ],
      internalNotes: internalNote(
        'check the wording of the TDM section with legal before the conference talk.',
      ),
      sitemapAi: {
        topics: ['GEO', 'LLM', 'sitemaps'],
        entity_ids: ['Q2013'],
        evidence: [SITEMAPS_STANDARD],
        usage: { train: 'deny' },
        reason: 'Initial publication',
      },
    },
    sk: {
      title: 'Index stránok pre AI: prečo potrebujeme „sitemap-AI“',
      slug: 'index-stranok-pre-ai',
      summary:
        'Klasická sitemap vymenúva URL. Agenti AI potrebujú fragmenty, licencie, pravidlá použitia, kontrolné súčty a citácie. Návrh manifestu pre generatívne vyhľadávače.',
      body: md('index-stranok-pre-ai.sk.md'),
      faq: [
        {
          question: 'Nahrádza sitemap-AI súbor sitemap.xml?',
          answer:
            'Nie. Klasická sitemap ostáva pre vyhľadávače; manifest sitemap-AI sa zverejňuje vedľa nej.',
        },
        {
          question: 'Obsahuje manifest plný text?',
          answer:
            'Nie. Obsahuje odkazy na presné fragmenty s kontrolným súčtom a metadátami pre spracovanie.',
        },
      ],
      tables: [
        {
          caption: 'Ukazovatele úspechu pre GEO',
          columns: [
            { name: 'metrika', datatype: 'string' },
            { name: 'cieľ', unit: '%', datatype: 'number' },
          ],
          rows: [
            ['Citation share', 25],
            ['Evidence coverage', 90],
          ],
          source_method: 'Ciele z návrhu sitemap-AI.',
          update_cycle: 'P1M',
        },
      ],
      internalNotes: internalNote('slovenský originál; preklad do EN skontrolovať.'),
      sitemapAi: {
        topics: ['GEO', 'LLM', 'sitemaps'],
        entity_ids: ['Q2013'],
        evidence: [SITEMAPS_STANDARD],
        usage: { train: 'deny' },
        reason: 'Pôvodný slovenský text',
      },
    },
  },
  {
    key: 'fragmentPermalinks',
    cover: 'anchorsCover',
    author: 'jana',
    publish: true,
    en: {
      title: 'Fragment permalinks and stable anchors',
      slug: 'fragment-permalinks',
      summary:
        'How every section, table and figure gets an anchor that survives unrelated edits, and how renamed headings keep old citations working.',
      body: md('fragment-permalinks.en.md'),
      faq: [
        {
          question: 'What happens to a citation when a heading is renamed?',
          answer:
            'The old fragment id becomes an alias of the new one, so the citation still resolves to the current text.',
        },
        {
          question: 'Why not number sections 1, 2, 3?',
          answer:
            'Because inserting a section would renumber every section after it and break existing citations.',
        },
      ],
      tables: [
        {
          caption: 'Anchors of repeated headings',
          columns: [
            { name: 'heading', datatype: 'string' },
            {
              name: 'occurrence',
              unit: 'count',
              datatype: 'integer',
              description: 'Position among headings with the same text',
            },
            { name: 'anchor', datatype: 'string' },
          ],
          rows: [
            ['Example', 1, 'example'],
            ['Example', 2, 'example-2'],
            ['Example', 3, 'example-3'],
          ],
          source_method: 'Output of the published anchor function.',
          update_cycle: 'P1Y',
        },
      ],
      internalNotes: internalNote('the alias map needs a retention policy; ask the platform team.'),
      sitemapAi: {
        topics: ['permalinks', 'citations', 'sitemaps'],
        evidence: [
          {
            rel: 'standard',
            url: 'https://www.rfc-editor.org/rfc/rfc3986#section-3.5',
            title: 'RFC 3986, section 3.5: Fragment',
          },
        ],
        reason: 'Initial publication',
      },
    },
    sk: {
      title: 'Permalinky fragmentov a stabilné kotvy',
      slug: 'permalinky-fragmentov',
      summary:
        'Ako každá sekcia, tabuľka a obrázok dostane kotvu, ktorá prežije nesúvisiace úpravy.',
      body: md('fragment-permalinks.sk.md'),
      faq: [
        {
          question: 'Čo sa stane s citáciou, keď sa nadpis premenuje?',
          answer:
            'Staré id fragmentu sa stane aliasom nového, takže citácia stále vedie na aktuálny text.',
        },
        {
          question: 'Prečo sekcie nečíslovať 1, 2, 3?',
          answer:
            'Lebo vloženie sekcie by prečíslovalo všetky nasledujúce a rozbilo existujúce citácie.',
        },
      ],
      internalNotes: internalNote('preložené zo sk->en, skontrolovať terminológiu.'),
    },
  },
  {
    key: 'measuringIngest',
    cover: 'ingestCover',
    author: 'peter',
    publish: true,
    en: {
      title: 'Measuring AI crawler ingest',
      slug: 'measuring-ai-crawler-ingest',
      summary:
        'Which AI agents read the manifest, how long a change takes to reach them, and how we count drift and evidence coverage.',
      body: md('measuring-ai-crawler-ingest.en.md'),
      faq: [
        {
          question: 'How do you recognise an AI crawler?',
          answer:
            'By the agent family in the user agent (GPTBot, ClaudeBot, PerplexityBot, Google-Extended, CCBot). Unknown agents are counted as "other".',
        },
        {
          question: 'Do you store IP addresses?',
          answer:
            'No. Access-log entries keep a hash of the IP with a salt that rotates daily, and expire after the configured retention.',
        },
        {
          question: 'What is a drift incident?',
          answer: 'A request for a fragment version older than the current one.',
        },
        {
          question: 'Where is the raw data?',
          answer:
            'In the dataset [AI crawler requests by agent family, 2025](/data/ai-crawler-requests-2025).',
        },
      ],
      tables: [
        {
          caption: 'Requests per agent family, September 2025',
          columns: [
            {
              name: 'agent_family',
              datatype: 'string',
              description: 'Agent family from the user agent',
            },
            {
              name: 'requests',
              unit: 'requests/day',
              datatype: 'integer',
              description: 'Mean requests per day',
            },
            {
              name: 'median_time_to_index',
              unit: 'h',
              datatype: 'number',
              description: 'Median time from change to first fetch',
            },
          ],
          rows: [
            ['GPTBot', 1840, 3.5],
            ['ClaudeBot', 1210, 3.0],
            ['PerplexityBot', 760, 2.5],
            ['CCBot', 430, 58.0],
          ],
          source_method: 'Counted from the pseudonymised access log of the manifest endpoints.',
          update_cycle: 'P1M',
        },
      ],
      internalNotes: internalNote('numbers for October are not final; do not quote them yet.'),
      sitemapAi: {
        topics: ['GEO', 'observability', 'crawlers'],
        entity_ids: ['Q11660'],
        evidence: [
          {
            rel: 'dataset',
            url: 'https://example.com/data/ai-crawler-requests-2025',
            title: 'AI crawler requests by agent family, 2025',
          },
        ],
        usage: { train: 'deny', infer: 'allow-with-citation' },
        reason: 'Initial publication with September figures',
      },
    },
    sk: {
      title: 'Meranie ingestu AI crawlerov',
      slug: 'meranie-ingestu-ai-crawlerov',
      summary: 'Ktorí agenti AI čítajú manifest a ako dlho trvá, kým sa k nim dostane zmena.',
      body: md('meranie-ingestu-ai-crawlerov.sk.md'),
      faq: [
        {
          question: 'Ukladáte IP adresy?',
          answer: 'Nie. Záznamy obsahujú len hash IP adresy so soľou, ktorá sa denne mení.',
        },
        {
          question: 'Čo je drift?',
          answer: 'Požiadavka na staršiu verziu fragmentu, než je aktuálna.',
        },
      ],
      tables: [
        {
          caption: 'Požiadavky podľa rodiny agenta, september 2025',
          columns: [
            { name: 'rodina_agenta', datatype: 'string' },
            { name: 'poziadavky', unit: 'požiadavky/deň', datatype: 'integer' },
          ],
          rows: [
            ['GPTBot', 1840],
            ['ClaudeBot', 1210],
          ],
          source_method: 'Z pseudonymizovaného prístupového logu.',
          update_cycle: 'P1M',
        },
      ],
      internalNotes: internalNote('októbrové čísla nie sú finálne.'),
    },
  },
  {
    key: 'tdmLicensing',
    cover: 'tdmCover',
    author: 'jana',
    publish: true,
    en: {
      title: 'Licensing content for text and data mining',
      slug: 'tdm-licensing',
      summary:
        'How to reserve TDM rights in a machine-readable way and decide separately about training, inference, caching and redistribution.',
      body: md('tdm-licensing.en.md'),
      faq: [
        {
          question: 'Is a line in robots.txt enough?',
          answer:
            'It blocks crawling, but it cannot say "quote with citation, do not train". The `usage` object can.',
        },
        {
          question: 'Which licence do your datasets use?',
          answer: 'CC BY 4.0, with training allowed when the dataset is cited.',
        },
      ],
      internalNotes: internalNote('legal review pending for the CC BY wording.'),
      sitemapAi: {
        topics: ['TDM', 'licensing', 'copyright'],
        entity_ids: ['Q11660', 'Q2539'],
        evidence: [DSM_DIRECTIVE, TDMREP],
        usage: {
          train: 'deny',
          infer: 'allow-with-citation',
          cache: 'allow',
          redistribute: 'deny',
        },
        reason: 'Initial publication',
      },
    },
  },
  {
    // Published, then edited: the draft holds the marker, the published version does not.
    key: 'stabilityScores',
    author: 'peter',
    publish: true,
    en: {
      title: 'Stability scores explained',
      slug: 'stability-scores-explained',
      summary: 'What the stability score of a fragment means and how a crawler should use it.',
      body: md('stability-scores-explained.en.md'),
      faq: [
        {
          question: 'Does changing the licence lower the stability score?',
          answer:
            'No. Only changes of the canonical text count; a metadata change bumps the minor version.',
        },
        {
          question: 'Can an editor override the score?',
          answer: 'Yes, by pinning a value for the fragment.',
        },
      ],
      internalNotes: internalNote('add a chart once we have six months of history.'),
      sitemapAi: {
        topics: ['stability', 'crawling'],
        evidence: [
          {
            rel: 'method',
            url: 'https://example.com/en/articles/geo-index#stability-and-versions',
            title: 'Stability and versions',
          },
        ],
        reason: 'Initial publication',
      },
    },
    draftEdit: {
      bodyAppend: `\n\n## Upcoming change\n\n${MARKERS.UNPUBLISHED_EDIT}: from next month the score will use a 45-day scale instead of 30 days. This paragraph is only in the draft.\n`,
      sitemapAi: {
        topics: ['stability', 'crawling', 'unannounced'],
        reason: `${MARKERS.UNPUBLISHED_EDIT}: draft-only reason`,
      },
    },
  },
  {
    // Published but marked sensitive: the plugin must leave it out entirely.
    key: 'incidentReview',
    author: 'peter',
    publish: true,
    en: {
      title: 'Incident review: preview URLs in a staging manifest',
      slug: 'incident-review-staging-manifest',
      summary: 'Post-mortem for the incident response team.',
      body: md('incident-review.en.md'),
      internalNotes: internalNote('share only with the incident response team.'),
      sitemapAi: {
        sensitive: true,
        reason: 'Sensitive: internal post-mortem',
      },
    },
  },
  {
    // Never published.
    key: 'draftPricing',
    author: 'jana',
    publish: false,
    en: {
      title: 'Draft only: unannounced pricing',
      slug: 'draft-only-unannounced-pricing',
      summary: 'Not yet announced.',
      body: md('draft-pricing.en.md'),
      internalNotes: internalNote('embargoed until the board approves the prices.'),
      sitemapAi: {
        topics: ['pricing'],
        reason: 'Draft',
      },
    },
  },
];

module.exports = { ARTICLES };
