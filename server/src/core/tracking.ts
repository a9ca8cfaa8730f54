import { nextState, storedItem, versionString } from './items';
import { extend } from './objects';
import { DAY_MS } from '../../../shared/constants';
import type {
  ChangelogEntry,
  EntrySource,
  ItemDraft,
  ManifestItem,
  StoredItemState,
} from './types';

/** docs/protocol.md §3.1 changelog kinds. */
export const CHANGE_KINDS = ['added', 'content', 'metadata', 'removed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Changelog shown on an item: the last 90 days, newest first, bounded (issue: "bounded count"). */
export const ITEM_CHANGELOG_DAYS = 90;
export const ITEM_CHANGELOG_MAX = 10;

/**
 * The tracked current state of one item: what the next snapshot publishes
 * for it. `removed` states are kept so a fragment that comes back continues
 * its version numbers and its history.
 */
export interface TrackedState extends StoredItemState {
  itemId: string;
  type: string;
  lang: string;
  parent?: string;
  sourceUid: string;
  sourceDocument: string;
  removed: boolean;
  /** Optimistic-concurrency counter: a write must find the revision it read. */
  revision: number;
  stabilityPin?: number;
  data: ManifestItem;
  content: string;
  /** The editor's reason last used for this entry (kept on the page item). */
  reason?: string;
  /**
   * Fingerprint of the site policy (settings) this state was computed under. The builder
   * publishes a pending state only when it matches the current one (README: "Policy
   * integrity"), so a licence or usage decision the owner has since reverted is never published.
   */
  policyPrint?: string;
  /**
   * When the item was added, for a state whose "added" changelog entry is not a row of the
   * changelog but implied by the state itself (README "Storage"): set by a first build for the
   * states it publishes with nothing but the standard entry to say of them, and kept until the
   * state changes, when the entry is written out (`impliedAddedEntry`).
   */
  addedAt?: string;
}

export interface ChangelogRecord {
  itemId: string;
  at: string;
  version: string;
  kind: ChangeKind;
  desc: string;
  checksumBefore: string | null;
  checksumAfter: string | null;
  sourceUid: string;
  sourceDocument: string;
  lang: string;
}

/** An old item id that now resolves to a new one (docs/protocol.md §1: renamed headings keep their old id as an alias). */
export interface AliasRecord {
  oldId: string;
  newId: string;
  at: string;
}

/** A state to write: `expectedRevision` null means "must not exist yet". */
export interface StateWrite {
  state: TrackedState;
  expectedRevision: number | null;
}

export interface DocumentDiffInput {
  uid: string;
  documentId: string;
  /** Items the document publishes now, all its locales. */
  drafts: readonly ItemDraft[];
  /** Locales whose content was read: states of other locales are left alone. */
  langs: readonly string[];
  /** Stored states of this document's items (any locale). */
  states: readonly TrackedState[];
  /** The editor's reason per locale, as stored in the published entry. */
  reasons: Readonly<Record<string, string | undefined>>;
  /** Recent changelog of the items, newest first (for the item's `changelog` field). */
  recent: ReadonlyMap<string, readonly ChangelogEntry[]>;
  now: string;
  /** Why this comparison runs when no editor gave a reason (e.g. a settings change). */
  cause?: string;
}

function label(type: string, title: string | undefined): string {
  const kind = type === 'article' ? 'page' : type === 'faq' ? 'FAQ entry' : type;
  return title ? `${kind} '${title.length > 80 ? `${title.slice(0, 77)}…` : title}'` : kind;
}

/** The description of an item's "added" entry when no editor gave a reason and nothing caused it. */
function addedDesc(type: string, title: string | undefined): string {
  return `${label(type, title)} added`;
}

/** The version an item is added at, the only one an implied "added" entry can name. */
export const FIRST_VERSION = 'v1.0';

/**
 * Whether `entry` says no more of `state` than its implied "added" entry would (see
 * `TrackedState.addedAt`): the standard description of its title, its first version, its checksum.
 * A first build keeps such entries in the states it publishes instead of the changelog's rows.
 */
export function impliedByState(entry: ChangelogRecord, state: TrackedState): boolean {
  return (
    entry.kind === 'added' &&
    entry.itemId === state.itemId &&
    entry.checksumBefore === null &&
    entry.checksumAfter === state.checksum &&
    entry.version === FIRST_VERSION &&
    versionString(state) === FIRST_VERSION &&
    entry.desc === addedDesc(state.type, state.data.title)
  );
}

/**
 * The "added" entries of `changelog` that say no more than the state of their item in `states`
 * (impliedByState), one an item, to be kept in those states (`addedAt`: the entry's time) instead
 * of written as entries; the others stay in `changelog`.
 */
export function keptAddedEntries(
  changelog: readonly ChangelogRecord[],
  states: ReadonlyMap<string, TrackedState>,
): { changelog: ChangelogRecord[]; addedAt: Map<string, string> } {
  const addedAt = new Map<string, string>();
  const left = changelog.filter((entry) => {
    const state = states.get(entry.itemId);
    if (!state || addedAt.has(entry.itemId) || !impliedByState(entry, state)) return true;
    addedAt.set(entry.itemId, entry.at);
    return false;
  });
  return { changelog: left, addedAt };
}

/**
 * The "added" entry a state implies (`TrackedState.addedAt`), as it would have been written: its
 * state is the item as first added, unchanged since (a change writes the entry out).
 */
export function impliedAddedEntry(state: TrackedState & { addedAt: string }): ChangelogRecord {
  return {
    itemId: state.itemId,
    at: state.addedAt,
    version: FIRST_VERSION,
    kind: 'added',
    desc: addedDesc(state.type, state.data.title),
    checksumBefore: null,
    checksumAfter: state.checksum,
    sourceUid: state.sourceUid,
    sourceDocument: state.sourceDocument,
    lang: state.lang,
  };
}

/** `+120/−30 characters`: what was inserted and deleted between two texts (common prefix/suffix). */
export function characterDelta(before: string, after: string): { added: number; removed: number } {
  const a = [...before];
  const b = [...after];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  return { added: b.length - prefix - suffix, removed: a.length - prefix - suffix };
}

const VOLATILE = new Set([
  'id',
  'checksum',
  'version',
  'modified',
  'stability_score',
  'revisit_after',
  'citation',
  'changelog',
  'content_url',
]);

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value === undefined) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (!prefix && VOLATILE.has(key)) continue;
      if (prefix === 'signals' && key === 'first_published') continue;
      flatten(child, prefix ? `${prefix}.${key}` : key, out);
    }
    return;
  }
  out.set(prefix, JSON.stringify(value));
}

