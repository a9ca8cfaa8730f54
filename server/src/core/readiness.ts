import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { CHUNK_RULES, DAY_MS, HOUR_MS } from '../../../shared/constants';
import type { ManifestItem } from './types';
import { FingerprintSet } from './fingerprint-set';

/**
 * The seed's pre-deployment checklist (README › Observability), as pure checks of manifest
 * items. A `ReadinessTally` takes the items of a snapshot one at a time (the
 * caller streams pages, nothing is held twice) and keeps counts and the first
 * failures of each check.
 */

export const READINESS_CHECK_IDS = [
  'required-fields',
  'permalinks',
  'changelog-90-days',
  'evidence',
  'embedding-hints',
  'delta-and-paging',
  'schema-valid',
  'policy',
] as const;
export type ReadinessCheckId = (typeof READINESS_CHECK_IDS)[number];

/** Checks made item by item (delta-and-paging is a check of the feeds, made by the service). */
export const ITEM_CHECK_IDS = [
  'required-fields',
  'permalinks',
  'changelog-90-days',
  'evidence',
  'embedding-hints',
  'schema-valid',
] as const;
export type ItemCheckId = (typeof ITEM_CHECK_IDS)[number];

/** docs/protocol.md §1.2 / the seed's checklist: fields every item must carry. */
export const REQUIRED_ITEM_FIELDS = [
  'id',
  'url',
  'type',
  'lang',
  'license',
  'version',
  'checksum',
] as const;

/** README › Observability: evidence coverage target (share of fragments with a primary source). */
export const EVIDENCE_COVERAGE_TARGET = 0.9;

/** The seed's checklist: "changelog in the last 90 days". */
export const CHANGELOG_WINDOW_DAYS = 90;

/** Failures kept per check (the rest are counted). */
export const READINESS_FAILURES_MAX = 50;

/** A permalink's anchor (docs/protocol.md §1 anchors: slugs of headings and keys). */
const ANCHOR = /^[a-z0-9][a-z0-9-]*$/;

const isNonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Required fields (docs/protocol.md §1.2) an item lacks or leaves empty. */
export function missingRequiredFields(item: Partial<ManifestItem>): string[] {
  return REQUIRED_ITEM_FIELDS.filter(
    (field) => !isNonEmptyString((item as Record<string, unknown>)[field]),
  );
}

/** `https://example.com/a#b` → `{ page: 'https://example.com/a', anchor: 'b' }`; no `#` → anchor null. */
export function splitPermalink(url: string): { page: string; anchor: string | null } {
  const hash = url.indexOf('#');
  return hash === -1
    ? { page: url, anchor: null }
    : { page: url.slice(0, hash), anchor: url.slice(hash + 1) };
}

/**
 * What is wrong with a fragment's permalink (docs/protocol.md §1 anchors), or null: it
 * must be its page's URL plus a `#anchor` of the published anchor alphabet.
 * Pages (`article` items) are not permalinks to a fragment: always null.
 * `pageUrl` is the parent page's URL when known (undefined: not checked).
 */
export function permalinkProblem(
  item: Pick<ManifestItem, 'type' | 'url'>,
  pageUrl?: string,
): string | null {
  if (item.type === 'article') return null;
  if (!isNonEmptyString(item.url)) return 'no url';
  const { page, anchor } = splitPermalink(item.url);
  if (anchor === null || anchor === '') return `url ${item.url} has no #anchor`;
  if (!ANCHOR.test(anchor))
    return `anchor "#${anchor.slice(0, 80)}" is not a published anchor (lowercase letters, digits, dashes)`;
  if (pageUrl !== undefined && page !== pageUrl)
    return `url ${item.url} is not on its page ${pageUrl}`;
  return null;
}

/**
 * "Changelog in the last 90 days", as this plugin defines it: a page
 * (`article` item) changed in the 90 days before `now` must say so in its
 * `changelog` — an entry for its current version dated within those 90 days.
 * A page unchanged for longer has nothing to report and passes. Fragments
 * are not checked (their page's changelog covers the page).
 */
