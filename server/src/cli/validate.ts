/**
 * sitemap-ai-validate — the manifest validator of the pre-deployment checklist
 * (README › Observability), for CI/CD: the readiness checks the admin's dashboard runs on the
 * server (core/readiness.ts), run from outside over HTTP, with the same wording.
 *
 *   sitemap-ai-validate https://cms.example.com [--all] [--sample N] [--json] [--strict]
 *
 * Crawls the whole manifest, validates every page against the site's own schema.json
 * (JSON Schema 2020-12, strict), checks required fields, anchored permalinks, embedding hints,
 * evidence and changelogs item by item, the checksums of a sample of items (or all) against
 * their content, and that the delta feed answers. Exit code 0 when every check passes, 1 when
 * one fails (or the site cannot be read), 2 on bad usage. bin/sitemap-ai-validate.js runs the
 * built copy of this module.
 */
import { sha256Hex } from '../core/canonical';
import { forEachLimited } from '../core/concurrency';
import {
  PagingCheck,
  ReadinessTally,
  manifestValidators,
  type ItemCheckId,
  type ItemCheckResult,
} from '../core/readiness';

const DEFAULTS = {
  prefix: '/api/sitemap-ai',
  sample: 50,
  limit: 1000,
  timeout: 30_000,
  concurrency: 8,
};
const PROBLEMS_SHOWN = 20;
const PROBLEMS_KEPT = 200;
const MAX_PAGES = 100_000;
/** An item id that can stand in a URL path as it is (docs/protocol.md §1.1). */
const PLAIN_ID = /^[a-z0-9][a-z0-9:-]*$/;

export const USAGE = `Usage: sitemap-ai-validate <base-url> [options]

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

export class UsageError extends Error {}

export interface ValidateOptions {
  base: string;
  /** The API root the checks ask: the base URL with the prefix, once. */
  api: string;
  prefix: string;
  all: boolean;
  json: boolean;
  strict: boolean;
  help: boolean;
  sample: number;
  limit: number;
  timeout: number;
  concurrency: number;
}

/** Parse argv into options; throws UsageError. */
export function parseArgs(argv: readonly string[]): ValidateOptions {
  const options: ValidateOptions = {
    ...DEFAULTS,
    base: '',
    api: '',
    all: false,
    json: false,
    strict: false,
    help: false,
  };
  const positive = (name: string, value: string) => {
    if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1)
      throw new UsageError(`${name} needs a whole number >= 1`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      i += 1;
      if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[i]!;
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
  let url: URL;
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

type Answer =
  | { status: number; body: Buffer; error?: undefined }
  | { status: null; error: string; body?: undefined };

interface RequestOptions {
  timeout: number;
  userAgent: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET a URL; retries a 429 (after its Retry-After, at most 60 s) up to 3 times. Never throws. */
async function get(url: string, options: RequestOptions, accept: string): Promise<Answer> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(url, {
        headers: { 'User-Agent': options.userAgent, Accept: accept },
        redirect: 'follow',
        signal: AbortSignal.timeout(options.timeout),
      });
      if (response.status === 429 && attempt < 3) {
        const wait = Math.min(60, Number(response.headers.get('retry-after')) || 1);
        await response.arrayBuffer().catch(() => undefined);
        await sleep(wait * 1000);
        continue;
      }
      return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
    } catch (error) {
      const { name, message, cause } = (error ?? {}) as {
        name?: string;
        message?: string;
        cause?: { code?: string; message?: string };
      };
      const reason =
        name === 'TimeoutError'
          ? `timed out after ${options.timeout} ms`
          : `${message ?? String(error)}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      return { status: null, error: reason };
    }
  }
}

/** The error message of a Strapi-shaped error body, or a short head of the body. */
function describeAnswer(answer: Answer): string {
  if (answer.status === null) return answer.error;
  let message = '';
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as { error?: { message?: string } };
    message = parsed?.error?.message ?? '';
  } catch {
    message = answer.body.toString('utf8').replace(/\s+/g, ' ').slice(0, 120);
  }
  return `HTTP ${answer.status}${message ? `: ${message}` : ''}`;
}