function short(json: string | undefined): string {
  if (json === undefined) return '(none)';
  const text = json.startsWith('"') ? (JSON.parse(json) as string) : json;
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Which published fields differ, as `usage.train: deny → allow; topics changed`. */
export function metadataSummary(before: ManifestItem, after: Partial<ManifestItem>): string {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(before, '', a);
  flatten(after, '', b);
  const parts: string[] = [];
  const lists = new Set<string>();
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (a.get(key) === b.get(key)) continue;
    const before = a.get(key);
    const after = b.get(key);
    if (before?.startsWith('[') || after?.startsWith('[')) {
      lists.add(key);
      continue;
    }
    parts.push(`${key}: ${short(before)} → ${short(after)}`);
  }
  for (const key of lists) parts.push(`${key} changed`);
  return parts.length > 0
    ? parts.slice(0, 6).join('; ') + (parts.length > 6 ? '; …' : '')
    : 'metadata changed';
}

function recentFor(entries: readonly ChangelogEntry[], now: string): ChangelogEntry[] {
  const cutoff = Date.parse(now) - ITEM_CHANGELOG_DAYS * DAY_MS;
  return entries.filter((e) => Date.parse(e.date) >= cutoff).slice(0, ITEM_CHANGELOG_MAX);
}

/** Text of a fragment without its first line (the heading of a section or question). */
function bodyOf(content: string): string {
  const newline = content.indexOf('\n');
  return newline === -1 ? '' : content.slice(newline + 1).trim();
}

/**
 * Renames (docs/protocol.md §1): which vanished items reappear under a new id in this
 * change. A page whose slug changed (one page out, one in, per locale) takes
 * its fragments along by key; within a page, a fragment whose content or body
 * is unchanged under a new heading, or the only section that went away next
 * to the only one that came, is the same fragment renamed.
 */