export function changelogProblem(
  item: Pick<ManifestItem, 'type' | 'version' | 'modified' | 'changelog'>,
  now: Date,
): string | null {
  if (item.type !== 'article') return null;
  const cutoff = now.getTime() - CHANGELOG_WINDOW_DAYS * DAY_MS;
  const modified = Date.parse(item.modified);
  if (Number.isFinite(modified) && modified < cutoff) return null;
  const entries = Array.isArray(item.changelog) ? item.changelog : [];
  // Items read from another site (the CLI) may be malformed: a null entry is no entry.
  const recent = entries.filter((e) => {
    const at = e ? Date.parse(e.date) : Number.NaN;
    return Number.isFinite(at) && at >= cutoff;
  });
  if (recent.length === 0)
    return `changed ${typeof item.modified === 'string' && item.modified ? `on ${item.modified.slice(0, 10)} ` : ''}but no changelog entry in the last ${CHANGELOG_WINDOW_DAYS} days`;
  if (!recent.some((e) => e.version === item.version)) {
    return `its changelog of the last ${CHANGELOG_WINDOW_DAYS} days does not mention the current version ${item.version}`;
  }
  return null;
}

/** Does an item cite at least one primary source (docs/protocol.md §1.2 `evidence`)? */
export function hasEvidence(item: Pick<ManifestItem, 'evidence'>): boolean {
  return Array.isArray(item.evidence) && item.evidence.some((e) => e && isNonEmptyString(e.url));
}

/** What is wrong with an item's `embedding_hint` (docs/protocol.md §1.2), or null. */
export function embeddingHintProblem(item: Pick<ManifestItem, 'embedding_hint'>): string | null {
  const hint = item.embedding_hint;
  if (!hint || typeof hint !== 'object') return 'no embedding_hint';
  if (!(CHUNK_RULES as readonly string[]).includes(hint.chunk))
    return `embedding_hint.chunk must be one of ${CHUNK_RULES.join(', ')}`;
  if (!Number.isInteger(hint.max_tokens) || hint.max_tokens < 1)
    return 'embedding_hint.max_tokens must be a positive integer';
  return null;
}

/** A validator answering an error text (at most three errors), or null when the value is valid. */
export type SchemaCheck = (value: unknown) => string | null;

function errorText(validate: ValidateFunction, root: string): string {
  const errors = validate.errors ?? [];
  const shown = errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || root} ${e.message ?? 'is invalid'}`);
  return shown.join('; ') + (errors.length > 3 ? `; and ${errors.length - 3} more` : '');
}

/**
 * Validators of a manifest schema (docs/protocol.md §4.6 `schema.json`, JSON Schema 2020-12):
 * a whole page, and one item (its `$defs/item`). Compiled strictly: a schema with an unknown
 * keyword or a missing item definition throws, it does not pass everything.
 */
export function manifestValidators(schema: Record<string, unknown>): {
  page: SchemaCheck;
  item: SchemaCheck;
} {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const page = ajv.compile(schema);
  const item = ajv.getSchema(`${String(schema.$id ?? '')}#/$defs/item`);
  if (!item) throw new Error('it has no $id with an item definition ($defs/item)');
  return {
    page: (value) => (page(value) ? null : errorText(page, '(page)')),
    item: (value) => (item(value) ? null : errorText(item, '(item)')),
  };
}

/** The parts of a manifest page (docs/protocol.md §4.1) a traversal is checked on. */
export interface TraversedPage {
  snapshot: { id: string };
  items: readonly Pick<ManifestItem, 'id' | 'version'>[];
  next_page_token: string | null;
}

/**
 * The paging of one traversal of a snapshot (docs/protocol.md §4.1, §5): every page from the
 * same snapshot, every item once, no page over the limit, no empty page naming a next one,
 * every envelope valid. Remembers a fingerprint of each id read, not the ids: a snapshot of 1.4M
 * items is traversed in tens of megabytes.
 */
