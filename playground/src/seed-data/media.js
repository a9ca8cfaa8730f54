'use strict';

/**
 * Small real files for the seed: PNG images generated from bytes and CSV datasets.
 * They are written into public/uploads/ and registered as plugin::upload.file rows
 * directly, without the upload plugin's processing (no sharp, no thumbnails).
 */

const { createHash } = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

// ---------------------------------------------------------------------------
// PNG encoder (8-bit RGB, no filter) — enough for tiny illustrative images.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

const crc32 = (buffer) => {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

const chunk = (type, data) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** Encodes a width × height RGB image; `pixel(x, y)` returns [r, g, b]. */
const encodePng = (width, height, pixel) => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y += 1) {
    const row = y * (1 + width * 3);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = pixel(x, y);
      raw.set([r, g, b], row + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

const mix = (a, b, t) => a.map((v, i) => Math.round(v + (b[i] - v) * t));

/** A horizontal gradient with a band of "fragments" — a stand-in for a diagram. */
const diagram =
  (from, to, band) =>
  (x, y, w = 48, h = 27) => {
    if (y > h * 0.35 && y < h * 0.65 && x % 8 < 6) return band;
    return mix(from, to, x / (w - 1));
  };

// ---------------------------------------------------------------------------
// CSV datasets (real text; columns are described in seed-data/datasets.js).

const CRAWLER_REQUESTS_CSV = `month,agent_family,requests,fragment_fetches,median_time_to_index_h
2025-07,GPTBot,48210,31877,30.5
2025-07,ClaudeBot,30114,22430,28.0
2025-07,PerplexityBot,17890,14012,19.5
2025-07,CCBot,12877,5301,71.0
2025-08,GPTBot,51003,34112,12.0
2025-08,ClaudeBot,33980,26115,9.5
2025-08,PerplexityBot,20412,16877,7.0
2025-08,CCBot,13011,5127,66.5
2025-09,GPTBot,55120,37902,3.5
2025-09,ClaudeBot,36301,29810,3.0
2025-09,PerplexityBot,22790,19004,2.5
2025-09,CCBot,12940,4988,58.0
`;

const FRAGMENT_STABILITY_CSV = `fragment_id,content_changes,mean_interval_days,stability_score,last_modified
article-geo-index-intro,1,94.0,0.96,2025-07-02
article-geo-index-why-classic-sitemaps-fail,2,41.5,0.75,2025-08-20
article-geo-index-a-minimal-sitemap-ai-format,6,9.8,0.28,2025-10-22
article-fragment-permalinks-example,1,120.0,0.98,2025-06-11
article-fragment-permalinks-example-2,3,22.7,0.53,2025-09-30
article-measuring-ai-crawler-ingest-which-agents-come,12,2.5,0.08,2025-10-21
guide-publish-a-dataset-with-a-licence-before-you-start,1,61.0,0.87,2025-08-01
`;

// ---------------------------------------------------------------------------
// The files. `name` is the public file name (/uploads/<name>).

const W = 48;
const H = 27;

const FILES = [
  {
    key: 'geoCover',
    name: 'geo-index-cover.png',
    alternativeText: 'A sitemap tree whose leaves are labelled section, table, figure and FAQ',
    caption: 'From a list of pages to an index of fragments',
    pixel: diagram([22, 62, 110], [56, 160, 190], [250, 250, 250]),
  },
  {
    key: 'geoFragments',
    name: 'geo-index-fragments.png',
    alternativeText:
      'Diagram: one page split into sections, a table, a figure and FAQ fragments, each with its own id and checksum',
    caption: 'A page becomes a set of citable fragments',
    pixel: diagram([240, 240, 235], [200, 215, 230], [30, 80, 140]),
  },
  {
    key: 'anchorsCover',
    name: 'fragment-permalinks-cover.png',
    alternativeText: 'A browser address bar ending in #example-2',
    caption: 'Every fragment has its own permalink',
    pixel: diagram([90, 40, 120], [200, 120, 180], [255, 240, 200]),
  },
  {
    key: 'anchors',
    name: 'fragment-anchors.png',
    alternativeText:
      'Two versions of the same page side by side: the anchors of unchanged sections stay the same',
    caption: 'Inserting a section leaves the other anchors alone',
    pixel: (x, y) =>
      diagram([250, 250, 250], [220, 220, 220], x < W / 2 ? [60, 60, 60] : [20, 120, 60])(x, y),
  },
  {
    key: 'ingestCover',
    name: 'crawler-ingest-cover.png',
    alternativeText: 'Bar chart of daily requests from five AI crawler families',
    caption: 'AI crawler requests per day, September 2025',
    pixel: (x, y) => (H - y < ((x * 7) % 23) + 3 ? [40, 110, 80] : [245, 245, 240]),
  },
  {
    key: 'timeToIndex',
    name: 'time-to-index.png',
    alternativeText:
      'Line chart of median time to index per week, falling from 31 hours to under 4 hours after webhooks were enabled',
    caption: 'Median time to index per week',
    pixel: (x, y) =>
      Math.abs(y - Math.round(4 + (x * x) / 110)) < 1 ? [200, 40, 40] : [250, 250, 250],
  },
  {
    key: 'tdmCover',
    name: 'tdm-licensing-cover.png',
    alternativeText:
      'A licence document with four switches labelled train, infer, cache and redistribute',
    caption: 'Four uses, four decisions',
    pixel: diagram([120, 90, 30], [230, 190, 90], [255, 255, 255]),
  },
  {
    key: 'aboutDiagram',
    name: 'about-pipeline.png',
    alternativeText:
      'Pipeline: Strapi publishes, sitemap-ai builds snapshots, agents read manifest pages and deltas',
    caption: 'How content reaches AI agents',
    pixel: diagram([30, 30, 30], [90, 90, 90], [120, 220, 160]),
  },
  {
    key: 'datasetGuideHero',
    name: 'publish-dataset-hero.png',
    alternativeText: 'A spreadsheet with a licence badge and a column of units',
    caption: 'A dataset is only reusable when its columns and licence are described',
    pixel: diagram([20, 90, 60], [120, 200, 150], [255, 255, 255]),
  },
  {
    key: 'evidenceGuideHero',
    name: 'evidence-links-hero.png',
    alternativeText:
      'A paragraph with three footnote arrows pointing at a standard, a dataset and a paper',
    caption: 'Evidence links point at primary sources',
    pixel: diagram([140, 30, 50], [230, 120, 120], [255, 255, 255]),
  },
  {
    key: 'crawlerCsv',
    name: 'ai-crawler-requests-2025.csv',
    alternativeText: null,
    caption: 'Monthly requests and fragment fetches per AI crawler family, July–September 2025',
    text: CRAWLER_REQUESTS_CSV,
  },
  {
    key: 'stabilityCsv',
    name: 'fragment-stability-sample.csv',
    alternativeText: null,
    caption: 'Content changes and stability scores of a sample of fragments',
    text: FRAGMENT_STABILITY_CSV,
  },
];

const MIME = { '.png': 'image/png', '.csv': 'text/csv' };

/** Bytes and metadata of every seed file (deterministic). */
const buildFiles = () =>
  FILES.map((file) => {
    const ext = path.extname(file.name);
    const isImage = ext === '.png';
    const bytes = isImage
      ? encodePng(W, H, (x, y) => file.pixel(x, y, W, H))
      : Buffer.from(file.text, 'utf8');
    const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
    return {
      ...file,
      ext,
      mime: MIME[ext],
      bytes,
      width: isImage ? W : null,
      height: isImage ? H : null,
      hash: `${path.basename(file.name, ext).replace(/-/g, '_')}_${digest}`,
    };
  });

/** Writes the files into <public>/uploads/ (missing or different ones only). */
const writeUploadFiles = (uploadsDir, files = buildFiles()) => {
  fs.mkdirSync(uploadsDir, { recursive: true });
  for (const file of files) {
    const target = path.join(uploadsDir, file.name);
    const same = fs.existsSync(target) && fs.readFileSync(target).equals(file.bytes);
    if (!same) fs.writeFileSync(target, file.bytes);
  }
  return files;
};

/** Registers the files as upload rows; returns { [key]: row } (rows have numeric ids). */
const createUploadRows = async (strapi, files = buildFiles()) => {
  const rows = {};
  for (const file of files) {
    rows[file.key] = await strapi.db.query('plugin::upload.file').create({
      data: {
        name: file.name,
        alternativeText: file.alternativeText,
        caption: file.caption,
        width: file.width,
        height: file.height,
        formats: null,
        hash: file.hash,
        ext: file.ext,
        mime: file.mime,
        size: Math.round((file.bytes.length / 1024) * 100) / 100,
        url: `/uploads/${file.name}`,
        provider: 'local',
        folderPath: '/',
      },
    });
  }
  return rows;
};

module.exports = { encodePng, buildFiles, writeUploadFiles, createUploadRows };