export function detectRenames(
  vanished: readonly TrackedState[],
  added: readonly ItemDraft[],
): Map<string, TrackedState> {
  const renamedFrom = new Map<string, TrackedState>();
  const taken = new Set<string>();
  const pair = (from: TrackedState, to: ItemDraft) => {
    if (
      taken.has(from.itemId) ||
      renamedFrom.has(to.id) ||
      from.type !== to.type ||
      from.lang !== to.lang
    )
      return;
    renamedFrom.set(to.id, from);
    taken.add(from.itemId);
  };
  const parentMap = new Map<string, string>();
  for (const lang of new Set(added.map((d) => d.lang))) {
    const outPages = vanished.filter((s) => s.type === 'article' && s.lang === lang);
    const inPages = added.filter((d) => d.type === 'article' && d.lang === lang);
    if (outPages.length === 1 && inPages.length === 1) {
      pair(outPages[0]!, inPages[0]!);
      parentMap.set(outPages[0]!.itemId, inPages[0]!.id);
    }
  }
  const addedById = new Map(added.map((d) => [d.id, d]));
  for (const from of vanished) {
    if (!from.parent) continue;
    const newParent = parentMap.get(from.parent);
    if (!newParent) continue;
    const key = from.itemId.slice(from.parent.length + 1);
    const to = addedById.get(`${newParent}:${key}`);
    if (to) pair(from, to);
  }
  const parentOf = (state: TrackedState) =>
    state.parent ? (parentMap.get(state.parent) ?? state.parent) : undefined;
  const open = () => ({
    out: vanished.filter((s) => !taken.has(s.itemId) && s.type !== 'article'),
    in: added.filter((d) => !renamedFrom.has(d.id) && d.type !== 'article'),
  });
  for (const match of [
    (a: TrackedState, b: ItemDraft) => a.checksum === b.checksum,
    (a: TrackedState, b: ItemDraft) =>
      (a.type === 'section' || a.type === 'faq') &&
      bodyOf(a.content) !== '' &&
      bodyOf(a.content) === bodyOf(b.content),
  ]) {
    const { out, in: candidates } = open();
    for (const from of out) {
      const to = candidates.find(
        (d) => !renamedFrom.has(d.id) && d.parent === parentOf(from) && match(from, d),
      );
      if (to) pair(from, to);
    }
  }
  const { out, in: candidates } = open();
  for (const parent of new Set(out.map(parentOf))) {
    const outSections = out.filter((s) => s.type === 'section' && parentOf(s) === parent);
    const inSections = candidates.filter((d) => d.type === 'section' && d.parent === parent);
    if (outSections.length === 1 && inSections.length === 1) pair(outSections[0]!, inSections[0]!);
  }
  return renamedFrom;
}

/**
 * The editor's reason last recorded for a document in one locale (docs/protocol.md §3.1): kept
 * on its page item, where a live page wins over a removed one (an old slug's page) whatever
 * order the states come in. A publish whose reason equals it gives no new reason.
 */
export function lastRecordedReason(
  states: readonly Pick<TrackedState, 'type' | 'lang' | 'removed' | 'reason'>[],
  lang: string,
): string | undefined {
  const pages = states.filter((s) => s.type === 'article' && s.lang === lang);
  const page = pages.filter((s) => !s.removed).pop() ?? pages.filter((s) => s.removed).pop();
  return page?.reason;
}

/** The editor's reason for `lang`'s entry when it is not the one last recorded (else none). */
function freshReasonOf(
  input: Pick<DocumentDiffInput, 'states' | 'reasons'>,
  lang: string,
): string | undefined {
  const reason = input.reasons[lang]?.trim();
  if (!reason) return undefined;
  return reason === lastRecordedReason(input.states, lang) ? undefined : reason;
}

/**
 * The states of a document that diffDocument leaves as they are and whose data and canonical
 * text it never reads: live states whose item the document still publishes with the same
 * checksum and metadata hash, but for a page whose entry brings a new reason (its state is
 * written again). Only their columns are read, so a comparison need not load their stored
 * texts — on a re-compare that finds nothing changed, none.
 */
