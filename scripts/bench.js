#!/usr/bin/env node
'use strict';

/**
 * Benchmarks (figures, not pass/fail): fragmenting throughput of the pure core,
 * then a full and an incremental rebuild and a complete crawl on a booted
 * playground (SQLite) with generated articles (BENCH_ENTRIES sets the count),
 * then the real-site scenario (scripts/bench-site.js) for 1k and 10k existing
 * articles, each in its own process; `--site-n 1000,10000,100000` picks the sizes.
 */
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { buildPlugin } = require('./build-plugin');

const ROOT = path.resolve(__dirname, '..');
const PLAYGROUND = path.join(ROOT, 'playground');
const ENTRIES = Number(process.env.BENCH_ENTRIES || 1000);

if (buildPlugin({ silent: true }) !== 0) process.exit(1);
// The pure core is not a published entry: bundle it for this process with esbuild (Vite's own).
const CORE_BUNDLE = path.join(ROOT, '.tmp', 'bench-core.js');
require('esbuild').buildSync({
  entryPoints: [path.join(ROOT, 'server/src/core/index.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  packages: 'external',
  outfile: CORE_BUNDLE,
  logLevel: 'error',
});
const core = require(CORE_BUNDLE);

function article(n, sections = 8) {
  const parts = [`Lead paragraph of article ${n} with a [source](https://www.w3.org/TR/) link.`];
  for (let s = 1; s <= sections; s += 1) {
    parts.push(
      `## Section ${s} of ${n}\n\n${'Body text of the section, with some words. '.repeat(30)}`,
    );
    if (s % 3 === 0) parts.push('| Metric | Value (%) |\n|---|---|\n| a | 1 |\n| b | 2 |');
    if (s % 4 === 0) parts.push(`![Figure ${s}](/uploads/f${s}.png "Caption ${s}")`);
  }
  return parts.join('\n\n');
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const rate = (count, ms) => `${Math.round((count / ms) * 1000)}/s`;

function benchCore() {
  const type = {
    uid: 'api::article.article',
    typeKey: 'article',
    pathPattern: '/{slug}',
    chunk: 'by_h2',
    maxTokens: 800,
    granularity: new Set(core.FRAGMENT_TYPES),
    schema: ['Article'],
  };
  const site = {
    siteUrl: 'https://example.com',
    siteName: 'example.com',
    apiUrl: 'https://example.com',
    mediaBaseUrl: 'https://example.com',
    defaultLocale: 'en',
    defaults: { license: 'https://example.com/license' },
  };
  const entries = Array.from({ length: 2000 }, (_, n) => ({
    uid: type.uid,
    typeKey: 'article',
    documentId: `doc${n}`,
    lang: 'en',
    slug: `article-${n}`,
    title: `Article ${n}`,
    bodies: [{ field: 'body', format: 'markdown', value: article(n) }],
    media: [],
    faq: [],
    tables: [],
    datasets: [],
    authors: [],
    metadata: {},
    pathValues: { slug: `article-${n}` },
    publishedAt: '2026-01-01T00:00:00.000Z',
  }));
  const bytes = entries.reduce((sum, e) => sum + e.bodies[0].value.length, 0);
  const t = performance.now();
  let items = 0;
  for (const entry of entries)
    items += core.buildEntryItems(entry, type, site).map(core.finalizeDraft).length;
  const ms = performance.now() - t;
  console.log(
    `core: ${entries.length} Markdown articles (${mb(bytes)}) → ${items} items in ${ms.toFixed(0)} ms (${rate(entries.length, ms)} articles, ${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MB/s)`,
  );
}

async function benchStrapi() {
  const db = path.join(os.tmpdir(), `sai-bench-${process.pid}.db`);
  Object.assign(process.env, {
    DATABASE_FILENAME: db,
    PLAYGROUND_SEED: 'false',
    LOG_LEVEL: 'error',
    SITEMAP_AI_RATE_LIMIT: 'false',
    SITEMAP_AI_SCHEDULE: 'false',
    NODE_ENV: 'test',
  });
  process.chdir(PLAYGROUND);
  const { createStrapi } = require('@strapi/strapi');
  const strapi = await createStrapi({
    appDir: PLAYGROUND,
    distDir: PLAYGROUND,
    autoReload: false,
    serveAdminPanel: false,
  }).load();
  try {
    const documents = strapi.documents('api::article.article');
    // Created without tracking first (schedule off, tracking happens on publish): measure publish cost separately.
    let t = performance.now();
    const ids = [];
    for (let n = 0; n < ENTRIES; n += 1) {
      const { documentId } = await documents.create({
        locale: 'en',
        data: { title: `Bench article ${n}`, slug: `bench-${n}`, body: article(n) },
      });
      ids.push(documentId);
    }
    console.log(
      `strapi: created ${ENTRIES} draft articles in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    t = performance.now();
    for (const documentId of ids) await documents.publish({ documentId, locale: 'en' });
    const publishMs = performance.now() - t;
    console.log(
      `publish with change tracking: ${ENTRIES} articles in ${(publishMs / 1000).toFixed(1)} s (${(publishMs / ENTRIES).toFixed(1)} ms per publish, changelog and states written)`,
    );
    const builder = strapi.plugin('sitemap-ai').service('snapshot-builder');
    const manifest = strapi.plugin('sitemap-ai').service('manifest');
    const rssBefore = process.memoryUsage().rss;
    t = performance.now();
    const full = await builder.rebuild({ trigger: 'bench' });
    const fullMs = performance.now() - t;
    console.log(
      `rebuild (all tracked items new to the manifest): ${full.snapshot.itemCount} items in ${fullMs.toFixed(0)} ms (${rate(full.snapshot.itemCount, fullMs)}); RSS ${mb(rssBefore)} → ${mb(process.memoryUsage().rss)}`,
    );
    t = performance.now();
    const reconciled = await strapi.plugin('sitemap-ai').service('tracker').reconcileAll();
    console.log(
      `full reconcile (every published entry re-fragmented and compared, as after a settings change): ${reconciled.documents} documents in ${(performance.now() - t).toFixed(0)} ms, ${reconciled.changed} changed`,
    );
    const target = await documents.findFirst({
      filters: { slug: 'bench-7' },
      locale: 'en',
      status: 'draft',
    });
    await documents.update({
      documentId: target.documentId,
      locale: 'en',
      data: { body: `${target.body}\n\nOne more line.` },
    });
    await documents.publish({ documentId: target.documentId, locale: 'en' });
    t = performance.now();
    const one = await builder.rebuild({ trigger: 'bench' });
    console.log(
      `rebuild (1 entry changed, incremental): ${JSON.stringify(one.snapshot.changes)} in ${(performance.now() - t).toFixed(0)} ms`,
    );
    t = performance.now();
    const idle = await builder.rebuild({ trigger: 'bench' });
    console.log(
      `rebuild (nothing changed, skipped=${idle.skipped}) in ${(performance.now() - t).toFixed(0)} ms`,
    );
    const snapshot = await manifest.current();
    t = performance.now();
    let token;
    let read = 0;
    let pages = 0;
    do {
      const resolved = await manifest.resolve({ limit: 500, page_token: token });
      const page = await manifest.page({ limit: 500, page_token: token }, resolved);
      read += page.items.length;
      pages += 1;
      token = page.next_page_token ?? undefined;
    } while (token);
    const crawlMs = performance.now() - t;
    console.log(
      `crawl of snapshot ${snapshot.seq}: ${read} items in ${pages} pages of 500 in ${crawlMs.toFixed(0)} ms (${rate(read, crawlMs)}, ${(crawlMs / pages).toFixed(1)} ms/page)`,
    );
  } finally {
    await strapi.destroy();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(db + suffix, { force: true });
  }
}

/**
 * The real-site scenario per size, each in a fresh process (its memory figures are its own).
 * `--site-heap-mb M` caps the V8 heap of those processes (`--max-old-space-size`): uncapped, V8
 * lets the heap grow with the garbage a build makes, so peak RSS says more about V8 than about
 * what the build keeps; capped, a build that kept too much would fail.
 */
function benchSites() {
  const option = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const sizes = (option('--site-n') ?? '1000,10000').split(',').map(Number);
  const heap = option('--site-heap-mb');
  for (const n of sizes) {
    const run = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        ...(heap ? [`--max-old-space-size=${Number(heap)}`] : []),
        path.join(__dirname, 'bench-site.js'),
        '--n',
        String(n),
      ],
      { stdio: 'inherit', env: { ...process.env, BENCH_SITE_NO_BUILD: '1' } },
    );
    if (run.status !== 0) throw new Error(`bench-site --n ${n} failed (${run.status})`);
  }
}

benchCore();
benchStrapi().then(
  () => {
    benchSites();
    process.exit(0);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
