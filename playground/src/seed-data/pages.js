'use strict';

/**
 * Seed pages (api::page.page): bodies in Strapi's Blocks format.
 * `pages(media)` needs the upload rows because an image block embeds the file object.
 */

const text = (value, marks = {}) => ({ type: 'text', text: value, ...marks });
const link = (url, label) => ({ type: 'link', url, children: [text(label)] });
const paragraph = (...children) => ({
  type: 'paragraph',
  children: children.map((c) => (typeof c === 'string' ? text(c) : c)),
});
const heading = (level, value) => ({ type: 'heading', level, children: [text(value)] });
const list = (format, items) => ({
  type: 'list',
  format,
  children: items.map((item) => ({
    type: 'list-item',
    children: (Array.isArray(item) ? item : [item]).map((c) =>
      typeof c === 'string' ? text(c) : c,
    ),
  })),
});
const code = (language, value) => ({ type: 'code', language, children: [text(value)] });
const quote = (value) => ({ type: 'quote', children: [text(value)] });

const iso = (value) => new Date(value ?? Date.now()).toISOString();

/** An image block as the Blocks editor stores it: the whole file object is embedded. */
const image = (file) => ({
  type: 'image',
  image: {
    id: file.id,
    documentId: file.documentId,
    name: file.name,
    alternativeText: file.alternativeText ?? null,
    caption: file.caption ?? null,
    width: file.width,
    height: file.height,
    formats: null,
    hash: file.hash,
    ext: file.ext,
    mime: file.mime,
    size: Number(file.size),
    url: file.url,
    previewUrl: null,
    provider: file.provider,
    provider_metadata: null,
    createdAt: iso(file.createdAt),
    updatedAt: iso(file.updatedAt),
  },
  children: [text('')],
});

const MANIFEST_REQUEST = `curl -s 'https://example.com/api/sitemap-ai/manifest?limit=100&lang=en' \\
  -H 'Accept: application/json' | jq '.items[] | {id, url, checksum}'`;

const CITATION_BIBTEX = `@misc{geo-index-2025,
  title  = {An index of pages for AI: why we need a "sitemap-AI"},
  author = {Nov{\\'a}kov{\\'a}, Jana},
  year   = {2025},
  url    = {https://example.com/en/articles/geo-index#why-classic-sitemaps-fail}
}`;

const pages = (media) => [
  {
    key: 'about',
    publish: true,
    en: {
      title: 'About this site',
      slug: 'about',
      body: [
        paragraph(
          'This is the demo site of ',
          text('strapi-plugin-sitemap-ai', { bold: true }),
          '. It publishes an index of its content for AI agents next to the classic ',
          link('https://www.sitemaps.org/protocol.html', 'sitemap.xml'),
          '.',
        ),
        heading(2, 'What we publish'),
        paragraph(
          'Articles in English and Slovak, how-to guides and open datasets. Every page is split into ',
          text('fragments', { italic: true }),
          ' that can be cited on their own.',
        ),
        list('unordered', [
          'Articles: Markdown, one fragment per H2 section, plus tables, figures and FAQ.',
          'Guides: HTML, converted to Markdown before fragmenting.',
          [
            'Datasets: CSV files under ',
            link('https://creativecommons.org/licenses/by/4.0/', 'CC BY 4.0'),
            '.',
          ],
        ]),
        image(media.aboutDiagram),
        heading(3, 'What we do not publish'),
        paragraph(
          'Drafts, internal memos, private fields and anything marked ',
          text('sensitive', { code: true }),
          ' stay out of the manifest.',
        ),
        heading(2, 'Reading the manifest'),
        paragraph(
          'Agents page through the manifest with an opaque token and follow the delta feed afterwards:',
        ),
        code('bash', MANIFEST_REQUEST),
        heading(3, 'Contact'),
        paragraph(
          'Questions about licensing go to ',
          link('mailto:licensing@example.com', 'licensing@example.com'),
          '.',
        ),
      ],
    },
    sk: {
      title: 'O tomto webe',
      slug: 'o-tomto-webe',
      body: [
        paragraph(
          'Toto je ukážkový web pluginu ',
          text('strapi-plugin-sitemap-ai', { bold: true }),
          '. Vedľa klasickej ',
          link('https://www.sitemaps.org/protocol.html', 'sitemap.xml'),
          ' zverejňuje index obsahu pre agentov AI.',
        ),
        heading(2, 'Čo zverejňujeme'),
        paragraph('Články v angličtine a slovenčine, návody a otvorené datasety.'),
        list('unordered', [
          'Články: Markdown, jeden fragment na sekciu H2.',
          'Návody: HTML prevedené na Markdown.',
          'Datasety: súbory CSV pod licenciou CC BY 4.0.',
        ]),
        image(media.aboutDiagram),
        heading(3, 'Čo nezverejňujeme'),
        paragraph('Koncepty, interné poznámky a súkromné polia do manifestu nepatria.'),
        heading(2, 'Čítanie manifestu'),
        code('bash', MANIFEST_REQUEST),
      ],
    },
  },
  {
    key: 'howToCite',
    publish: true,
    en: {
      title: 'How to cite our content',
      slug: 'how-to-cite',
      body: [
        paragraph(
          'Please cite the ',
          text('fragment', { bold: true }),
          ' you quote, not just the page: every fragment has a permalink with an anchor and a preferred citation in the manifest.',
        ),
        heading(2, 'Preferred formats'),
        list('ordered', [
          'APA for prose answers.',
          'BibTeX for papers and notebooks.',
          [
            'A bare permalink such as ',
            text('/en/articles/geo-index#why-classic-sitemaps-fail', { code: true }),
            ' when space is short.',
          ],
        ]),
        heading(3, 'BibTeX example'),
        code('bibtex', CITATION_BIBTEX),
        heading(2, 'Versions'),
        paragraph(
          'Quote the ',
          text('version', { code: true }),
          ' of the fragment when you can. If the text changes later, the ',
          link('/en/articles/stability-scores-explained', 'changelog'),
          ' says what changed and why.',
        ),
        quote(
          'A citation that names the version can always be checked against the text it quoted.',
        ),
      ],
    },
  },
];

module.exports = { pages };
