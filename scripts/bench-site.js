#!/usr/bin/env node
'use strict';

/**
 * The real-site scenario (issue 8): a site that already has N published articles meets the
 * plugin. The articles are written straight into Strapi's own tables (seconds, not the minutes
 * the document service takes), nothing is tracked in between, then one process times:
 * a read + sha256 of every body (the floor any indexer pays), the plugin's first build, a full
 * re-compare with nothing changed, the same re-compare with every document compared (as after an
 * upgrade of the plugin or a settings change, which change what every document's hash is made
 * from: here the recorded hashes are deleted), 10 edits and the incremental build after them, and 100
 * publishes with the plugin; a second boot with the plugin disabled times the same 100
 * publishes without it. Peak RSS is sampled from a worker thread; the database is measured
 * before and after. Prints one JSON line and a table.
 *
 *   node --expose-gc scripts/bench-site.js      N=1000 (BENCH_SITE_N=10000, or --n 100000)
 *   BENCH_SITE_DB=postgres …                    the same on a new PostgreSQL database (127.0.0.1:5432)
 *
 * HTTP: requests per second of a manifest page, its 304 and `/_health` (autocannon; BENCH_SITE_HTTP=0
 * skips them).
 *
 * BENCH_SITE_QUERIES=1 prints the SQL of each build by total time; BENCH_SITE_PROFILE=file
 * writes a CPU profile of the first build (_RECOMPARE, _RECOMPARE_ALL, _HTTP, _PUBLISH: of those
 * phases);
 * BENCH_SITE_REPEAT_ALL=k runs the every-document re-compare k more times and reports its median;
 * BENCH_SITE_KEEP_DB=file keeps a copy of the database with the plugin's tables (diagnosis);
 * BENCH_SITE_MEMORY=1 prints where each phase's memory grew (V8 heap, outside it);
 * BENCH_SITE_ALLOCATIONS=1 makes BENCH_SITE_PROFILE a sampling profile of what the first build
 * allocates, garbage included, instead of a CPU profile.
 *
 * BENCH_SITE_INTERRUPTED=1: the first build is interrupted once it has tracked the whole site
 * (states and their versions of snapshot 1 written, the snapshot not published: a server stopped
 * at the worst moment), and "first build" times the build that completes it after a restart.
 */
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const ROOT = path.resolve(__dirname, '..');
const PLAYGROUND = path.join(ROOT, 'playground');
const UID = 'api::article.article';
const flag = process.argv.indexOf('--n');
const N = Number(flag > 0 ? process.argv[flag + 1] : process.env.BENCH_SITE_N || 1000);
const SEED_BATCH = 250;
/** The database of the run: `sqlite` (default) or `postgres` (BENCH_SITE_DB=postgres). */
const DB = process.env.BENCH_SITE_DB === 'postgres' ? 'postgres' : 'sqlite';
/**
 * BENCH_SITE_REPEAT_ALL=k: the every-document re-compare run k more times in the same process,
 * its median reported beside the first run (0–20).
 */
const REPEAT_ALL = (() => {
  const value = process.env.BENCH_SITE_REPEAT_ALL ?? '0';
  if (!/^\d+$/.test(value) || Number(value) > 20)
    throw new Error(`BENCH_SITE_REPEAT_ALL must be a whole number from 0 to 20, not "${value}"`);
  return Number(value);
})();
/** The middle value of `values` (of an even count, the upper of the two middles). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
/**
 * The file a path-valued variable names (BENCH_SITE_KEEP_DB, BENCH_SITE_PROFILE…), resolved
 * against the directory the bench was started from (it runs in the playground's), or undefined
 * when unset. A switch's value ("1", "true"…) is refused: the file would be written under that
 * name in the playground.
 */
const STARTED_IN = process.cwd();
function fileFlag(name) {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  if (/^(0|1|true|false|yes|no|on|off)$/i.test(value))
    throw new Error(
      `${name} names the file to write (a path such as /tmp/bench-site.out), not "${value}"`,
    );
  return path.resolve(STARTED_IN, value);
}
const KEEP_DB = fileFlag('BENCH_SITE_KEEP_DB');
/** The profiles' files by variable (withProfile), read now: a bad one fails before any phase. */
const PROFILE_FILES = new Map(
  ['', '_RECOMPARE', '_RECOMPARE_ALL', '_HTTP', '_PUBLISH', '_LLMS_FULL'].map((phase) => {
    const name = `BENCH_SITE_PROFILE${phase}`;
    return [name, fileFlag(name)];
  }),
);

/** BENCH_SITE_QUERIES=1: print the statements of the first build by total time (diagnosis). */
const QUERIES = process.env.BENCH_SITE_QUERIES === '1';

/**
 * What this run has switched on that slows the phases it times, and not all of them alike: a
 * query log wraps every statement webtools' knex-heavy build runs (its 10k build measured 4.1 s
 * instead of 2.5–2.9 s, the plugin's first build 3.3× it), and so does a GC trace; a profiler
 * slows whichever build it watches. Figures taken under them are for diagnosis, not for the goal
 * table: the report says so below its table.
 */
const SLOWING_FLAGS = [
  '--trace-gc',
  '--trace-opt',
  '--trace-deopt',
  '--cpu-prof',
  '--heap-prof',
  '--prof',
  '--perf-basic-prof',
  '--perf-basic-prof-only-functions',
  '--inspect',
];
function instrumentsOn() {
  const on = [];
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  for (const flag of SLOWING_FLAGS)
    if (flags.some((given) => given === flag || given.startsWith(`${flag}=`))) on.push(flag);
  if (QUERIES) on.push('BENCH_SITE_QUERIES');
  if (process.env.BENCH_SITE_MEMORY === '1') on.push('BENCH_SITE_MEMORY');
  for (const [name, file] of PROFILE_FILES) if (file) on.push(name);
  return on;
}

/**
 * A CPU profile of `work` into the file named by the environment variable `name` (diagnosis):
 * BENCH_SITE_PROFILE for the first build, BENCH_SITE_PROFILE_RECOMPARE for the re-compare,
 * BENCH_SITE_PROFILE_HTTP for the HTTP figures, BENCH_SITE_PROFILE_PUBLISH for the publishes with
 * the plugin, BENCH_SITE_PROFILE_LLMS_FULL for llms-full.txt's first read.
 */
