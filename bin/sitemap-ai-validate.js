#!/usr/bin/env node
'use strict';

/**
 * sitemap-ai-validate — the manifest validator of the seed's pre-deployment
 * checklist (README › Observability), for CI/CD. Plain Node (>= 20, global fetch), no build.
 *
 *   sitemap-ai-validate https://cms.example.com [--all] [--sample N] [--json] [--strict]
 *
 * Crawls the whole manifest, validates every page against the site's own
 * schema.json (JSON Schema 2020-12, ajv), checks required fields, anchored
 * permalinks, the checksums of a sample of items (or all) against their
 * content, and that the delta feed answers. Exit code 0 when every check
 * passes, 1 when one fails (or the site cannot be read), 2 on bad usage.
 */

const { createHash } = require('node:crypto');
const path = require('node:path');

const PKG = (() => {
  try {
    return require(path.join(__dirname, '..', 'package.json'));
  } catch {
    return { version: '0.0.0' };
  }
})();

const DEFAULTS = {
  prefix: '/api/sitemap-ai',
  sample: 50,
  limit: 1000,
  timeout: 30_000,
  concurrency: 8,
};
const REQUIRED_FIELDS = ['id', 'url', 'type', 'lang', 'license', 'version', 'checksum'];
const CHUNK_RULES = ['by_h2', 'by_h3', 'whole'];
const EVIDENCE_TARGET = 0.9;
const CHANGELOG_WINDOW_DAYS = 90;
const PROBLEMS_SHOWN = 20;
const PROBLEMS_KEPT = 200;
const MAX_PAGES = 100_000;
const USER_AGENT = `sitemap-ai-validate/${PKG.version} (+https://www.npmjs.com/package/strapi-plugin-sitemap-ai)`;

const USAGE = `Usage: sitemap-ai-validate <base-url> [options]

Validates the sitemap-ai manifest a Strapi site publishes (README › Observability checklist).
<base-url> is where Strapi answers, e.g. https://cms.example.com
(or the full API prefix, e.g. https://cms.example.com/api/sitemap-ai).

Options:
  --all               verify the checksum of every item against its content
  --sample <n>        items whose checksum is verified (default ${DEFAULTS.sample}, spread over the manifest)
  --json              print the results as JSON (machine-readable)
  --strict            evidence coverage (>= 90 %), embedding hints and the 90-day changelog fail the run too
  --limit <n>         manifest page size to request (default ${DEFAULTS.limit})
  --prefix <path>     API prefix (default ${DEFAULTS.prefix})
  --timeout <ms>      timeout of one request (default ${DEFAULTS.timeout})
  --concurrency <n>   content requests at once (default ${DEFAULTS.concurrency})
  -h, --help          this text

Exit status: 0 every check passed, 1 a check failed or the site could not be read, 2 bad usage.`;

class UsageError extends Error {}

