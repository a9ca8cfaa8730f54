#!/usr/bin/env node
'use strict';

/**
 * sitemap-ai — the agents' side of a site's sitemap for AI, on the command line.
 *
 *   sitemap-ai sync <base-url> --out <dir>     incremental, resumable mirror of the contents
 *   sitemap-ai export <base-url> --out <dir>   static copy of the manifest and the documents
 *
 * A thin shell over `strapi-plugin-sitemap-ai/client` (dist/client): arguments, progress and
 * exit codes here, the protocol there. Exit status: 0 done, 1 the site could not be read or
 * answered something wrong (a checksum mismatch included), 2 bad usage.
 */

const path = require('node:path');

const PKG = (() => {
  try {
    return require(path.join(__dirname, '..', 'package.json'));
  } catch {
    return { version: '0.0.0' };
  }
})();

const USAGE = `Usage: sitemap-ai <command> <base-url> --out <dir> [options]

Commands:
  sync     mirror every item's content into <dir>: content/<id>.md, index.jsonl, state.json.
           Run it again to fetch only what changed (the delta); a stopped run resumes.
  export   write a static copy into <dir>: manifest/page-<n>.json (+ manifest/index.json) and
           the documents llms.txt, llms-full.txt, robots.txt, rsl.xml, tdmrep.json, sitemap.xml,
           policy.json, schema.json.

<base-url> is where Strapi answers, e.g. https://cms.example.com
(or the full API prefix, e.g. https://cms.example.com/api/sitemap-ai).

Options:
  --out <dir>         the folder to write (required)
  --limit <n>         items per manifest or delta page, 1-1000 (default 500)
  --prefix <path>     API prefix (default /api/sitemap-ai)
  --concurrency <n>   contents fetched at once by sync (default 4)
  --timeout <ms>      timeout of one request (default 30000)
  --quiet             no progress output (also when not a terminal or CI=true)
  -h, --help          this text

Exit status: 0 done, 1 the site could not be read (or a checksum did not match), 2 bad usage.`;

class UsageError extends Error {}

const COMMANDS = ['sync', 'export'];

/** Parse argv into options; throws UsageError. */
function parseArgs(argv) {
  const options = {
    command: null,
    base: null,
    out: null,
    limit: undefined,
    prefix: undefined,
    concurrency: 4,
    timeout: 30_000,
    quiet: false,
    help: false,
  };
  const whole = (name, value, max) => {
    if (!/^[0-9]{1,9}$/.test(value ?? '') || Number(value) < 1 || Number(value) > max)
      throw new UsageError(`${name} needs a whole number from 1 to ${max}`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      i += 1;
      if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[i];
    };
    switch (flag) {
      case '-h':
      case '--help':
        options.help = true;
        break;
      case '-q':
      case '--quiet':
        options.quiet = true;
        break;
      case '--out': {
        const out = value();
        if (!out) throw new UsageError('--out needs a folder');
        options.out = out;
        break;
      }
      case '--limit':
        options.limit = whole('--limit', value(), 1000);
        break;
      case '--concurrency':
        options.concurrency = whole('--concurrency', value(), 64);
        break;
      case '--timeout':
        options.timeout = whole('--timeout', value(), 600_000);
        break;
      case '--prefix': {
        const prefix = value();
        if (!prefix.startsWith('/')) throw new UsageError('--prefix must start with "/"');
        options.prefix = prefix;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (!options.command) {
          if (!COMMANDS.includes(arg))
            throw new UsageError(`unknown command ${arg} (use ${COMMANDS.join(' or ')})`);
          options.command = arg;
        } else if (!options.base) options.base = arg;
        else throw new UsageError(`one base URL only (got ${options.base} and ${arg})`);
    }
  }
  if (options.help) return options;
  if (!options.command) throw new UsageError('the command is missing');
  if (!options.base) throw new UsageError('the base URL is missing');
  let url;
  try {
    url = new URL(options.base);
  } catch {
    throw new UsageError(`not a URL: ${options.base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('the base URL must be http(s)');
  if (!options.out) throw new UsageError('--out <dir> is missing');
  return options;
}

/** Progress goes to stderr, only on a terminal, not in CI and not with --quiet. */
function showsProgress(options, stream = process.stderr, env = process.env) {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return !options.quiet && !ci && stream.isTTY === true;
}

function loadClient() {
  try {
    return require(path.join(__dirname, '..', 'dist', 'client', 'index.js'));
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND')
      throw new Error('dist/client is missing: build the package first (npm run build)');
    throw error;
  }
}

async function run(options, io = { stdout: process.stdout, stderr: process.stderr }) {
  const kit = loadClient();
  const progress = showsProgress(options, io.stderr);
  const line = (text) => {
    if (progress) io.stderr.write(`\r\x1b[K${text}`);
  };
  const client = new kit.SitemapAiClient({
    baseUrl: options.base,
    prefix: options.prefix,
    timeoutMs: options.timeout,
    userAgent: `sitemap-ai/${PKG.version} (+https://www.npmjs.com/package/strapi-plugin-sitemap-ai)`,
  });
  const out = path.resolve(options.out);
  if (options.command === 'sync') {
    let items = 0;
    const result = await kit.syncMirror({
      client,
      out,
      limit: options.limit,
      concurrency: options.concurrency,
      onProgress(event) {
        if (event.kind === 'start')
          line(event.mode === 'delta' ? `delta since ${event.since} …` : 'full walk …');
        else if (event.kind === 'page') {
          items += event.items;
          line(
            `${event.mode}: ${items} items read, ${event.fetched} fetched, ${event.removed} removed`,
          );
        } else line(`${items} items read, ${event.fetched} fetched: ${event.id}`);
      },
    });
    if (progress) io.stderr.write('\r\x1b[K');
    const summary =
      `sitemap-ai sync: ${result.mode}${result.resynced ? ' (the saved position was too old: full walk)' : ''}` +
      ` to snapshot ${result.snapshot.id}: ${result.items} items read, ${result.fetched} contents fetched,` +
      ` ${result.adopted} resumed, ${result.metadataOnly} metadata-only, ${result.deleted} deleted` +
      (result.deferred.length > 0
        ? `, ${result.deferred.length} changed meanwhile (next run)`
        : '') +
      `; next_since ${result.nextSince}\n`;
    if (!options.quiet) io.stdout.write(summary);
    return 0;
  }
  const result = await kit.exportSite({
    client,
    out,
    limit: options.limit,
    onProgress(event) {
      line(`${event.status === 304 ? 'unchanged' : 'wrote'} ${event.file}`);
    },
  });
  if (progress) io.stderr.write('\r\x1b[K');
  if (!options.quiet)
    io.stdout.write(
      `sitemap-ai export: snapshot ${result.snapshot.id}, ${result.pages} manifest pages, ` +
        `${result.files.length} files written, ${result.unchanged.length} unchanged` +
        (result.missing.length > 0 ? `, not served: ${result.missing.join(', ')}` : '') +
        '\n',
    );
  return 0;
}

async function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sitemap-ai: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    return await run(options);
  } catch (error) {
    if (showsProgress(options)) process.stderr.write('\n');
    process.stderr.write(
      `sitemap-ai ${options.command}: ${error && error.message ? error.message : error}\n`,
    );
    return 1;
  }
}

module.exports = { parseArgs, showsProgress, run, USAGE };

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`sitemap-ai: ${error && error.stack ? error.stack : error}\n`);
      process.exitCode = 1;
    },
  );
}