async function withProfile(work, name = 'BENCH_SITE_PROFILE') {
  if (!PROFILE_FILES.has(name)) throw new Error(`no profile variable ${name}`);
  const file = PROFILE_FILES.get(name);
  if (!file) return work();
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  // Where the build allocates, garbage included (a `.heapprofile` for Chrome's DevTools), or CPU.
  const allocations = name === 'BENCH_SITE_PROFILE' && process.env.BENCH_SITE_ALLOCATIONS === '1';
  const [domain, start, stop, options] = allocations
    ? [
        'HeapProfiler',
        'startSampling',
        'stopSampling',
        {
          samplingInterval: 64 * 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        },
      ]
    : ['Profiler', 'start', 'stop', undefined];
  await post(`${domain}.enable`);
  await post(`${domain}.${start}`, options);
  try {
    return await work();
  } finally {
    const { profile } = await post(`${domain}.${stop}`);
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/** Count and time the SQL statements knex runs while `work` runs, grouped by their shape. */
async function withQueryLog(strapi, work) {
  if (!QUERIES) return work();
  const knex = strapi.db.connection;
  const started = new Map();
  const shapes = new Map();
  const onQuery = (q) => started.set(q.__knexQueryUid, performance.now());
  const onResponse = (_r, q) => {
    const t = started.get(q.__knexQueryUid);
    started.delete(q.__knexQueryUid);
    const shape = q.sql
      .replace(/\?(, \?)*/g, '?')
      .replace(/\s+/g, ' ')
      .slice(0, 160);
    const entry = shapes.get(shape) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += t === undefined ? 0 : performance.now() - t;
    shapes.set(shape, entry);
  };
  knex.on('query', onQuery).on('query-response', onResponse);
  try {
    return await work();
  } finally {
    knex.off('query', onQuery).off('query-response', onResponse);
    const all = [...shapes].sort((a, b) => b[1].ms - a[1].ms);
    const sum = all.reduce((t, [, { count, ms }]) => ({ count: t.count + count, ms: t.ms + ms }), {
      count: 0,
      ms: 0,
    });
    const top = all.slice(0, 12);
    console.error(`--- ${sum.count} statements, ${sum.ms.toFixed(0)} ms`);
    for (const [shape, { count, ms }] of top)
      console.error(`${ms.toFixed(0).padStart(7)} ms ${String(count).padStart(7)}×  ${shape}`);
  }
}

/** Peak resident memory of the whole process, sampled every 5 ms off the main thread. */
function rssSampler() {
  const shared = new SharedArrayBuffer(8);
  const peak = new BigInt64Array(shared);
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const peak = new BigInt64Array(workerData);
     setInterval(() => {
       const rss = BigInt(process.memoryUsage.rss());
       if (rss > Atomics.load(peak, 0)) Atomics.store(peak, 0, rss);
     }, 5);`,
    { eval: true, workerData: shared },
  );
  worker.unref();
  return {
    /** Start a phase: the peak is what the process holds now. */
    reset: () => Atomics.store(peak, 0, BigInt(process.memoryUsage.rss())),
    /** Peak RSS since the last reset, in MB. */
    peakMb: () => Math.max(Number(Atomics.load(peak, 0)), process.memoryUsage.rss()) / 2 ** 20,
    stop: () => worker.terminate(),
  };
}

/** A deterministic article of ~2.7 KB: a lead, 8–12 H2 sections, one table and one image. */
function articleBody(n) {
  const random = createHash('sha256').update(String(n)).digest();
  const sections = 8 + (random[0] % 5);
  const parts = [
    `Lead paragraph of article ${n}, citing [a primary source](https://www.w3.org/TR/).`,
  ];
  for (let s = 1; s <= sections; s += 1) {
    parts.push(
      `## Section ${s} of article ${n}\n\n${'Words of the section body, plainly written. '.repeat(4 + (random[s] % 3))}`,
    );
    if (s === 3) parts.push(`| Metric | Value |\n|---|---|\n| reach | ${n} |\n| share | ${s}% |`);
    if (s === 5) parts.push(`![Figure of ${n}](/uploads/figure-${n}.png "Figure of article ${n}")`);
  }
  return parts.join('\n\n');
}

const documentId = () => randomBytes(12).toString('base64url').toLowerCase().slice(0, 24);

/** N published articles (a draft and a published row each, as Strapi keeps them), in batches. */
async function seed(strapi) {
  const meta = strapi.db.metadata.get(UID);
  const column = (attribute) => meta.attributes[attribute]?.columnName ?? attribute;
  const knex = strapi.db.connection;
  const now = new Date();
  let bodyBytes = 0;
  for (let start = 0; start < N; start += SEED_BATCH) {
    const rows = [];
    for (let n = start; n < Math.min(N, start + SEED_BATCH); n += 1) {
      const body = articleBody(n);
      bodyBytes += Buffer.byteLength(body);
      const id = documentId();
      for (const publishedAt of [null, now]) {
        rows.push({
          [column('documentId')]: id,
          [column('title')]: `Article ${n}`,
          [column('slug')]: `article-${n}`,
          [column('summary')]: `What article ${n} is about.`,
          [column('body')]: body,
          [column('locale')]: 'en',
          [column('createdAt')]: now,
          [column('updatedAt')]: now,
          [column('publishedAt')]: publishedAt,
        });
      }
    }
    await knex.transaction((trx) => trx.batchInsert(meta.tableName, rows, 100));
  }
  return bodyBytes;
}

/** The floor: read every published body in keyset pages and hash it. */
async function readAndHash(strapi) {
  let lastId = 0;
  let entries = 0;
  const records = [];
  for (;;) {
    const rows = await strapi.db.query(UID).findMany({
      select: ['id', 'slug', 'body'],
      where: { publishedAt: { $notNull: true }, id: { $gt: lastId } },
      orderBy: { id: 'asc' },
      limit: 1000,
    });
    if (rows.length === 0) break;
    for (const row of rows) {
      const sha256 = createHash('sha256')
        .update(row.body ?? '')
        .digest('hex');
      records.push(JSON.stringify({ id: row.id, url: `/${row.slug}`, sha256 }));
      entries += 1;
    }
    lastId = rows[rows.length - 1].id;
  }
  return entries;
}

/** PostgreSQL: sizes of relations (tables with their indexes and TOAST) from the catalog. */
async function postgresFigures(strapi) {
  const knex = strapi.db.connection;
  await knex.raw('VACUUM ANALYZE');
  const size = async (sql, bindings = []) => Number((await knex.raw(sql, bindings)).rows[0].bytes);
  const table = strapi.db.metadata.get(UID).tableName;
  const relations = `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`;
  const plugin = await size(`${relations} AND c.relname LIKE 'sitemap\\_ai\\_%'`);
  const content = await size(`${relations} AND (c.relname = ? OR c.relname LIKE ? || '\\_%')`, [
    table,
    table,
  ]);
  const rows = (
    await knex.raw(`SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'sitemap\\_ai\\_%'`)
  ).rows;
  const tables = {};
  for (const row of rows)
    if (Number(row.bytes) > 2 ** 18) tables[row.name] = Number((row.bytes / 2 ** 20).toFixed(1));
  return {
    totalMb: (await size('SELECT pg_database_size(current_database()) AS bytes')) / 2 ** 20,
    pluginMb: plugin / 2 ** 20,
    contentMb: content / 2 ** 20,
    tables,
  };
}

/** A database of its own for one run: SQLite (a file) or PostgreSQL (BENCH_SITE_DB=postgres). */
async function benchDatabase() {
  if (DB !== 'postgres') {
    const file = path.join(os.tmpdir(), `sai-site-${process.pid}.db`);
    return {
      env: { DATABASE_FILENAME: file },
      figures: (strapi) => databaseFigures(strapi, file),
      drop: async () => {
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      },
    };
  }
  const { Client } = require('pg');
  const name = `sai_bench_${process.pid}`;
  const admin = async (sql) => {
    const client = new Client({
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      database: 'postgres',
    });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return {
    env: {
      DATABASE_CLIENT: 'postgres',
      DATABASE_NAME: name,
      DATABASE_USERNAME: 'postgres',
      DATABASE_HOST: '127.0.0.1',
      DATABASE_PORT: '5432',
    },
    figures: postgresFigures,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function databaseFigures(strapi, file) {
  const knex = strapi.db.connection;
  await knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  const total = fs.statSync(file).size;
  let plugin = 0;
  let content = 0;
  const tables = {};
  try {
    // The indexed content as stored: the article type's table, its indexes and link tables.
    const table = strapi.db.metadata.get(UID).tableName;
    const [row] = await knex.raw(
      "SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = ? OR name LIKE ? || '\\_%' ESCAPE '\\'",
      [table, table],
    );
    content = Number(row.bytes);
    const rows = await knex.raw(
      "SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'sitemap_ai%' GROUP BY name",
    );
    for (const row of rows) {
      plugin += Number(row.bytes);
      if (Number(row.bytes) > 2 ** 18) tables[row.name] = Number((row.bytes / 2 ** 20).toFixed(1));
    }
  } catch {
    plugin = NaN; // dbstat not compiled in
  }
  return {
    totalMb: total / 2 ** 20,
    pluginMb: plugin / 2 ** 20,
    contentMb: content / 2 ** 20,
    tables,
  };
}

/**
 * The longest the event loop went without a turn, in ms, from now to the call of the function
 * returned: the longest gap between ticks of a 10 ms timer, the last one up to that call included
 * (a loop held to the end has no tick to measure by).
 */
function eventLoopHold() {
  let last = performance.now();
  let longest = 0;
  let over100 = 0;
  const held = (ms) => {
    longest = Math.max(longest, ms);
    if (ms >= 100) over100 += 1;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    held(now - last);
    last = now;
  }, 10);
  return () => {
    clearInterval(timer);
    held(performance.now() - last);
    return { longestMs: Math.round(longest), over100 };
  };
}

async function boot(env) {
  Object.assign(process.env, env);
  process.chdir(PLAYGROUND);
  const { createStrapi } = require('@strapi/strapi');
  return createStrapi({
    appDir: PLAYGROUND,
    distDir: PLAYGROUND,
    autoReload: false,
    serveAdminPanel: false,
  }).load();
}

/**
 * BENCH_SITE_MEMORY=1: where a phase's resident memory is (diagnosis). Sampled on the main thread
 * between batches: the V8 heap (total and in use), memory outside it (external, ArrayBuffers) and
 * the rest of the resident set, each at its largest, in MB from the start of the phase.
 */
function memoryBreakdown() {
  if (process.env.BENCH_SITE_MEMORY !== '1') return () => {};
  const mb = (bytes) => Math.round(bytes / 2 ** 20);
  const start = process.memoryUsage();
  const most = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0, outsideHeap: 0 };
  const sample = () => {
    const now = process.memoryUsage();
    for (const key of ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'])
      most[key] = Math.max(most[key], now[key] - start[key]);
    most.outsideHeap = Math.max(
      most.outsideHeap,
      now.rss - now.heapTotal - (start.rss - start.heapTotal),
    );
  };
  const timer = setInterval(sample, 100);
  return (label) => {
    clearInterval(timer);
    sample();
    const parts = Object.entries(most).map(([key, bytes]) => `${key} +${mb(bytes)}`);
    console.error(`memory (${label}, largest growth, MB): ${parts.join(', ')}`);
  };
}

/**
 * What a first build leaves when its server stops after tracking the whole site and before it
 * publishes snapshot 1 (BENCH_SITE_INTERRUPTED=1): the build, stopped as its tracking returns.
 */
async function interruptedFirstBuild(strapi) {
  const plugin = strapi.plugin('sitemap-ai');
  const tracker = plugin.service('tracker');
  const reconcileAll = tracker.reconcileAll;
  tracker.reconcileAll = async (...args) => {
    await reconcileAll(...args);
    throw new Error('stopped after tracking');
  };
  try {
    await plugin.service('snapshot-builder').rebuild({ trigger: 'bench' });
    throw new Error('the interrupted first build published a snapshot');
  } catch (error) {
    if (!(error instanceof Error) || error.message !== 'stopped after tracking') throw error;
  } finally {
    tracker.reconcileAll = reconcileAll;
  }
}

async function timed(sampler, work, label = 'phase') {
  if (global.gc) global.gc();
  sampler.reset();
  const before = process.memoryUsage.rss() / 2 ** 20;
  const report = memoryBreakdown();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const { user, system } = process.cpuUsage(cpu);
  report(label);
  return {
    ms: Math.round(performance.now() - started),
    // CPU time of every thread of the process (both of the plugin's): the work, which a noisy
    // machine's wall clock hides (the same build took 19–26 s from one run to the next).
    cpuMs: Math.round((user + system) / 1000),
    rssPeakGrowthMb: Math.round(sampler.peakMb() - before),
    result,
  };
}

/**
 * `count` drafts edited and published one after another. Returns the mean time of one edit +
 * publish, including the tracking the publishes left for later (drained before the clock
 * stops), and the median time of a publish call alone (what an editor waits for).
 */
async function publishes(strapi, count, tag) {
  const documents = strapi.documents(UID);
  const drafts = await documents.findMany({ locale: 'en', status: 'draft', limit: count });
  const calls = [];
  const started = performance.now();
  for (const [i, draft] of drafts.entries()) {
    await documents.update({
      documentId: draft.documentId,
      locale: 'en',
      data: { body: `${draft.body}\n\n${tag} ${i}.` },
    });
    const call = performance.now();
    await documents.publish({ documentId: draft.documentId, locale: 'en' });
    calls.push(performance.now() - call);
  }
  // The plugin's tracking that the publishes left for later is part of their cost.
  await strapi.plugin('sitemap-ai')?.service('tracker').flush();
  return {
    meanMs: (performance.now() - started) / drafts.length,
    medianCallMs: median(calls),
  };
}

/** Whether the classic sitemap plugin (bench-only devDependencies) is installed. */
function webtoolsInstalled() {
  try {
    require.resolve('strapi-plugin-webtools/package.json');
    require.resolve('webtools-addon-sitemap/package.json');
    return true;
  } catch {
    return false;
  }
}

/**
 * The classic sitemap of the same articles: webtools' URL pattern on the article type and its
 * default sitemap holding it, the URL aliases generated for the existing entries the way a site
 * owner installing it does (bulk generate, not timed), then one full sitemap build (timed).
 */
async function classicSitemap(strapi, sampler) {
  const started = performance.now();
  await strapi.documents('plugin::webtools.url-pattern').create({
    data: { pattern: '/articles/[slug]', contenttype: UID, languages: ['en'] },
  });
  const store = strapi.store({ environment: '', type: 'plugin', name: 'sitemap' });
  const config = await strapi.plugin('webtools-addon-sitemap').service('settings').getConfig();
  config.sitemaps.default = {
    ...(config.sitemaps.default ?? {}),
    hostname: 'https://example.com',
    includeHomepage: true,
    excludeDrafts: true,
    languageFilter: 'off',
    hostname_overrides: {},
    customEntries: {},
    contentTypes: {
      [UID]: { languages: { und: { priority: 0.5, changefreq: 'weekly', includeLastmod: true } } },
    },
  };
  await store.set({ key: 'settings', value: config });
  const aliases = await strapi
    .plugin('webtools')
    .service('bulk-generate')
    .generateUrlAliases({ types: [UID], generationType: 'all' });
  const setupMs = Math.round(performance.now() - started);
  const build = await timed(sampler, () =>
    strapi.plugin('webtools-addon-sitemap').service('core').createSitemap('default'),
  );
  // What it built: the URLs of its sitemap (the articles and the homepage).
  const stored = await strapi
    .plugin('webtools-addon-sitemap')
    .service('query')
    .getSitemap('default', 0, ['link_count']);
  return {
    aliases,
    setupMs,
    links: Number(stored?.link_count ?? 0),
    ms: build.ms,
    cpuMs: build.cpuMs,
    rssPeakGrowthMb: build.rssPeakGrowthMb,
  };
}

/**
 * The load generator's program (run with `node -e`): autocannon with `argv`'s options. With
 * `bodies: false` the clients count each body's bytes without keeping it: autocannon appends every
 * chunk of a body to a string (for `expectBody`), which decodes it as UTF-8; for a 750 KB page of
 * text with a few non-ASCII characters that bounded the load generator at ~150 req/s on this
 * machine whatever the server did (a bare Node server answering the same bytes ran no faster),
 * while a pure-ASCII body of the same size ran at ~1500.
 */
const LOAD_PROGRAM = `
const autocannon = require(process.argv[1]);
const { bodies, ...options } = JSON.parse(process.argv[2]);
const setupClient = bodies ? undefined : (client) => { client.pipelinedRequests.addBody = () => {}; };
autocannon({ ...options, setupClient }, (error, result) => {
  if (error) throw error;
  process.stdout.write(JSON.stringify(result));
});`;

/**
 * autocannon's result for `target` (`url`, and `socketPath` for a Unix socket; 10 connections,
 * 5 s), run in a process of its own as load is
 * generated in practice: in this process its parsing of the responses would be counted as the
 * server's time. `bodies`: whether its clients keep each body as a string, as autocannon does by
 * default (LOAD_PROGRAM).
 */
function loadOf(target, headers, { bodies = false } = {}) {
  const { execFile } = require('node:child_process');
  const options = { ...target, headers, connections: 10, duration: 5, bodies };
  const args = ['-e', LOAD_PROGRAM, require.resolve('autocannon'), JSON.stringify(options)];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 16 * 2 ** 20 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    ),
  );
}

/**
 * Requests per second on the HTTP server of the booted app (autocannon, 10 connections, 5 s each):
 * one manifest page of 500 items, the same page answered 304 to its ETag, and Strapi's `/_health`
 * as the floor of any request through the same server; over loopback TCP and over a Unix socket
 * served by the same request listener. Over loopback TCP on the 2-core machine, a bare Node
 * server answering the same 750 KB flipped between ~550 and ~5000 req/s from one run to the next
 * (spurious retransmissions of segments the client already had), so a large page's TCP figure
 * is the machine's loopback as much as the server; the Unix socket has no such spread.
 */
async function httpFigures(strapi) {
  const http = require('node:http');
  await new Promise((resolve) => strapi.server.listen(0, '127.0.0.1', resolve));
  const { port } = strapi.server.httpServer.address();
  const socketPath = path.join(os.tmpdir(), `bench-site-${process.pid}.sock`);
  fs.rmSync(socketPath, { force: true });
  const [listener] = strapi.server.httpServer.listeners('request');
  const unixServer = http.createServer(listener);
  await new Promise((resolve) => unixServer.listen(socketPath, resolve));
  const pagePath = '/api/sitemap-ai/manifest?limit=500';
  // Each representation's ETag and size on the wire (fetch would decode a gzip body).
  const probe = async (encoding) => {
    const answer = await fetch(`http://127.0.0.1:${port}${pagePath}`, {
      headers: { 'accept-encoding': encoding },
    });
    if (answer.status !== 200) throw new Error(`manifest page answered ${answer.status}`);
    await answer.arrayBuffer();
    return {
      etag: answer.headers.get('etag'),
      bytes: Number(answer.headers.get('content-length')),
    };
  };
  const plain = await probe('identity');
  const gzipped = await probe('gzip');
  // Each run must have answered `expected` only, each response with at least `bodyBytes` on the
  // wire (the clients that do not keep bodies still read them whole).
  const run = async (target, headers = {}, expected = 200, bodyBytes = 0, load = {}) => {
    const result = await loadOf(target, headers, load);
    const statuses = { ...result.statusCodeStats };
    const wrong = Object.keys(statuses).filter((code) => Number(code) !== expected);
    if (wrong.length > 0 || result.errors > 0)
      throw new Error(
        `${target.url} answered ${JSON.stringify(statuses)}, ${result.errors} errors`,
      );
    const perResponse = result.throughput.total / result.requests.total;
    if (!(perResponse >= bodyBytes))
      throw new Error(
        `${target.url}: ${Math.round(perResponse)} bytes a response, ${bodyBytes} expected`,
      );
    return { rps: Math.round(result.requests.average), p99Ms: result.latency.p99 };
  };
  const gzip = { 'accept-encoding': 'gzip' };
  const figuresOver = async (base, extra, stringBodies) => {
    const at = (pathname) => ({ url: `${base}${pathname}`, ...extra });
    const page = at(pagePath);
    const health = await run(at('/_health'), {}, 204);
    const manifest = await run(page, {}, 200, plain.bytes);
    // The same with autocannon's clients decoding each body into a string, as they do by default.
    const manifestStringBodies = stringBodies
      ? await run(page, {}, 200, plain.bytes, { bodies: true })
      : undefined;
    const notModified = await run(page, { 'if-none-match': plain.etag }, 304);
    // What crawlers send: the page compressed once per snapshot, and its 304.
    const manifestGzip = await run(page, gzip, 200, gzipped.bytes);
    const notModifiedGzip = await run(page, { ...gzip, 'if-none-match': gzipped.etag }, 304);
    return { health, manifest, manifestStringBodies, notModified, manifestGzip, notModifiedGzip };
  };
  // autocannon ends a run by closing its sockets, on a Unix socket with answers unread, which Koa
  // prints as each response's ECONNRESET: the runs check every answer's status themselves.
  const { app } = strapi.server;
  const silent = app.silent;
  try {
    const tcp = await figuresOver(`http://127.0.0.1:${port}`, {}, true);
    app.silent = true;
    return {
      ...tcp,
      unix: await figuresOver('http://localhost', { socketPath }, false),
      pageBytes: plain.bytes,
      pageGzipBytes: gzipped.bytes,
    };
  } finally {
    app.silent = silent;
    unixServer.closeAllConnections();
    await new Promise((resolve) => unixServer.close(resolve));
  }
}

/** Read a stream to its end; its size in bytes. */
async function drain(stream) {
  let bytes = 0;
  for await (const chunk of stream) bytes += Buffer.byteLength(chunk);
  return bytes;
}

/** The environment of the bench's Strapi boots on `database`. */
function benchEnv(database) {
  return {
    ...database.env,
    PLAYGROUND_SEED: 'false',
    LOG_LEVEL: 'error',
    NODE_ENV: 'test',
    SITEMAP_AI_RATE_LIMIT: 'false',
    SITEMAP_AI_SCHEDULE: 'false',
    SITEMAP_AI_REBUILD_ON_BOOTSTRAP: 'false',
  };
}

/**
 * Publishes under load (BENCH_SITE_UNDER_LOAD=1; meant for BENCH_SITE_DB=postgres): a second
 * Strapi instance on the same database publishes edits of random articles, one after another, for
 * as long as this instance's first build of the N articles runs. Then the second instance records
 * what it queued and stops, one more build runs here, and every edit is looked for: the last edit
 * of each article must be in its served content, the changelog must hold one entry per item
 * version, and no change may be left marked as not recorded.
 */
async function underLoad() {
  const database = await benchDatabase();
  const env = benchEnv(database);
  const strapi = await boot(env);
  const { spawn } = require('node:child_process');
  let child = null;
  try {
    const seeding = performance.now();
    await seed(strapi);
    const seedMs = Math.round(performance.now() - seeding);
    const meta = strapi.db.metadata.get(UID);
    const column = (attribute) => meta.attributes[attribute]?.columnName ?? attribute;
    const docs = await strapi.db
      .connection(meta.tableName)
      .select({ id: column('documentId'), slug: column('slug') })
      .whereNotNull(column('publishedAt'));
    const lines = [];
    child = spawn(process.execPath, [path.join(ROOT, 'tests', 'helpers', 'instance.cjs')], {
      env: { ...process.env, ...env },
    });
    let buffered = '';
    const waiters = [];
    const onData = (chunk) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop();
      for (const line of parts) {
        lines.push(line.trim());
        for (const waiter of [...waiters]) waiter();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const waitFor = (line) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (lines.includes(line)) {
            waiters.splice(waiters.indexOf(check), 1);
            resolve();
          }
        };
        waiters.push(check);
        check();
        exited.then(() => reject(new Error(`the second instance exited before "${line}"`)));
      });
    await waitFor('ready');

    const builder = strapi.plugin('sitemap-ai').service('snapshot-builder');
    let done = false;
    const started = performance.now();
    const build = builder.rebuild({ trigger: 'bench' }).finally(() => {
      done = true;
    });
    const last = new Map();
    let edits = 0;
    let duringBuild = 0;
    while (!done) {
      const doc = docs[Math.floor(Math.random() * docs.length)];
      const tag = `e${edits}`;
      child.stdin.write(`edit ${doc.id} ${tag}\n`);
      await waitFor(`edited ${doc.id} ${tag}`);
      edits += 1;
      if (!done) duringBuild += 1;
      last.set(doc.id, { slug: doc.slug, tag });
    }
    const first = await build;
    const buildMs = Math.round(performance.now() - started);
    // The first snapshot as built under load: a version the build wrote as it tracked and a
    // publish then replaced must be gone, not left open beside its successor or closed empty.
    const versions = strapi.db.metadata.get('plugin::sitemap-ai.item-version').tableName;
    const [{ n: emptyRanges }] = await strapi.db
      .connection(versions)
      .whereRaw('?? <= ??', ['seq_to', 'seq_from'])
      .count({ n: '*' });
    const [{ n: openTwice }] = await strapi.db.connection
      .from(
        strapi.db
          .connection(versions)
          .select('item_id')
          .where('seq_to', '>', first.snapshot?.seq ?? 0)
          .groupBy('item_id')
          .havingRaw('count(*) > 1')
          .as('twice'),
      )
      .count({ n: '*' });
    child.stdin.write('stop\n');
    await exited;
    child = null;
    await strapi.plugin('sitemap-ai').service('tracker').flush();
    await builder.rebuild({ trigger: 'bench' });

    const manifest = strapi.plugin('sitemap-ai').service('manifest');
    let lost = 0;
    for (const { slug, tag } of last.values()) {
      const { content } = await manifest.content(`article:${slug}:en`);
      if (!content.includes(`Edited under load (${tag}).`)) lost += 1;
    }
    // The changelog's rows and the "added" entries a first build's states stand for.
    const rows = [
      ...(await strapi.db
        .query('plugin::sitemap-ai.changelog-entry')
        .findMany({ select: ['item_id', 'version', 'kind'] })),
      ...(
        await strapi.db
          .query('plugin::sitemap-ai.fragment-state')
          .findMany({ where: { added_at: { $notNull: true } }, select: ['item_id'] })
      ).map((state) => ({ item_id: state.item_id, version: 'v1.0', kind: 'added' })),
    ];
    const keys = new Set(rows.map((r) => `${r.item_id}@${r.version}@${r.kind}`));
    return {
      underLoad: true,
      n: N,
      db: DB,
      seedMs,
      buildMs,
      items: first.snapshot?.itemCount ?? 0,
      buildFailures: first.failures.length,
      edits,
      duringBuild,
      articlesEdited: last.size,
      lost,
      duplicateChangelogEntries: rows.length - keys.size,
      firstSnapshotEmptyRanges: Number(emptyRanges),
      firstSnapshotItemsOpenTwice: Number(openTwice),
      marksLeft: await strapi.db.query('plugin::sitemap-ai.dirty-mark').count(),
    };
  } finally {
    if (child) child.kill('SIGKILL');
    await strapi.destroy();
    await database.drop();
  }
}