export function unchangedStates<S extends TrackedState>(
  input: Pick<DocumentDiffInput, 'drafts' | 'reasons'> & { states: readonly S[] },
): S[] {
  const drafts = new Map(input.drafts.map((d) => [d.id, d]));
  return input.states.filter((state) => {
    const draft = drafts.get(state.itemId);
    return (
      draft !== undefined &&
      !state.removed &&
      draft.checksum === state.checksum &&
      draft.metaHash === state.metaHash &&
      (draft.type !== 'article' || freshReasonOf(input, draft.lang) === undefined)
    );
  });
}

/** The editor's reason of each locale's entry (DocumentDiffInput `reasons`). */
export function reasonsOf(entries: readonly EntrySource[]): Record<string, string | undefined> {
  return Object.fromEntries(entries.map((e) => [e.lang, e.metadata.reason]));
}

/**
 * What a first build compares a document with no tracked state by, where it drafts it
 * (workers/drafting.ts `fresh`): the pass's locales, its time and cause, and the fingerprint of
 * the policy its drafts are made under.
 */
export interface UntrackedDiffInput {
  uid: string;
  langs: readonly string[];
  now: string;
  cause?: string;
  print: string;
}

/**
 * diffDocument of a document none of whose items has a state, when the changelog holds nothing
 * of them (a first build's, begun on an empty changelog): every item added — what the tracker's
 * comparison writes for it (services/tracker.ts `diffDocuments`), made by the same function, but
 * for the stamp of the policy its states were computed under (`print`), which whoever sends them
 * on adds (workers/drafting.ts: with the copy it sends, one copy of each state fewer).
 */
export function diffUntracked(
  input: UntrackedDiffInput,
  documentId: string,
  entries: readonly EntrySource[],
  drafts: readonly ItemDraft[],
): { writes: StateWrite[]; changelog: ChangelogRecord[] } {
  const diff = diffDocument({
    uid: input.uid,
    documentId,
    drafts,
    langs: input.langs,
    states: [],
    reasons: reasonsOf(entries),
    recent: new Map(),
    now: input.now,
    cause: input.cause,
  });
  return { writes: diff.writes, changelog: diff.changelog };
}

/**
 * Compare what a document publishes now with what is tracked for it (docs/protocol.md §3.1):
 * every fragment added, changed (content or metadata) or removed gets its new
 * state and one changelog entry saying why — the editor's reason when one was
 * given for this change, otherwise an automatic summary. Pure; nothing is
 * mutated.
 */
