#!/usr/bin/env node
'use strict';

/**
 * What packing a document's stored texts together would save, measured on a database a first
 * build wrote (diagnosis for issue 8; nothing here is used by the plugin):
 *
 *   BENCH_SITE_KEEP_DB=/tmp/site.db node --expose-gc scripts/bench-site.js
 *   node scripts/measure-packing.js /tmp/site.db
 *
 * A first build deflates every item's data and canonical text on its own (two texts an item,
 * 280k at 10k articles). Each deflate of zlib ends in one block whose Huffman trees it builds
 * whatever the strategy, and sets the dictionary again: for texts of a few hundred bytes most of
 * the cost is that, not the matching. This reads the texts a first build kept in its version
 * rows, grouped by document, and times (best of seven, this thread) the plugin's own encoder
 * (server/src/repositories/blob-codec.ts, bundled here from its source) on each text, on each
 * item's data and text as one, and on each document's data and each document's texts as one
 * text, with the bytes each writes.
 */
const path = require('node:path');
const Module = require('node:module');

const ROOT = path.resolve(__dirname, '..');
const ROUNDS = 7;

/** The plugin's encoder and decoder, bundled from their source in memory. */
function codec() {
  const built = require('esbuild').buildSync({
    entryPoints: [path.join(ROOT, 'server/src/repositories/blob-codec.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
  });
  const compiled = new Module('blob-codec');
  compiled.paths = Module._nodeModulePaths(ROOT);
  compiled._compile(built.outputFiles[0].text, path.join(ROOT, 'blob-codec.js'));
  return compiled.exports;
}

/** The version rows' inline texts, by document, in row order: [data, canonical text or ''][]. */
function textsByDocument(file, decodeBlob) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const documents = new Map();
  try {
    const rows = db
      .prepare(
        `SELECT source_document AS document, data_body AS data, content_body AS content
         FROM sitemap_ai_item_versions WHERE data_body IS NOT NULL ORDER BY id`,
      )
      .iterate();
    for (const row of rows) {
      const texts = documents.get(row.document) ?? [];
      texts.push([decodeBlob(row.data), row.content ? decodeBlob(row.content) : '']);
      documents.set(row.document, texts);
    }
  } finally {
    db.close();
  }
  return documents;
}

function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/measure-packing.js <database a first build wrote>');
    process.exit(2);
  }
  const { encodeBlob, decodeBlob } = codec();
  const documents = textsByDocument(path.resolve(file), decodeBlob);
  const items = [...documents.values()].flat();
  if (items.length === 0) {
    console.error(`${file}: no version rows with their texts inline (not a first build's?)`);
    process.exit(1);
  }
  const rawMb = items.reduce((sum, [d, c]) => sum + Buffer.byteLength(d) + Buffer.byteLength(c), 0);
  console.log(
    `${items.length} items of ${documents.size} documents, ${(rawMb / 2 ** 20).toFixed(2)} MB of texts`,
  );

  /** Best time of ROUNDS and the bytes written, encoding each of `texts()`. */
  const measure = (label, texts) => {
    let best = Number.POSITIVE_INFINITY;
    let bytes = 0;
    let count = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const list = texts();
      const started = process.hrtime.bigint();
      bytes = 0;
      for (const text of list) bytes += encodeBlob(text).length;
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
      count = list.length;
    }
    console.log(
      `  ${label.padEnd(44)} ${String(count).padStart(7)} deflates  ${best.toFixed(0).padStart(5)} ms  ${(bytes / 2 ** 20).toFixed(2).padStart(6)} MB`,
    );
    return best;
  };
  const apart =
    measure('each item data on its own (as today)', () => items.map(([data]) => data)) +
    measure('each canonical text on its own (as today)', () =>
      items.filter(([, text]) => text !== '').map(([, text]) => text),
    );
  measure("each item's data and text as one", () =>
    items.map(([data, text]) => `${data}\0${text}`),
  );
  const packed =
    measure("each document's data as one", () =>
      [...documents.values()].map((texts) => texts.map(([data]) => data).join('\n')),
    ) +
    measure("each document's texts as one", () =>
      [...documents.values()].map((texts) => texts.map(([, text]) => text).join('\0')),
    );
  console.log(
    `  per document instead of per item: ${apart.toFixed(0)} → ${packed.toFixed(0)} ms (${(packed / apart).toFixed(2)}×)`,
  );
}

main();