export class PagingCheck {
  readonly problems: string[] = [];
  private readonly seen = new FingerprintSet();
  private pages = 0;
  private snapshot: string | undefined;

  constructor(
    private readonly options: {
      limit: number;
      /** The snapshot the traversal must stay in (default: the first page's). */
      snapshot?: string;
      validatePage?: SchemaCheck;
    },
  ) {
    this.snapshot = options.snapshot;
  }

  pageCount(): number {
    return this.pages;
  }

  /**
   * Check one page; false when the traversal cannot go on (an empty page naming a next one).
   * `envelope` is the page as it was answered, when `page` is a reading of it.
   */
  add(page: TraversedPage, envelope: object = page): boolean {
    this.pages += 1;
    const n = this.pages;
    this.snapshot ??= page.snapshot.id;
    if (page.snapshot.id !== this.snapshot)
      this.problems.push(`page ${n} came from snapshot ${page.snapshot.id}, not ${this.snapshot}`);
    const invalid = this.options.validatePage?.({ ...envelope, items: [] });
    if (invalid)
      this.problems.push(`page ${n}: the envelope does not match schema.json (${invalid})`);
    for (const item of page.items) {
      if (!this.seen.add(item.id)) this.problems.push(`item ${item.id} appears twice while paging`);
    }
    if (page.items.length > this.options.limit)
      this.problems.push(
        `page ${n} holds ${page.items.length} items, more than limit ${this.options.limit}`,
      );
    if (page.next_page_token && page.items.length === 0) {
      this.problems.push(`page ${n} is empty but has a next_page_token`);
      return false;
    }
    return true;
  }
}

/** An entry of a delta page (docs/protocol.md §4.2) as the readiness checklist reads it. */
export interface DeltaListing {
  id: string;
  removed: boolean;
  version?: string;
}

/**
 * What a delta says wrongly of snapshot `seq`, in the delta's order: a tombstone for an item the
 * snapshot holds, an item at another version than the snapshot's (or one it does not hold).
 * `found` is the version paging the snapshot found of each id the delta lists.
 */
export function deltaListingProblems(
  listings: readonly DeltaListing[],
  found: ReadonlyMap<string, string>,
  seq: number,
): string[] {
  const wrong: string[] = [];
  for (const listing of listings) {
    const current = found.get(listing.id);
    if (listing.removed && current !== undefined)
      wrong.push(`${listing.id} is listed as removed but is in snapshot ${seq}`);
    if (!listing.removed && current !== listing.version)
      wrong.push(
        `${listing.id} is listed at ${listing.version}, snapshot ${seq} has ${current ?? 'no such item'}`,
      );
  }
  return wrong;
}

/** Admin path of the Content Manager edit view of an entry (in its locale, for localized types). */
export function contentManagerEditPath(input: {
  uid: string;
  documentId: string;
  locale: string | null;
  singleType?: boolean;
}): string {
  const locale = input.locale ? `?plugins[i18n][locale]=${encodeURIComponent(input.locale)}` : '';
  if (input.singleType) return `/content-manager/single-types/${input.uid}${locale}`;
  return `/content-manager/collection-types/${input.uid}/${encodeURIComponent(input.documentId)}${locale}`;
}

/** `142 of 153 items (93 %)`. */
export function shareSummary(passed: number, total: number, noun: string): string {
  if (total === 0) return `no ${noun}`;
  return `${passed} of ${total} ${noun} (${Math.floor((passed / total) * 100)} %)`;
}

/**
 * Hours from the oldest change not yet in a snapshot to `now` (README › Observability index
 * freshness). A pending state's change is no older than the newest snapshot
 * (the builder publishes everything pending when it runs); an entry marked
 * dirty counts from when it was marked. 0 when nothing waits.
 */