async function getJson(
  url: string,
  options: RequestOptions,
): Promise<{ ok: true; json: unknown } | { ok: false; message: string }> {
  const answer = await get(url, options, 'application/json');
  if (answer.status !== 200) return { ok: false, message: describeAnswer(answer) };
  try {
    return { ok: true, json: JSON.parse(answer.body.toString('utf8')) };
  } catch (error) {
    return { ok: false, message: `not JSON (${(error as Error).message})` };
  }
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

export interface Problem {
  itemId?: string;
  message: string;
}

/** One line of the report: a check, its level (error fails the run, warning does not) and its problems. */
export interface Check {
  id: string;
  level: 'error' | 'warning';
  title: string;
  ok: boolean;
  summary: string;
  problems: Problem[];
  problemCount: number;
}

export interface ValidationReport {
  ok: boolean;
  target: string;
  snapshot: { id: string; created_at?: string } | null;
  items: number;
  pages: number;
  evidenceCoverage: number;
  durationMs: number;
  checks: Check[];
}

function createCheck(id: string, level: Check['level'], title: string): Check {
  return { id, level, title, ok: true, summary: '', problems: [], problemCount: 0 };
}

function fail(check: Check, problem: Problem): void {
  check.ok = false;
  check.problemCount += 1;
  if (check.problems.length < PROBLEMS_KEPT) check.problems.push(problem);
}

/** A check of core's readiness tally as a line of the report, with problems only the CLI sees. */
function tallied(
  result: ItemCheckResult,
  level: Check['level'],
  title: string,
  extra: readonly Problem[] = [],
): Check {
  const check: Check = {
    id: result.id,
    level,
    title,
    ok: result.ok,
    summary: result.summary,
    problems: result.failures.map((f) => ({ itemId: f.itemId, message: f.detail })),
    problemCount: result.failureCount,
  };
  for (const problem of extra) fail(check, problem);
  return check;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Evenly spread indices of a sample of `n` out of `total` (deterministic, so CI runs repeat). */
export function sampleIndices(total: number, n: number): number[] {
  if (n >= total) return [...Array(total).keys()];
  const picked = new Set<number>();
  for (let i = 0; i < n; i += 1) picked.add(Math.floor((i * total) / n));
  return [...picked];
}

/**
 * An evenly spread sample of `n` of a stream whose length is known only at its end (a manifest
 * paged through), in memory for at most 2n: every `stride`-th value is kept, and when 2n are kept
 * every other one goes and the stride doubles. A stream shorter than 2n is kept whole, and
 * `values()` picks from it as `sampleIndices` does; deterministic, so CI runs repeat.
 */
export class SpreadSample<T> {
  private kept: T[] = [];
  private stride = 1;
  private seen = 0;

  constructor(private readonly n: number) {}

  add(value: T): void {
    if (this.seen % this.stride === 0) {
      this.kept.push(value);
      if (this.kept.length >= 2 * this.n) {
        this.kept = this.kept.filter((_, i) => i % 2 === 0);
        this.stride *= 2;
      }
    }
    this.seen += 1;
  }

  values(): T[] {
    return sampleIndices(this.kept.length, this.n).map((i) => this.kept[i]!);
  }
}

/** Run every check against `options.api`. Returns the results (nothing is printed here). */
export async function validate(
  options: ValidateOptions,
  { now = new Date(), userAgent = 'sitemap-ai-validate' }: { now?: Date; userAgent?: string } = {},
): Promise<ValidationReport> {
  const started = Date.now();
  const http = { timeout: options.timeout, userAgent };
  const soft = options.strict ? 'error' : 'warning';
  const schema = createCheck('schema', 'error', 'schema.json');
  const paging = createCheck('paging', 'error', 'paging');
  const checksums = createCheck('checksums', 'error', 'checksums');
  const delta = createCheck('delta', 'error', 'delta feed');
  const result = {
    target: options.api,
    snapshot: null as ValidationReport['snapshot'],
    items: 0,
    pages: 0,
  };

  // 1. The schema the site publishes.
  let validators: ReturnType<typeof manifestValidators> | null = null;
  const published = await getJson(`${options.api}/schema.json`, http);
  if (!published.ok) fail(schema, { message: `${options.api}/schema.json: ${published.message}` });
  else if (!isRecord(published.json)) fail(schema, { message: 'schema.json is not an object' });
  else {
    try {
      validators = manifestValidators(published.json);
      schema.summary = `${String(published.json.$id ?? 'schema')} (${String(published.json.$schema ?? 'no $schema')}) compiled`;
    } catch (error) {
      fail(schema, { message: `schema.json does not compile: ${(error as Error).message}` });
    }
  }
  if (!schema.ok) schema.summary = 'schema.json could not be read';

  // 2. Every page of the manifest, every item through the server's item checks.
  const tally = new ReadinessTally({
    now,
    ...(validators ? { validateItem: validators.item } : {}),
  });
  const traversal = new PagingCheck({
    limit: options.limit,
    ...(validators ? { validatePage: validators.page } : {}),
  });
  const notObjects: Problem[] = [];
  // 3. Checksums of a sample (or all) against the content endpoint: with --all each page's as it
  // is read, else a spread sample of them once the manifest is read (memory: the sample, not
  // every item of a site of a million).
  const sample = new SpreadSample<{ id: string; checksum: string }>(options.sample);
  let withChecksums = 0;
  let verified = 0;
  const verify = (picked: { id: string; checksum: string }[]) =>
    forEachLimited(picked, options.concurrency, async (item) => {
      const id = PLAIN_ID.test(item.id) ? item.id : encodeURIComponent(item.id);
      const url = `${options.api}/fragments/${id}/content`;
      const answer = await get(url, http, 'text/markdown, text/plain;q=0.9, */*;q=0.1');
      if (answer.status !== 200)
        return fail(checksums, { itemId: item.id, message: `${url}: ${describeAnswer(answer)}` });
      const actual = `sha256:${sha256Hex(answer.body)}`;
      if (actual !== item.checksum)
        return fail(checksums, {
          itemId: item.id,
          message: `the manifest says ${item.checksum}, its content hashes to ${actual}`,
        });
      verified += 1;
    });
  let token: unknown = null;
  let crawlFailed = false;
  do {
    const url = `${options.api}/manifest?limit=${options.limit}${typeof token === 'string' ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const answer = await getJson(url, http);
    if (!answer.ok) {
      fail(paging, { message: `page ${result.pages + 1} (${url}): ${answer.message}` });
      crawlFailed = true;
      break;
    }
    result.pages += 1;
    const body = answer.json;
    if (!isRecord(body) || !Array.isArray(body.items)) {
      fail(paging, { message: `page ${result.pages} has no items array` });
      crawlFailed = true;
      break;
    }
    const snapshot = isRecord(body.snapshot) ? body.snapshot : null;
    result.snapshot ??= snapshot as ValidationReport['snapshot'];
    token = body.next_page_token;
    const items = body.items as unknown[];
    const goesOn = traversal.add(
      {
        snapshot: { id: String(snapshot?.id) },
        items: items.map((item) => ({
          id: isRecord(item) && nonEmpty(item.id) ? item.id : `(page ${result.pages}, no id)`,
          version: isRecord(item) ? String(item.version) : '',
        })),
        next_page_token: typeof token === 'string' ? token : null,
      },
      body,
    );
    const pageChecksums: { id: string; checksum: string }[] = [];
    for (const item of items) {
      result.items += 1;
      if (!isRecord(item)) {
        notObjects.push({ message: `page ${result.pages}: an item is not an object` });
        continue;
      }
      tally.add(item as never);
      if (nonEmpty(item.id) && nonEmpty(item.checksum)) {
        const entry = { id: item.id, checksum: item.checksum };
        withChecksums += 1;
        if (options.all) pageChecksums.push(entry);
        else sample.add(entry);
      }
    }
    await verify(pageChecksums);
    if (token !== null && typeof token !== 'string') {
      fail(paging, {
        message: `page ${result.pages}: next_page_token is neither a string nor null`,
      });
      break;
    }
    if (!goesOn) break;
  } while (token && result.pages < MAX_PAGES);
  for (const message of traversal.problems) fail(paging, { message });
  paging.summary = crawlFailed
    ? 'the manifest could not be read to the end'
    : `${result.pages} page${result.pages === 1 ? '' : 's'} of snapshot ${result.snapshot?.id ?? '?'}, ${result.items} items, every item once`;

  const byId = new Map<ItemCheckId, ItemCheckResult>(tally.finish().map((r) => [r.id, r]));
  const itemCheck = (id: ItemCheckId, level: Check['level'], title: string, extra?: Problem[]) =>
    tallied(byId.get(id)!, level, title, extra);
  const schemaValid = itemCheck(
    'schema-valid',
    'error',
    'pages valid',
    validators ? [] : [{ message: 'not checked: schema.json could not be compiled' }],
  );

  const sampled = options.all ? [] : sample.values();
  await verify(sampled);
  const picked = options.all ? withChecksums : sampled.length;
  checksums.summary = `${verified} of ${picked} ${options.all ? '' : 'sampled '}items match their content`;
  if (picked === 0 && result.items > 0)
    fail(checksums, { message: 'no item had an id and a checksum to verify' });

  // 4. The delta feed answers since the current snapshot.
  const since = result.snapshot ? String(result.snapshot.id ?? '') : '';
  if (!nonEmpty(since)) {
    fail(delta, { message: 'no snapshot id to ask the delta feed with' });
    delta.summary = 'not checked';
  } else {
    const url = `${options.api}/delta?since=${encodeURIComponent(since)}&limit=${Math.min(options.limit, 1000)}`;
    const answer = await getJson(url, http);
    if (!answer.ok) fail(delta, { message: `${url}: ${answer.message}` });
    else {
      const body = isRecord(answer.json) ? answer.json : {};
      const missing = [
        'spec',
        'since',
        'snapshot',
        'items',
        'removed',
        'next_page_token',
        'next_since',
      ].filter((k) => !(k in body));
      if (missing.length > 0)
        fail(delta, { message: `the delta envelope lacks ${missing.join(', ')}` });
      else {
        if (!Array.isArray(body.items) || !Array.isArray(body.removed))
          fail(delta, { message: 'items and removed must be arrays' });
        if (!nonEmpty(body.next_since))
          fail(delta, { message: 'next_since must be a non-empty string' });
        if (validators && Array.isArray(body.items)) {
          const asPage = {
            spec: body.spec,
            snapshot: body.snapshot,
            items: body.items,
            next_page_token: body.next_page_token,
          };
          const problem = validators.page(asPage);
          if (problem) fail(delta, { message: `delta items do not match schema.json: ${problem}` });
        }
      }
      if (delta.ok) {
        delta.summary = `since=${since} answers ${(body.items as unknown[]).length} items, ${(body.removed as unknown[]).length} tombstones, next_since ${String(body.next_since)}`;
      }
    }
    if (!delta.ok && !delta.summary) delta.summary = 'the delta feed did not answer correctly';
  }

  const checks = [
    schema,
    schemaValid,
    paging,
    itemCheck('required-fields', 'error', 'required fields', notObjects),
    itemCheck('permalinks', 'error', 'permalinks'),
    checksums,
    delta,
    itemCheck('embedding-hints', soft, 'embedding hints'),
    itemCheck('evidence', soft, 'evidence'),
    itemCheck('changelog-90-days', soft, 'changelog (90 days)'),
  ];
  for (const check of checks) if (!check.summary) check.summary = check.ok ? 'ok' : 'failed';
  return {
    ok: checks.every((c) => c.ok || c.level !== 'error'),
    ...result,
    evidenceCoverage: Math.round(tally.evidenceCoverage() * 10_000) / 10_000,
    durationMs: Date.now() - started,
    checks,
  };
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

export function textReport(results: ValidationReport, version: string): string {
  const lines: string[] = [];
  lines.push(`sitemap-ai-validate ${version}: ${results.target}`);
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

/** The command: parse, validate, print. Resolves to the exit code. */
export async function main(
  argv: readonly string[],
  { version = '0.0.0', stdout = process.stdout, stderr = process.stderr } = {},
): Promise<number> {
  let options: ValidateOptions;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`sitemap-ai-validate: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  const results = await validate(options, {
    userAgent: `sitemap-ai-validate/${version} (+https://www.npmjs.com/package/strapi-plugin-sitemap-ai)`,
  });
  stdout.write(
    options.json ? `${JSON.stringify(results, null, 2)}\n` : `${textReport(results, version)}\n`,
  );
  return results.ok ? 0 : 1;
}