/** Parse argv into options; throws UsageError. */
function parseArgs(argv) {
  const options = { ...DEFAULTS, all: false, json: false, strict: false, help: false, base: null };
  const positive = (name, value) => {
    if (!/^[0-9]{1,9}$/.test(value ?? '') || Number(value) < 1)
      throw new UsageError(`${name} needs a whole number >= 1`);
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
      case '--all':
        options.all = true;
        break;
      case '--json':
        options.json = true;
        break;
      case '--strict':
        options.strict = true;
        break;
      case '--sample':
        options.sample = positive('--sample', value());
        break;
      case '--limit':
        options.limit = positive('--limit', value());
        break;
      case '--timeout':
        options.timeout = positive('--timeout', value());
        break;
      case '--concurrency':
        options.concurrency = Math.min(64, positive('--concurrency', value()));
        break;
      case '--prefix': {
        const prefix = value();
        if (!prefix.startsWith('/')) throw new UsageError('--prefix must start with "/"');
        options.prefix = prefix.replace(/\/+$/, '');
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (options.base)
          throw new UsageError(`one base URL only (got ${options.base} and ${arg})`);
        options.base = arg;
    }
  }
  if (options.help) return options;
  if (!options.base) throw new UsageError('the base URL is missing');
  let url;
  try {
    url = new URL(options.base);
  } catch {
    throw new UsageError(`not a URL: ${options.base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('the base URL must be http(s)');
  url.search = '';
  url.hash = '';
  const base = url.toString().replace(/\/+$/, '');
  options.api = base.endsWith(options.prefix) ? base : `${base}${options.prefix}`;
  return options;
}

/* ------------------------------------------------------------------ */
/* HTTP                                                                */
/* ------------------------------------------------------------------ */

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET a URL; retries a 429 (after its Retry-After, at most 60 s) up to 3 times. Never throws. */
async function get(url, options, accept) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(url, {
        headers: { 'User-Agent': USER_AGENT, Accept: accept },
        redirect: 'follow',
        signal: AbortSignal.timeout(options.timeout),
      });
      if (response.status === 429 && attempt < 3) {
        const wait = Math.min(60, Number(response.headers.get('retry-after')) || 1);
        await response.arrayBuffer().catch(() => undefined);
        await sleep(wait * 1000);
        continue;
      }
      const body = Buffer.from(await response.arrayBuffer());
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      const cause = error && error.cause ? ` (${error.cause.code || error.cause.message})` : '';
      const reason =
        error && error.name === 'TimeoutError'
          ? `timed out after ${options.timeout} ms`
          : `${error && error.message ? error.message : error}${cause}`;
      return { status: null, error: reason };
    }
  }
}

/** The error message of a Strapi-shaped error body, or a short head of the body. */
function describeAnswer(answer) {
  if (answer.status === null) return answer.error;
  let message = '';
  try {
    const parsed = JSON.parse(answer.body.toString('utf8'));
    message = parsed && parsed.error && parsed.error.message ? parsed.error.message : '';
  } catch {
    message = answer.body.toString('utf8').replace(/\s+/g, ' ').slice(0, 120);
  }
  return `HTTP ${answer.status}${message ? `: ${message}` : ''}`;
}

async function getJson(url, options) {
  const answer = await get(url, options, 'application/json');
  if (answer.status !== 200) return { ok: false, message: describeAnswer(answer) };
  try {
    return { ok: true, json: JSON.parse(answer.body.toString('utf8')), headers: answer.headers };
  } catch (error) {
    return { ok: false, message: `not JSON (${error.message})` };
  }
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/** One line of the report: a check, its level (error fails the run, warning does not) and its problems. */
function createCheck(id, level, title) {
  return {
    id,
    level,
    title,
    ok: true,
    summary: '',
    problems: [],
    problemCount: 0,
    fail(problem) {
      this.ok = false;
      this.problemCount += 1;
      if (this.problems.length < PROBLEMS_KEPT) this.problems.push(problem);
    },
  };
}

const nonEmpty = (value) => typeof value === 'string' && value.trim() !== '';
const percent = (n, total) => (total === 0 ? '100' : String(Math.floor((n / total) * 100)));

function ajvErrors(validate) {
  const errors = validate.errors || [];
  return (
    errors
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(page)'} ${e.message}`)
      .join('; ') + (errors.length > 3 ? `; and ${errors.length - 3} more` : '')
  );
}

function changelogProblem(item, now) {
  if (item.type !== 'article') return null;
  const cutoff = now - CHANGELOG_WINDOW_DAYS * 86_400_000;
  const modified = Date.parse(item.modified);
  if (Number.isFinite(modified) && modified < cutoff) return null;
  const recent = (Array.isArray(item.changelog) ? item.changelog : []).filter(
    (e) => e && Date.parse(e.date) >= cutoff,
  );
  if (recent.length === 0)
    return `changed in the last ${CHANGELOG_WINDOW_DAYS} days but no changelog entry in that time`;
  if (!recent.some((e) => e.version === item.version))
    return `the changelog does not mention the current version ${item.version}`;
  return null;
}

function embeddingProblem(item) {
  const hint = item.embedding_hint;
  if (!hint || typeof hint !== 'object') return 'no embedding_hint';
  if (!CHUNK_RULES.includes(hint.chunk))
    return `embedding_hint.chunk must be one of ${CHUNK_RULES.join(', ')}`;
  if (!Number.isInteger(hint.max_tokens) || hint.max_tokens < 1)
    return 'embedding_hint.max_tokens must be a positive integer';
  return null;
}

/** Evenly spread indices of a sample of `n` out of `total` (deterministic, so CI runs repeat). */
function sampleIndices(total, n) {
  if (n >= total) return [...Array(total).keys()];
  const picked = new Set();
  for (let i = 0; i < n; i += 1) picked.add(Math.floor((i * total) / n));
  return [...picked];
}

async function forEachLimited(items, limit, task) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function loadAjv() {
  const Ajv2020 = require('ajv/dist/2020');
  const addFormats = require('ajv-formats');
  const Ajv = Ajv2020.default || Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats.default || addFormats)(ajv);
  return ajv;
}

/**
 * Run every check against `options.api`. Returns the results (nothing is
 * printed here).
 */