export function indexFreshnessHours(input: {
  oldestPending: string | null;
  latestSnapshot: string | null;
  oldestDirty: string | null;
  now: Date;
}): number {
  const starts: number[] = [];
  if (input.oldestPending) {
    const pending = Date.parse(input.oldestPending);
    const snapshot = input.latestSnapshot ? Date.parse(input.latestSnapshot) : Number.NaN;
    const start = Number.isFinite(snapshot) ? Math.max(pending, snapshot) : pending;
    if (Number.isFinite(start)) starts.push(start);
  }
  if (input.oldestDirty && Number.isFinite(Date.parse(input.oldestDirty)))
    starts.push(Date.parse(input.oldestDirty));
  if (starts.length === 0) return 0;
  const hours = (input.now.getTime() - Math.min(...starts)) / HOUR_MS;
  return Math.max(0, Math.round(hours * 100) / 100);
}

/** One failing item, before it is linked to its entry. */
export interface ItemFailure {
  itemId: string;
  title: string;
  detail: string;
}

export interface CheckTally {
  /** Items the check applies to. */
  checked: number;
  failureCount: number;
  /** The first READINESS_FAILURES_MAX failures. */
  failures: ItemFailure[];
}

export interface ItemCheckResult extends CheckTally {
  id: ItemCheckId;
  ok: boolean;
  summary: string;
}

/**
 * Runs the item checks over a stream of items. `validateItem` answers the
 * schema check (an error text, or null when valid); without it that check
 * is skipped. Memory: counters, the first failures, the URL of each page
 * and a fingerprint of each fragment's (to check that fragments sit on their
 * page with unique anchors): about 150 bytes per page and 12–23 per fragment.
 */
export class ReadinessTally {
  private readonly tallies = new Map<ItemCheckId, CheckTally>(
    ITEM_CHECK_IDS.map((id) => [id, { checked: 0, failureCount: 0, failures: [] }]),
  );
  private readonly pageUrls = new Map<string, string>();
  private readonly fragmentUrls = new FingerprintSet();
  /**
   * Fragments read before their page (keyset order is the database's collation). None wait in
   * byte order (SQLite's), where a page's id, a prefix of its fragments', sorts first.
   */
  private readonly deferred: { item: ItemFailure & { parent: string; url: string } }[] = [];
  private fragments = 0;
  private withEvidence = 0;
  private items = 0;

  constructor(
    private readonly options: {
      now: Date;
      validateItem?: (item: ManifestItem) => string | null;
      maxFailures?: number;
    },
  ) {}

  private fail(id: ItemCheckId, item: Partial<ManifestItem>, detail: string): void {
    const tally = this.tallies.get(id)!;
    tally.failureCount += 1;
    if (tally.failures.length < (this.options.maxFailures ?? READINESS_FAILURES_MAX)) {
      tally.failures.push({
        itemId: String(item.id ?? ''),
        title: String(item.title ?? item.id ?? ''),
        detail,
      });
    }
  }

  private count(id: ItemCheckId): void {
    this.tallies.get(id)!.checked += 1;
  }

  add(item: ManifestItem): void {
    this.items += 1;
    this.count('required-fields');
    const missing = missingRequiredFields(item);
    if (missing.length > 0) this.fail('required-fields', item, `missing ${missing.join(', ')}`);

    if (item.type === 'article') {
      if (isNonEmptyString(item.id) && isNonEmptyString(item.url))
        this.pageUrls.set(item.id, item.url);
      this.count('changelog-90-days');
      const changelog = changelogProblem(item, this.options.now);
      if (changelog) this.fail('changelog-90-days', item, changelog);
    } else {
      this.fragments += 1;
      this.count('permalinks');
      this.count('evidence');
      if (hasEvidence(item)) this.withEvidence += 1;
      else this.fail('evidence', item, 'no evidence link (a primary source)');
      this.checkPermalink(item);
    }

    this.count('embedding-hints');
    const hint = embeddingHintProblem(item);
    if (hint) this.fail('embedding-hints', item, hint);

    if (this.options.validateItem) {
      this.count('schema-valid');
      const error = this.options.validateItem(item);
      if (error) this.fail('schema-valid', item, error);
    }
  }