async function main() {
  // The bench sets it for webtools' own boot only. Set from outside, every boot loads webtools
  // beside the plugin and the run failed once the first boot was destroyed ("Unable to acquire a
  // connection": webtools-addon-sitemap reading its settings, store key plugin_sitemap_settings,
  // after that boot's database had closed).
  if (process.env.BENCH_WEBTOOLS !== undefined)
    throw new Error('BENCH_WEBTOOLS is set by the bench for its webtools boot: unset it');
  if (process.env.BENCH_SITE_NO_BUILD !== '1')
    require('./build-plugin').buildPlugin({ silent: true });
  if (process.env.BENCH_SITE_UNDER_LOAD === '1') return underLoad();
  const database = await benchDatabase();
  const sampler = rssSampler();
  const env = benchEnv(database);
  const figures = {
    n: N,
    db: DB,
    cpus: os.cpus().length,
    node: process.version,
    heapLimitMb: Math.round(require('node:v8').getHeapStatistics().heap_size_limit / 2 ** 20),
    instruments: instrumentsOn(),
  };
  let strapi = await boot(env);
  // Diagnosis: SQLite's page cache (2 MB unless configured) against the plugin's index writes.
  if (DB === 'sqlite' && process.env.BENCH_SITE_SQLITE_CACHE_MB)
    await strapi.db.connection.raw(
      `PRAGMA cache_size = -${1024 * Number(process.env.BENCH_SITE_SQLITE_CACHE_MB)}`,
    );
  try {
    const seeded = await timed(sampler, () => seed(strapi));
    figures.seedMs = seeded.ms;
    figures.contentMb = seeded.result / 2 ** 20;
    const before = await database.figures(strapi);
    figures.dbBeforeMb = before.totalMb;
    figures.contentTablesMb = before.contentMb;

    const baseline = await timed(sampler, () => readAndHash(strapi));
    figures.readHashMs = baseline.ms;
    figures.readHashRssMb = baseline.rssPeakGrowthMb;

    const builder = strapi.plugin('sitemap-ai').service('snapshot-builder');
    if (process.env.BENCH_SITE_INTERRUPTED === '1') {
      const interrupted = await timed(sampler, () => interruptedFirstBuild(strapi));
      figures.interruptedMs = interrupted.ms;
      figures.interruptedRssMb = interrupted.rssPeakGrowthMb;
      console.error(
        `first build interrupted after it tracked the site: ${interrupted.ms} ms, +${interrupted.rssPeakGrowthMb} MB RSS`,
      );
    }
    // The longest the event loop waited during the first build (a request's wait for a turn), and
    // how many turns held it 100 ms or more.
    const firstLoopHeld = eventLoopHold();
    const first = await timed(
      sampler,
      () => withProfile(() => withQueryLog(strapi, () => builder.rebuild({ trigger: 'bench' }))),
      'first build',
    );
    const firstLoop = firstLoopHeld();
    figures.firstBuildLoopMaxMs = firstLoop.longestMs;
    figures.firstBuildLoopOver100 = firstLoop.over100;
    figures.firstBuildMs = first.ms;
    figures.firstBuildCpuMs = first.cpuMs;
    figures.firstBuildRssMb = first.rssPeakGrowthMb;
    // A 10k run takes minutes more after this: the headline figure is shown as soon as it is known.
    console.error(
      `first build: ${first.ms} ms, CPU ${first.cpuMs} ms, +${first.rssPeakGrowthMb} MB RSS, ${first.result.snapshot?.itemCount ?? 0} items, event loop held ≤ ${firstLoop.longestMs} ms (${firstLoop.over100} turns ≥ 100 ms)`,
    );
    figures.items = first.result.snapshot?.itemCount ?? 0;
    const after = await database.figures(strapi);
    figures.dbAfterMb = after.totalMb;
    figures.pluginTablesMb = after.pluginMb;
    figures.pluginTables = after.tables;

    const recompare = await timed(sampler, () =>
      withProfile(
        () => withQueryLog(strapi, () => builder.rebuild({ trigger: 'bench', full: true })),
        'BENCH_SITE_PROFILE_RECOMPARE',
      ),
    );
    figures.recompareMs = recompare.ms;
    figures.recompareCpuMs = recompare.cpuMs;
    figures.recompareRssMb = recompare.rssPeakGrowthMb;
    figures.recompareChanged = recompare.result.snapshot?.changes ?? null;

    // Every document compared again, nothing changed: what an upgrade of the plugin or a settings
    // change costs (each changes what every document's hash is made from; deleting the recorded
    // hashes has the same effect on the comparison).
    await strapi.db.connection('sitemap_ai_source_hashes').del();
    const recompareAll = await timed(sampler, () =>
      withProfile(
        () => withQueryLog(strapi, () => builder.rebuild({ trigger: 'bench', full: true })),
        'BENCH_SITE_PROFILE_RECOMPARE_ALL',
      ),
    );
    figures.recompareAllMs = recompareAll.ms;
    figures.recompareAllCpuMs = recompareAll.cpuMs;
    figures.recompareAllRssMb = recompareAll.rssPeakGrowthMb;
    figures.recompareAllChanged = recompareAll.result.snapshot?.changes ?? null;
    // The same again, REPEAT_ALL times in this process (the figure most sensitive to this VM's
    // noise: its median says more than one run).
    if (REPEAT_ALL > 0) {
      const runs = [recompareAll.ms];
      for (let i = 0; i < REPEAT_ALL; i += 1) {
        await strapi.db.connection('sitemap_ai_source_hashes').del();
        const again = await timed(sampler, () => builder.rebuild({ trigger: 'bench', full: true }));
        runs.push(again.ms);
      }
      figures.recompareAllRunsMs = runs;
      figures.recompareAllMedianMs = median(runs);
    }

    await publishes(strapi, 10, 'Edited for the incremental build');
    const incremental = await timed(sampler, () =>
      withQueryLog(strapi, () => builder.rebuild({ trigger: 'bench' })),
    );
    figures.incrementalMs = incremental.ms;
    figures.incrementalChanges = incremental.result.snapshot?.changes ?? null;

    if (process.env.BENCH_SITE_HTTP !== '0')
      figures.http = await withProfile(() => httpFigures(strapi), 'BENCH_SITE_PROFILE_HTTP');

    // Discovery documents of the whole site (issue 10): the first read also folds the snapshot
    // into its per-page policy; each is streamed to the end and counted.
    const discovery = strapi.plugin('sitemap-ai').service('discovery');
    const llmsFull = await timed(sampler, () =>
      withProfile(
        async () => drain((await discovery.llmsFull()).stream),
        'BENCH_SITE_PROFILE_LLMS_FULL',
      ),
    );
    figures.llmsFullMs = llmsFull.ms;
    figures.llmsFullMb = llmsFull.result / 2 ** 20;
    figures.llmsFullRssMb = llmsFull.rssPeakGrowthMb;
    const sitemap = await timed(sampler, async () => drain((await discovery.sitemap(0)).stream));
    figures.sitemapMs = sitemap.ms;
    figures.sitemapMb = sitemap.result / 2 ** 20;
    figures.sitemapRssMb = sitemap.rssPeakGrowthMb;
    // The next snapshot's discovery index, after 10 edits and a build: made from the index before
    // and the pages the edits changed (the first read above read every item of the snapshot).
    await publishes(strapi, 10, 'Edited for the discovery index');
    await builder.rebuild({ trigger: 'bench' });
    const robots = await timed(sampler, () => discovery.robots());
    figures.discoveryAfterEditsMs = robots.ms;
    // The readiness checklist the admin's dashboard shows: a crawl of the whole snapshot. The
    // longest the event loop waited meanwhile is the longest any request waited for it.
    const checklist = strapi.plugin('sitemap-ai').service('readiness');
    const loopHeld = eventLoopHold();
    const readiness = await timed(sampler, () => checklist.check({ fresh: true }));
    figures.readinessLoopMaxMs = loopHeld().longestMs;
    figures.readinessMs = readiness.ms;
    figures.readinessRssMb = readiness.rssPeakGrowthMb;
    // The dashboard asked for a fresh checklist: it answers after its wait (4 s) at most, with the
    // last one computed; the computation goes on and is awaited here before the next phase.
    const dashboardStarted = performance.now();
    const dashboard = await strapi.plugin('sitemap-ai').service('dashboard').data({ fresh: true });
    figures.dashboardMs = Math.round(performance.now() - dashboardStarted);
    figures.dashboardWaited = dashboard.readinessComputing === true;
    if (figures.dashboardWaited) await checklist.check({ fresh: true });

    const withPlugin = await withProfile(
      () => withQueryLog(strapi, () => publishes(strapi, 100, 'Published with the plugin')),
      'BENCH_SITE_PROFILE_PUBLISH',
    );
    figures.publishWithMs = withPlugin.meanMs;
    figures.publishCallWithMs = withPlugin.medianCallMs;
    if (KEEP_DB && DB === 'sqlite') await strapi.db.connection.raw('VACUUM INTO ?', [KEEP_DB]);
  } finally {
    await strapi.destroy();
  }
  strapi = await boot({ ...env, SITEMAP_AI_ENABLED: 'false' });
  try {
    const without = await withQueryLog(strapi, () =>
      publishes(strapi, 100, 'Published without the plugin'),
    );
    figures.publishWithoutMs = without.meanMs;
    figures.publishCallWithoutMs = without.medianCallMs;
  } finally {
    await strapi.destroy();
  }
  try {
    if (webtoolsInstalled()) {
      // Same process, same database, the plugin off: the classic sitemap of the same articles.
      strapi = await boot({ ...env, SITEMAP_AI_ENABLED: 'false', BENCH_WEBTOOLS: '1' });
      try {
        const classic = await classicSitemap(strapi, sampler);
        figures.webtoolsMs = classic.ms;
        figures.webtoolsCpuMs = classic.cpuMs;
        figures.webtoolsRssMb = classic.rssPeakGrowthMb;
        figures.webtoolsSetupMs = classic.setupMs;
        figures.webtoolsAliases = classic.aliases;
        figures.webtoolsLinks = classic.links;
      } catch (error) {
        // At 100k on SQLite webtools' own bulk alias generation asks for every article in one
        // statement and SQLite refuses it ("too many SQL variables"): the figures of this plugin
        // measured before are still reported, against read + hash.
        // Knex puts the statement before the driver's message: keep the message.
        const message = String(error?.message ?? error);
        const at = message.lastIndexOf(' - ');
        figures.webtoolsError = (at < 0 ? message : message.slice(at + 3)).slice(0, 160);
        console.error(`classic sitemap failed: ${figures.webtoolsError}`);
      } finally {
        await strapi.destroy();
      }
    }
  } finally {
    await sampler.stop();
    await database.drop();
  }
  return figures;
}