export function diffDocument(input: DocumentDiffInput): {
  writes: StateWrite[];
  changelog: ChangelogRecord[];
  aliases: AliasRecord[];
} {
  const { now } = input;
  const byId = new Map(input.states.map((s) => [s.itemId, s]));
  const seen = new Set<string>();
  const writes: StateWrite[] = [];
  const changelog: ChangelogRecord[] = [];
  const freshReason = (lang: string) => freshReasonOf(input, lang);

  /** An item's recent entries, newest first: the changelog's, then the one its state implies. */
  const recentOf = (itemId: string): ChangelogEntry[] => {
    const stored = input.recent.get(itemId) ?? [];
    const state = byId.get(itemId);
    if (state?.addedAt === undefined) return [...stored];
    const implied = impliedAddedEntry(state as TrackedState & { addedAt: string });
    return [...stored, { date: implied.at, version: implied.version, desc: implied.desc }];
  };

  const draftIds = new Set(input.drafts.map((d) => d.id));
  const vanished = input.states.filter(
    (s) => !s.removed && !draftIds.has(s.itemId) && input.langs.includes(s.lang),
  );
  const renamedFrom = detectRenames(
    vanished,
    input.drafts.filter((d) => !byId.has(d.id)),
  );
  const renamedTo = new Map(
    [...renamedFrom].map(([newId, from]) => [
      from.itemId,
      input.drafts.find((d) => d.id === newId)!,
    ]),
  );
  const aliases: AliasRecord[] = [...renamedFrom].map(([newId, from]) => ({
    oldId: from.itemId,
    newId,
    at: now,
  }));

  for (const draft of input.drafts) {
    seen.add(draft.id);
    const renamed = renamedFrom.get(draft.id);
    const previous = byId.get(draft.id);
    const live = previous && !previous.removed ? previous : renamed;
    const next = renamed
      ? nextState(renamed, draft, now, { renamed: true })
      : nextState(previous, draft, now);
    const kind: ChangeKind | null = next.change === 'none' ? null : next.change;
    const state: StoredItemState = next.change === 'none' && previous ? previous : next.state;
    const reason = freshReason(draft.lang);
    const pageReasonChanged = draft.type === 'article' && reason !== undefined;
    if (kind === null && !pageReasonChanged) continue;

    let entry: ChangelogRecord | undefined;
    if (kind !== null) {
      const title = draft.item.title;
      let auto: string;
      if (renamed) {
        const delta = characterDelta(renamed.content, draft.content);
        auto = `${label(draft.type, title)} renamed from '${renamed.data.title ?? renamed.itemId}' (old id ${renamed.itemId} kept as an alias)`;
        if (kind === 'content') auto += `, +${delta.added}/−${delta.removed} characters`;
      } else if (kind === 'added')
        auto = previous ? `${label(draft.type, title)} restored` : addedDesc(draft.type, title);
      else if (kind === 'content') {
        const delta = characterDelta(live!.content, draft.content);
        auto = `${label(draft.type, title)} edited, +${delta.added}/−${delta.removed} characters`;
      } else auto = `${label(draft.type, title)}: ${metadataSummary(live!.data, draft.item)}`;
      const desc = reason ?? (input.cause ? `${input.cause}: ${auto}` : auto);
      entry = {
        itemId: draft.id,
        at: now,
        version: versionString(state),
        kind,
        desc,
        checksumBefore: live ? live.checksum : null,
        checksumAfter: draft.checksum,
        sourceUid: input.uid,
        sourceDocument: input.documentId,
        lang: draft.lang,
      };
      changelog.push(entry);
    }
    const history = [
      ...(entry ? [{ date: entry.at, version: entry.version, desc: entry.desc }] : []),
      ...recentOf(draft.id),
      ...(renamed ? recentOf(renamed.itemId) : []),
    ];
    const data = storedItem(draft, state, recentFor(history, now));
    writes.push({
      expectedRevision: previous ? previous.revision : null,
      state: extend(state, {
        itemId: draft.id,
        type: draft.type,
        lang: draft.lang,
        parent: draft.parent,
        sourceUid: input.uid,
        sourceDocument: input.documentId,
        removed: false,
        revision: (previous?.revision ?? 0) + 1,
        stabilityPin: draft.stabilityPin,
        data,
        content: draft.content,
        reason:
          draft.type === 'article'
            ? input.reasons[draft.lang]?.trim() || previous?.reason
            : undefined,
      }),
    });
  }

  for (const previous of input.states) {
    if (seen.has(previous.itemId) || previous.removed || !input.langs.includes(previous.lang))
      continue;
    const reason = freshReason(previous.lang);
    const successor = renamedTo.get(previous.itemId);
    const auto = successor
      ? `${label(previous.type, previous.data.title)} renamed to '${successor.item.title ?? successor.id}'; this id now resolves to ${successor.id}`
      : `${label(previous.type, previous.data.title)} removed`;
    changelog.push({
      itemId: previous.itemId,
      at: now,
      version: versionString(previous),
      kind: 'removed',
      desc: reason ?? (input.cause ? `${input.cause}: ${auto}` : auto),
      checksumBefore: previous.checksum,
      checksumAfter: null,
      sourceUid: input.uid,
      sourceDocument: input.documentId,
      lang: previous.lang,
    });
    writes.push({
      expectedRevision: previous.revision,
      state: extend(previous, {
        history: [...previous.history],
        removed: true,
        revision: previous.revision + 1,
        modified: now,
      }),
    });
  }
  // A state written again no longer stands for its "added" entry (addedAt): the entry is written
  // out before the change, with the state as it was added; the states written carry none (a
  // change extends the state it replaces, a renamed item's the state it was renamed from).
  const written = new Set(writes.map((w) => w.state.itemId));
  const writtenOut = input.states.flatMap((s) =>
    s.addedAt !== undefined && written.has(s.itemId)
      ? [impliedAddedEntry(s as TrackedState & { addedAt: string })]
      : [],
  );
  return {
    writes: writes.map((w) =>
      w.state.addedAt === undefined
        ? w
        : extend(w, { state: extend(w.state, { addedAt: undefined }) }),
    ),
    changelog: [...writtenOut, ...changelog],
    aliases,
  };
}