  private checkPermalink(item: ManifestItem): void {
    const own = permalinkProblem(item);
    if (own) return this.fail('permalinks', item, own);
    if (!this.fragmentUrls.add(item.url))
      return this.fail(
        'permalinks',
        item,
        `url ${item.url} is also the permalink of another fragment`,
      );
    if (!isNonEmptyString(item.parent)) return this.fail('permalinks', item, 'no parent page');
    const pageUrl = this.pageUrls.get(item.parent);
    if (pageUrl === undefined) {
      this.deferred.push({
        item: {
          itemId: item.id,
          title: item.title ?? item.id,
          detail: '',
          parent: item.parent,
          url: item.url,
        },
      });
      return;
    }
    const problem = permalinkProblem(item, pageUrl);
    if (problem) this.fail('permalinks', item, problem);
  }

  /** Share of fragments with at least one evidence link (1 when there are no fragments). */
  evidenceCoverage(): number {
    return this.fragments === 0 ? 1 : this.withEvidence / this.fragments;
  }

  itemCount(): number {
    return this.items;
  }

  /** The results of the item checks (call once, after the last item). */
  finish(): ItemCheckResult[] {
    for (const { item } of this.deferred) {
      const pageUrl = this.pageUrls.get(item.parent);
      const failing = { id: item.itemId, title: item.title };
      if (pageUrl === undefined)
        this.fail('permalinks', failing, `its page ${item.parent} is not in the manifest`);
      else {
        const problem = permalinkProblem({ type: 'section', url: item.url }, pageUrl);
        if (problem) this.fail('permalinks', failing, problem);
      }
    }
    this.deferred.length = 0;
    const result = (id: ItemCheckId, ok: boolean, summary: string): ItemCheckResult => ({
      id,
      ok,
      summary,
      ...this.tallies.get(id)!,
    });
    const passed = (id: ItemCheckId) =>
      this.tallies.get(id)!.checked - this.tallies.get(id)!.failureCount;
    const clean = (id: ItemCheckId) => this.tallies.get(id)!.failureCount === 0;
    const coverage = this.evidenceCoverage();
    const t = (id: ItemCheckId) => this.tallies.get(id)!.checked;
    return [
      result(
        'required-fields',
        clean('required-fields'),
        `${shareSummary(passed('required-fields'), t('required-fields'), 'items')} carry ${REQUIRED_ITEM_FIELDS.join(', ')}`,
      ),
      result(
        'permalinks',
        clean('permalinks'),
        `${shareSummary(passed('permalinks'), t('permalinks'), 'fragments')} have a unique #anchor permalink on their page`,
      ),
      result(
        'changelog-90-days',
        clean('changelog-90-days'),
        `${shareSummary(passed('changelog-90-days'), t('changelog-90-days'), 'pages')} record their changes of the last ${CHANGELOG_WINDOW_DAYS} days in their changelog`,
      ),
      result(
        'evidence',
        coverage >= EVIDENCE_COVERAGE_TARGET,
        `${shareSummary(this.withEvidence, this.fragments, 'fragments')} have an evidence link; target ≥ ${EVIDENCE_COVERAGE_TARGET * 100} %`,
      ),
      result(
        'embedding-hints',
        clean('embedding-hints'),
        `${shareSummary(passed('embedding-hints'), t('embedding-hints'), 'items')} have an embedding hint`,
      ),
      result(
        'schema-valid',
        this.options.validateItem ? clean('schema-valid') : false,
        this.options.validateItem
          ? `${shareSummary(passed('schema-valid'), t('schema-valid'), 'items')} are valid against schema.json`
          : 'not checked',
      ),
    ];
  }
}