async function validate(options) {
  const started = Date.now();
  const now = Date.now();
  const checks = {
    schema: createCheck('schema', 'error', 'schema.json'),
    schemaValid: createCheck('schema-valid', 'error', 'pages valid'),
    paging: createCheck('paging', 'error', 'paging'),
    required: createCheck('required-fields', 'error', 'required fields'),
    permalinks: createCheck('permalinks', 'error', 'permalinks'),
    checksums: createCheck('checksums', 'error', 'checksums'),
    delta: createCheck('delta', 'error', 'delta feed'),
    embedding: createCheck(
      'embedding-hints',
      options.strict ? 'error' : 'warning',
      'embedding hints',
    ),
    evidence: createCheck('evidence', options.strict ? 'error' : 'warning', 'evidence'),
    changelog: createCheck(
      'changelog-90-days',
      options.strict ? 'error' : 'warning',
      'changelog (90 days)',
    ),
  };
  const result = { target: options.api, snapshot: null, items: 0, pages: 0 };

  // 1. The schema the site publishes.
  let validatePage = null;
  const schema = await getJson(`${options.api}/schema.json`, options);
  if (!schema.ok) checks.schema.fail({ message: `${options.api}/schema.json: ${schema.message}` });
  else {
    try {
      validatePage = loadAjv().compile(schema.json);
      checks.schema.summary = `${schema.json.$id || 'schema'} (${schema.json.$schema || 'no $schema'}) compiled`;
    } catch (error) {
      checks.schema.fail({ message: `schema.json does not compile: ${error.message}` });
    }
  }
  if (!checks.schema.ok) checks.schema.summary = 'schema.json could not be read';

  // 2. Every page of the manifest.
  const pageUrls = new Map();
  const fragments = [];
  const seen = new Set();
  const all = [];
  let token = null;
  let snapshot = null;
  let withEvidence = 0;
  let articles = 0;
  let crawlFailed = false;
  do {
    const url = `${options.api}/manifest?limit=${options.limit}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const page = await getJson(url, options);
    if (!page.ok) {
      checks.paging.fail({ message: `page ${result.pages + 1} (${url}): ${page.message}` });
      crawlFailed = true;
      break;
    }
    result.pages += 1;
    const body = page.json;
    if (validatePage && !validatePage(body)) {
      const errors = validatePage.errors || [];
      const byItem = new Map();
      for (const error of errors) {
        const match = /^\/items\/(\d+)/.exec(error.instancePath || '');
        const key = match ? Number(match[1]) : -1;
        if (!byItem.has(key)) byItem.set(key, []);
        byItem.get(key).push(error);
      }
      for (const [index, list] of byItem) {
        const item = index >= 0 && Array.isArray(body.items) ? body.items[index] : null;
        const message = list
          .slice(0, 3)
          .map(
            (e) =>
              `${(e.instancePath || '').replace(/^\/items\/\d+/, '') || '(item)'} ${e.message}`,
          )
          .join('; ');
        checks.schemaValid.fail(
          item
            ? { itemId: String(item.id), message }
            : { message: `page ${result.pages}: ${message}` },
        );
      }
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.items)) {
      checks.paging.fail({ message: `page ${result.pages} has no items array` });
      crawlFailed = true;
      break;
    }
    const id = body.snapshot && body.snapshot.id;
    if (snapshot === null) snapshot = body.snapshot || null;
    else if (id !== snapshot.id)
      checks.paging.fail({
        message: `page ${result.pages} came from snapshot ${id}, the first from ${snapshot.id} (a torn traversal)`,
      });
    if (body.items.length > options.limit)
      checks.paging.fail({
        message: `page ${result.pages} holds ${body.items.length} items, more than limit=${options.limit}`,
      });

    for (const item of body.items) {
      result.items += 1;
      if (!item || typeof item !== 'object') {
        checks.required.fail({ message: `page ${result.pages}: an item is not an object` });
        continue;
      }
      const itemId = nonEmpty(item.id) ? item.id : `(page ${result.pages}, no id)`;
      if (seen.has(itemId))
        checks.paging.fail({ itemId, message: 'appears more than once in the traversal' });
      seen.add(itemId);
      const missing = REQUIRED_FIELDS.filter((f) => !nonEmpty(item[f]));
      if (missing.length > 0)
        checks.required.fail({ itemId, message: `missing ${missing.join(', ')}` });
      const hint = embeddingProblem(item);
      if (hint) checks.embedding.fail({ itemId, message: hint });
      if (item.type === 'article') {
        articles += 1;
        if (nonEmpty(item.url)) pageUrls.set(itemId, item.url);
        const changelog = changelogProblem(item, now);
        if (changelog) checks.changelog.fail({ itemId, message: changelog });
      } else {
        fragments.push({ id: itemId, url: item.url, parent: item.parent });
        if (Array.isArray(item.evidence) && item.evidence.some((e) => e && nonEmpty(e.url)))
          withEvidence += 1;
        else checks.evidence.fail({ itemId, message: 'no evidence link' });
      }
      if (nonEmpty(item.id) && nonEmpty(item.checksum))
        all.push({ id: item.id, checksum: item.checksum });
    }
    token = body.next_page_token;
    if (token !== null && typeof token !== 'string') {
      checks.paging.fail({
        message: `page ${result.pages}: next_page_token is neither a string nor null`,
      });
      break;
    }
    if (token && body.items.length === 0) {
      checks.paging.fail({ message: `page ${result.pages} is empty but names a next page` });
      break;
    }
  } while (token && result.pages < MAX_PAGES);
  result.snapshot = snapshot;
  checks.paging.summary = crawlFailed
    ? 'the manifest could not be read to the end'
    : `${result.pages} page${result.pages === 1 ? '' : 's'} of snapshot ${snapshot ? snapshot.id : '?'}, ${result.items} items, every item once`;
  checks.schemaValid.summary = validatePage
    ? `${result.items - checks.schemaValid.problemCount} of ${result.items} items valid (and every envelope)`
    : 'not checked (no schema)';
  if (!validatePage)
    checks.schemaValid.fail({ message: 'not checked: schema.json could not be compiled' });
  checks.required.summary = `${result.items - checks.required.problemCount} of ${result.items} items carry ${REQUIRED_FIELDS.join(', ')}`;
  checks.embedding.summary = `${result.items - checks.embedding.problemCount} of ${result.items} items have an embedding hint`;
  checks.changelog.summary = `${articles - checks.changelog.problemCount} of ${articles} pages record their changes of the last ${CHANGELOG_WINDOW_DAYS} days`;

  // 3. Permalinks: each fragment's url is its page's url plus a #anchor, unique.
  const urls = new Set();
  for (const fragment of fragments) {
    const url = fragment.url;
    if (!nonEmpty(url)) continue; // counted by required-fields
    const hash = url.indexOf('#');
    const anchor = hash === -1 ? '' : url.slice(hash + 1);
    if (anchor === '')
      checks.permalinks.fail({ itemId: fragment.id, message: `url ${url} has no #anchor` });
    else if (!/^[a-z0-9][a-z0-9-]*$/.test(anchor))
      checks.permalinks.fail({
        itemId: fragment.id,
        message: `anchor #${anchor.slice(0, 80)} is not a published anchor`,
      });
    else if (urls.has(url))
      checks.permalinks.fail({
        itemId: fragment.id,
        message: `url ${url} is also another fragment's permalink`,
      });
    else if (!pageUrls.has(fragment.parent))
      checks.permalinks.fail({
        itemId: fragment.id,
        message: `its page ${fragment.parent} is not in the manifest`,
      });
    else if (url.slice(0, hash) !== pageUrls.get(fragment.parent))
      checks.permalinks.fail({
        itemId: fragment.id,
        message: `url ${url} is not on its page ${pageUrls.get(fragment.parent)}`,
      });
    urls.add(url);
  }
  checks.permalinks.summary = `${fragments.length - checks.permalinks.problemCount} of ${fragments.length} fragments have a unique #anchor permalink on their page`;
  const coverage = fragments.length === 0 ? 1 : withEvidence / fragments.length;
  checks.evidence.ok = coverage >= EVIDENCE_TARGET;
  checks.evidence.summary = `${withEvidence} of ${fragments.length} fragments (${percent(withEvidence, fragments.length)} %) have an evidence link; target >= ${EVIDENCE_TARGET * 100} %`;
  result.evidenceCoverage = Math.round(coverage * 10_000) / 10_000;

  // 4. Checksums of a sample (or all) against the content endpoint.
  const picked = options.all ? all : sampleIndices(all.length, options.sample).map((i) => all[i]);
  let verified = 0;
  await forEachLimited(picked, options.concurrency, async (item) => {
    const id = /^[a-z0-9][a-z0-9:-]*$/.test(item.id) ? item.id : encodeURIComponent(item.id);
    const url = `${options.api}/fragments/${id}/content`;
    const answer = await get(url, options, 'text/markdown, text/plain;q=0.9, */*;q=0.1');
    if (answer.status !== 200)
      return checks.checksums.fail({
        itemId: item.id,
        message: `${url}: ${describeAnswer(answer)}`,
      });
    const actual = `sha256:${createHash('sha256').update(answer.body).digest('hex')}`;
    if (actual !== item.checksum)
      return checks.checksums.fail({
        itemId: item.id,
        message: `the manifest says ${item.checksum}, its content hashes to ${actual}`,
      });
    verified += 1;
  });
  checks.checksums.summary = `${verified} of ${picked.length} ${options.all ? '' : 'sampled '}items match their content`;
  if (picked.length === 0 && result.items > 0)
    checks.checksums.fail({ message: 'no item had an id and a checksum to verify' });

  // 5. The delta feed answers since the current snapshot.
  if (!snapshot || !nonEmpty(String(snapshot.id ?? ''))) {
    checks.delta.fail({ message: 'no snapshot id to ask the delta feed with' });
    checks.delta.summary = 'not checked';
  } else {
    const url = `${options.api}/delta?since=${encodeURIComponent(snapshot.id)}&limit=${Math.min(options.limit, 1000)}`;
    const delta = await getJson(url, options);
    if (!delta.ok) checks.delta.fail({ message: `${url}: ${delta.message}` });
    else {
      const body = delta.json;
      const missing = [
        'spec',
        'since',
        'snapshot',
        'items',
        'removed',
        'next_page_token',
        'next_since',
      ].filter((k) => !(body && k in body));
      if (missing.length > 0)
        checks.delta.fail({ message: `the delta envelope lacks ${missing.join(', ')}` });
      else {
        if (!Array.isArray(body.items) || !Array.isArray(body.removed))
          checks.delta.fail({ message: 'items and removed must be arrays' });
        if (typeof body.next_since !== 'string' || body.next_since === '')
          checks.delta.fail({ message: 'next_since must be a non-empty string' });
        if (validatePage && Array.isArray(body.items)) {
          const asPage = {
            spec: body.spec,
            snapshot: body.snapshot,
            items: body.items,
            next_page_token: body.next_page_token,
          };
          if (!validatePage(asPage))
            checks.delta.fail({
              message: `delta items do not match schema.json: ${ajvErrors(validatePage)}`,
            });
        }
      }
      if (checks.delta.ok) {
        checks.delta.summary = `since=${snapshot.id} answers ${body.items.length} items, ${body.removed.length} tombstones, next_since ${body.next_since}`;
      }
    }
    if (!checks.delta.ok && !checks.delta.summary)
      checks.delta.summary = 'the delta feed did not answer correctly';
  }

  const list = Object.values(checks).map(({ fail: _fail, ...check }) => {
    if (!check.summary) check.summary = check.ok ? 'ok' : 'failed';
    return check;
  });
  const failed = list.filter((c) => !c.ok && c.level === 'error');
  return { ok: failed.length === 0, ...result, durationMs: Date.now() - started, checks: list };
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

function textReport(results) {
  const lines = [];
  lines.push(`sitemap-ai-validate ${PKG.version}: ${results.target}`);
  if (results.snapshot)
    lines.push(
      `snapshot ${results.snapshot.id} (${results.snapshot.created_at}), ${results.items} items in ${results.pages} page${results.pages === 1 ? '' : 's'}`,
    );
  lines.push('');
  const width = Math.max(...results.checks.map((c) => c.id.length));
  for (const check of results.checks) {
    const mark = check.ok ? 'PASS' : check.level === 'error' ? 'FAIL' : 'WARN';
    lines.push(`  ${mark}  ${check.id.padEnd(width)}  ${check.summary}`);
    for (const problem of check.problems.slice(0, PROBLEMS_SHOWN)) {
      lines.push(`          ${problem.itemId ? `${problem.itemId}: ` : ''}${problem.message}`);
    }
    if (check.problemCount > PROBLEMS_SHOWN)
      lines.push(`          … and ${check.problemCount - PROBLEMS_SHOWN} more`);
  }
  const failed = results.checks.filter((c) => !c.ok && c.level === 'error').length;
  const warned = results.checks.filter((c) => !c.ok && c.level === 'warning').length;
  lines.push('');
  lines.push(
    `${results.ok ? 'OK' : 'FAILED'}: ${results.checks.length - failed - warned} passed, ${failed} failed, ${warned} warning${warned === 1 ? '' : 's'} (${(results.durationMs / 1000).toFixed(1)} s)`,
  );
  return lines.join('\n');
}

async function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sitemap-ai-validate: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const results = await validate(options);
  const { json } = options;
  process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${textReport(results)}\n`);
  return results.ok ? 0 : 1;
}

module.exports = { parseArgs, validate, textReport, sampleIndices, changelogProblem };

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`sitemap-ai-validate: ${error && error.stack ? error.stack : error}\n`);
      process.exitCode = 1;
    },
  );
}