/** The table's rows of one transport's HTTP figures (`bytes`: the page's sizes, once). */
function httpRows(h, transport, bytes, gzipBytes) {
  const r = (x, digits = 2) => Number(x.toFixed(digits));
  const size = (n) => (n ? ` (${r(n / 1024, 0)} KB)` : '');
  const ratio = (x) => `${r(x.rps / h.health.rps)}× /_health`;
  return [
    [
      `manifest page of 500 items (HTTP, ${transport})`,
      `${h.manifest.rps} req/s, p99 ${h.manifest.p99Ms} ms${size(bytes)}`,
      `${ratio(h.manifest)} (${h.health.rps} req/s)`,
    ],
    [
      '  the same page, 304 to its ETag',
      `${h.notModified.rps} req/s, p99 ${h.notModified.p99Ms} ms`,
      ratio(h.notModified),
    ],
    [
      '  the page gzip-encoded (as crawlers ask)',
      `${h.manifestGzip.rps} req/s, p99 ${h.manifestGzip.p99Ms} ms${size(gzipBytes)}`,
      ratio(h.manifestGzip),
    ],
    [
      '  its 304',
      `${h.notModifiedGzip.rps} req/s, p99 ${h.notModifiedGzip.p99Ms} ms`,
      ratio(h.notModifiedGzip),
    ],
  ];
}

function report(f) {
  const r = (x, digits = 1) => Number(x.toFixed(digits));
  const json = {
    ...f,
    contentMb: r(f.contentMb),
    contentTablesMb: r(f.contentTablesMb),
    dbBeforeMb: r(f.dbBeforeMb),
    dbAfterMb: r(f.dbAfterMb),
    pluginTablesMb: r(f.pluginTablesMb),
    publishWithMs: r(f.publishWithMs),
    publishWithoutMs: r(f.publishWithoutMs),
    publishCallWithMs: r(f.publishCallWithMs),
    publishCallWithoutMs: r(f.publishCallWithoutMs),
    llmsFullMb: r(f.llmsFullMb),
    sitemapMb: r(f.sitemapMb),
  };
  console.log(JSON.stringify(json));
  const against = (ms) =>
    f.webtoolsMs
      ? `${r(ms / f.webtoolsMs)}× the classic sitemap`
      : `${r(ms / f.readHashMs)}× read+hash`;
  const rows = [
    ...(f.webtoolsMs
      ? [
          [
            'classic sitemap (webtools), full build',
            `${f.webtoolsMs} ms, CPU ${f.webtoolsCpuMs} ms (${f.webtoolsLinks} URLs, +${f.webtoolsRssMb} MB RSS)`,
            `${r(f.webtoolsMs / f.readHashMs)}× read+hash`,
          ],
        ]
      : []),
    ...(f.webtoolsError
      ? [['classic sitemap (webtools)', 'failed, ratios are against read+hash', f.webtoolsError]]
      : []),
    ...(f.interruptedMs !== undefined
      ? [
          [
            'first build interrupted after tracking',
            `${f.interruptedMs} ms, +${f.interruptedRssMb} MB RSS`,
            against(f.interruptedMs),
          ],
        ]
      : []),
    [
      f.interruptedMs !== undefined ? 'the build that completes it' : 'first build',
      `${f.firstBuildMs} ms, CPU ${f.firstBuildCpuMs} ms (${f.items} items), event loop held ≤ ${f.firstBuildLoopMaxMs} ms (${f.firstBuildLoopOver100} turns ≥ 100 ms)`,
      against(f.firstBuildMs),
    ],
    [
      'full re-compare, nothing changed',
      `${f.recompareMs} ms, CPU ${f.recompareCpuMs} ms`,
      against(f.recompareMs),
    ],
    [
      'the same, every document compared (an upgrade, a settings change)',
      `${f.recompareAllMs} ms, CPU ${f.recompareAllCpuMs} ms`,
      against(f.recompareAllMs),
    ],
    ...(f.recompareAllRunsMs
      ? [
          [
            `  the same, median of ${f.recompareAllRunsMs.length} runs`,
            `${f.recompareAllMedianMs} ms (${f.recompareAllRunsMs.join(', ')})`,
            against(f.recompareAllMedianMs),
          ],
        ]
      : []),
    [
      '10 edits, incremental build',
      `${f.incrementalMs} ms`,
      `${r((100 * f.incrementalMs) / f.firstBuildMs, 2)} % of the first build`,
    ],
    [
      'plugin tables on disk',
      `${r(f.pluginTablesMb)} MB`,
      `${r(f.pluginTablesMb / f.contentTablesMb)}× the content tables (${r(f.contentTablesMb)} MB), ${r(f.pluginTablesMb / f.contentMb)}× the bodies (${r(f.contentMb)} MB)`,
    ],
    ['database', `${r(f.dbBeforeMb)} → ${r(f.dbAfterMb)} MB`, `${r(f.dbAfterMb / f.dbBeforeMb)}×`],
    [
      'peak RSS growth',
      `first build +${f.firstBuildRssMb} MB, re-compare +${f.recompareRssMb} MB (every document +${f.recompareAllRssMb} MB)`,
      `read+hash +${f.readHashRssMb} MB`,
    ],
    [
      'llms-full.txt (first read, with the policy fold)',
      `${f.llmsFullMs} ms, ${r(f.llmsFullMb)} MB`,
      `+${f.llmsFullRssMb} MB RSS`,
    ],
    ['sitemap.xml', `${f.sitemapMs} ms, ${r(f.sitemapMb)} MB`, `+${f.sitemapRssMb} MB RSS`],
    [
      'robots.txt after 10 edits and a build',
      `${f.discoveryAfterEditsMs} ms`,
      'index from the pages that changed',
    ],
    [
      'readiness checklist (dashboard)',
      `${f.readinessMs} ms, event loop held ≤ ${f.readinessLoopMaxMs} ms`,
      `+${f.readinessRssMb} MB RSS`,
    ],
    [
      'dashboard asked for a fresh checklist',
      `${f.dashboardMs} ms`,
      f.dashboardWaited ? 'answered with the last checklist' : 'with the new checklist',
    ],
    ...(f.http
      ? [
          ...httpRows(f.http, 'loopback TCP', f.http.pageBytes, f.http.pageGzipBytes),
          [
            '  read by clients that keep each body as a string',
            `${f.http.manifestStringBodies.rps} req/s, p99 ${f.http.manifestStringBodies.p99Ms} ms`,
            `${r(f.http.manifestStringBodies.rps / f.http.health.rps, 2)}× /_health (autocannon's default)`,
          ],
          ...httpRows(f.http.unix, 'Unix socket'),
        ]
      : []),
    [
      'publish call (median)',
      `${r(f.publishCallWithMs)} ms with, ${r(f.publishCallWithoutMs)} ms without`,
      `${r(f.publishCallWithMs / f.publishCallWithoutMs, 2)}×`,
    ],
    [
      'edit + publish, tracking drained',
      `${r(f.publishWithMs)} ms with, ${r(f.publishWithoutMs)} ms without (mean)`,
      `${r(f.publishWithMs / f.publishWithoutMs, 2)}×`,
    ],
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  console.log(
    `\nreal site, N=${f.n}, ${f.db}, V8 heap limit ${f.heapLimitMb} MB (read + sha256 of every body: ${f.readHashMs} ms; seeding ${f.seedMs} ms)`,
  );
  for (const [what, value, ratio] of rows)
    console.log(`  ${what.padEnd(width)}  ${value.padEnd(44)}  ${ratio}`);
  if (f.instruments.length > 0)
    console.log(
      `\n  measured under ${f.instruments.join(', ')}: these slow the phases unevenly (a query log or GC trace slows webtools' build more than the plugin's), so the ratios above are for diagnosis, not for comparing with clean runs`,
    );
}

main().then(
  (figures) => {
    if (figures.underLoad) {
      console.log(JSON.stringify(figures));
      console.log(
        `\nunder load, N=${figures.n}, ${figures.db}: first build ${figures.buildMs} ms (${figures.items} items) while a second instance published ${figures.duringBuild} edits (${figures.edits} in all, ${figures.articlesEdited} articles); lost ${figures.lost}, duplicate changelog entries ${figures.duplicateChangelogEntries}, marks left ${figures.marksLeft}, build failures ${figures.buildFailures}`,
      );
      process.exit(
        figures.lost + figures.duplicateChangelogEntries + figures.marksLeft > 0 ? 1 : 0,
      );
    }
    report(figures);
    process.exit(0);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
