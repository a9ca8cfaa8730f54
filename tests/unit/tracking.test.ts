import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checksumOf } from '../../server/src/core/canonical';
import {
  CHECKSUM_OF_ROW,
  buildEntryItems,
  finalizeDraft,
  readStoredItem,
  type SiteContext,
} from '../../server/src/core/items';
import {
  ITEM_CHANGELOG_MAX,
  characterDelta,
  diffDocument,
  impliedAddedEntry,
  impliedByState,
  lastRecordedReason,
  metadataSummary,
  unchangedStates,
  type DocumentDiffInput,
  type StateWrite,
  type TrackedState,
} from '../../server/src/core/tracking';
import type {
  ChangelogEntry,
  EntrySource,
  ItemDraft,
  ManifestItem,
} from '../../server/src/core/types';
import { ARTICLE_TYPE, GEO_BODY, SITE, geoEntry } from './fixtures/entries';

const UID = 'api::article.article';
const DOC = 'k8v2q0m3x1c9d7e5f4a6b2n1';
const PAGE = 'article:geo-index:en';
const INTRO = `${PAGE}:intro`;
const WHY = `${PAGE}:why-classic-sitemaps-fail`;
const RESULTS = `${PAGE}:results`;
const TABLE = `${PAGE}:results-table-1`;
const COVER = `${PAGE}:cover`;
const EN_IDS = [PAGE, INTRO, WHY, RESULTS, TABLE, COVER];

/** geoEntry's publishedAt: the `modified` of items seen the first time. */
const PUBLISHED = '2025-10-22T09:00:00.000Z';
/** Tracking runs: first publish, then later re-publishes. */
const T0 = '2025-10-22T09:00:03.000Z';
const T1 = '2025-11-03T14:30:00.000Z';
const T2 = '2025-11-20T08:15:00.000Z';
const T3 = '2025-12-01T16:45:00.000Z';

const EDITED_BODY = GEO_BODY.replace(
  'They list URLs only.',
  'They list whole URLs, never passages.',
);
const BODY_WITHOUT_WHY = GEO_BODY.replace(
  /## Why classic sitemaps fail\n\nThey list[^\n]*\n\n/,
  '',
);

const SK_BODY = [
  'Sitemapy vznikli pre stránky, nie pre pasáže.',
  '',
  '## Prečo klasické sitemapy nestačia',
  '',
  'Uvádzajú iba adresy URL.',
].join('\n');

function skEntry(overrides: Partial<EntrySource> = {}): EntrySource {
  return geoEntry({
    lang: 'sk',
    title: 'Sitemapa pre AI',
    summary: 'Prečo agenti AI potrebujú odkazy na fragmenty.',
    bodies: [{ field: 'body', format: 'markdown', value: SK_BODY }],
    media: [],
    pathValues: { locale: 'sk', slug: 'geo-index' },
    ...overrides,
  });
}

function draftsFor(entry: EntrySource, site: SiteContext = SITE): ItemDraft[] {
  const built = buildEntryItems(entry, ARTICLE_TYPE, site);
  if (built === null) throw new Error('expected items');
  return built.map(finalizeDraft);
}

/** The entry as re-published at `at` (a re-publish moves publishedAt/updatedAt). */
function republished(at: string, overrides: Partial<EntrySource> = {}): EntrySource {
  return geoEntry({ publishedAt: at, updatedAt: at, ...overrides });
}

function withBody(markdown: string): Partial<EntrySource> {
  return { bodies: [{ field: 'body', format: 'markdown', value: markdown }] };
}

type Run = Partial<DocumentDiffInput> & Pick<DocumentDiffInput, 'drafts' | 'now'>;

function diff(states: readonly TrackedState[], run: Run): ReturnType<typeof diffDocument> {
  return diffDocument({
    uid: UID,
    documentId: DOC,
    langs: ['en'],
    reasons: {},
    recent: new Map(),
    states,
    ...run,
  });
}

/** What the repository holds after the writes: each write must find the revision it read. */
function apply(states: readonly TrackedState[], writes: readonly StateWrite[]): TrackedState[] {
  const next = new Map(states.map((s) => [s.itemId, s]));
  for (const write of writes) {
    const stored = next.get(write.state.itemId);
    if ((stored?.revision ?? null) !== write.expectedRevision) {
      throw new Error(
        `revision conflict on ${write.state.itemId}: stored ${stored?.revision}, expected ${write.expectedRevision}`,
      );
    }
    next.set(write.state.itemId, write.state);
  }
  return [...next.values()];
}

function firstPublish(reasons: DocumentDiffInput['reasons'] = {}): TrackedState[] {
  return apply([], diff([], { drafts: draftsFor(geoEntry()), now: T0, reasons }).writes);
}

function stateOf(states: readonly TrackedState[], id: string): TrackedState {
  const state = states.find((s) => s.itemId === id);
  if (!state) throw new Error(`no state ${id}`);
  return state;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

function readOnlyMap<V>(entries: [string, V][]): ReadonlyMap<string, V> {
  const map = new Map(entries.map(([k, v]) => [k, deepFreeze(v)]));
  const refuse = (): never => {
    throw new TypeError('recent is read-only');
  };
  Object.defineProperties(map, {
    set: { value: refuse },
    delete: { value: refuse },
    clear: { value: refuse },
  });
  return map;
}

describe('diffDocument: first publish', () => {
  const result = diff([], { drafts: draftsFor(geoEntry()), now: T0 });

  it('Given no tracked state, When the entry is first tracked, Then every item is added once at v1.0', () => {
    expect(result.changelog.map((c) => [c.itemId, c.kind, c.version])).toEqual(
      EN_IDS.map((id) => [id, 'added', 'v1.0']),
    );
    expect(result.changelog.map((c) => c.desc)).toEqual([
      "page 'A sitemap for AI' added",
      "section 'A sitemap for AI' added",
      "section 'Why classic sitemaps fail' added",
      "section 'Results' added",
      "table 'Results — table 1' added",
      "figure 'Agents read manifests' added",
    ]);
  });

  it('Given no tracked state, When first tracked, Then entries have no checksum before and the item checksum after', () => {
    const drafts = draftsFor(geoEntry());
    for (const [index, entry] of result.changelog.entries()) {
      expect(entry).toMatchObject({
        at: T0,
        checksumBefore: null,
        checksumAfter: drafts[index]!.checksum,
        sourceUid: UID,
        sourceDocument: DOC,
        lang: 'en',
      });
    }
  });

  it('Given no tracked state, When first tracked, Then each write must create its row (expectedRevision null) at revision 1', () => {
    expect(result.writes).toHaveLength(6);
    for (const write of result.writes) {
      expect(write.expectedRevision).toBeNull();
      expect(write.state).toMatchObject({
        revision: 1,
        removed: false,
        contentVersion: 1,
        metaVersion: 0,
        modified: PUBLISHED,
        firstPublished: PUBLISHED,
        history: [PUBLISHED],
        sourceUid: UID,
        sourceDocument: DOC,
      });
      expect(write.state.data.version).toBe('v1.0');
      expect(write.state.data.changelog).toEqual([
        {
          date: T0,
          version: 'v1.0',
          desc: result.changelog.find((c) => c.itemId === write.state.itemId)!.desc,
        },
      ]);
    }
    expect(
      stateOf(
        result.writes.map((w) => w.state),
        WHY,
      ),
    ).toMatchObject({ type: 'section', parent: PAGE, lang: 'en' });
  });
});

describe("diffDocument: 'added' entries kept in states", () => {
  const first = diff([], { drafts: draftsFor(geoEntry()), now: T0 });
  /** The first publish's states, each standing for its "added" entry (a first build's). */
  const implying: (TrackedState & { addedAt: string })[] = apply([], first.writes).map((state) => ({
    ...state,
    addedAt: T0,
  }));
  const implyingOf = (id: string) => implying.find((state) => state.itemId === id)!;

  it('Given a first publish with no reason, Then each entry is what its state implies, word for word', () => {
    expect(first.changelog.length).toBe(EN_IDS.length);
    for (const entry of first.changelog) {
      const state = implyingOf(entry.itemId);
      expect(impliedByState(entry, state)).toBe(true);
      expect(impliedAddedEntry(state)).toEqual(entry);
    }
  });

  it("Given an editor's reason at first publish, Then no entry is implied by its state", () => {
    const reasoned = diff([], { drafts: draftsFor(geoEntry()), now: T0, reasons: { en: 'Hi' } });
    const states = apply([], reasoned.writes);
    for (const entry of reasoned.changelog)
      expect(impliedByState(entry, stateOf(states, entry.itemId))).toBe(false);
  });

  it('Given states implying their entries, When re-published unchanged, Then nothing is written', () => {
    expect(diff(implying, { drafts: draftsFor(republished(T1)), now: T1 })).toEqual({
      writes: [],
      changelog: [],
      aliases: [],
    });
  });

  it("Given states implying their entries, When a section is edited, Then the changed items' entries are written out first and their states imply none", () => {
    const result = diff(implying, {
      drafts: draftsFor(republished(T1, withBody(EDITED_BODY))),
      now: T1,
    });
    const original = (id: string) => first.changelog.find((entry) => entry.itemId === id);
    expect(result.changelog).toEqual([
      original(PAGE),
      original(WHY),
      ...result.changelog.slice(2).map((entry) => ({ ...entry, kind: 'content' })),
    ]);
    expect(result.changelog.slice(2).map((entry) => entry.itemId)).toEqual([PAGE, WHY]);
    for (const write of result.writes) expect(write.state.addedAt).toBeUndefined();
    // the item's recent history still ends with its "added" entry
    const why = result.writes.find((write) => write.state.itemId === WHY)!;
    expect(why.state.data.changelog?.map((entry) => [entry.version, entry.date])).toEqual([
      ['v2.0', T1],
      ['v1.0', T0],
    ]);
  });

  it('Given states implying their entries, When a section is renamed, Then the old id writes its entry out and the new id implies none', () => {
    const renamedBody = GEO_BODY.replace(
      '## Why classic sitemaps fail',
      '## Why classic sitemaps fall short',
    );
    const result = diff(implying, {
      drafts: draftsFor(republished(T1, withBody(renamedBody))),
      now: T1,
    });
    expect(result.aliases.map((alias) => alias.oldId)).toEqual([WHY]);
    // (the page changed too: its entry is written out as well; the new id's state is a new row)
    const rewritten = result.writes.filter((w) => w.expectedRevision !== null);
    expect(rewritten.map((w) => w.state.itemId)).toEqual(expect.arrayContaining([PAGE, WHY]));
    expect(result.changelog.filter((entry) => entry.at === T0)).toEqual(
      first.changelog.filter((entry) => rewritten.some((w) => w.state.itemId === entry.itemId)),
    );
    for (const write of result.writes) expect(write.state.addedAt).toBeUndefined();
  });
});

describe('diffDocument: content and metadata changes', () => {
  const initial = firstPublish();

  it('Given tracked states, When the entry is re-published unchanged (only publishedAt moved), Then nothing is written', () => {
    const result = diff(initial, { drafts: draftsFor(republished(T1)), now: T1 });
    expect(result).toEqual({ writes: [], changelog: [], aliases: [] });
  });

  it("Given tracked states, When one section's text is edited, Then only that section and the page get content entries", () => {
    const drafts = draftsFor(republished(T1, withBody(EDITED_BODY)));
    const result = diff(initial, { drafts, now: T1 });
    // "They list URLs only." → "They list whole URLs, never passages."
    // common prefix "They list ", common suffix ". See the [protocol]…":
    // removed "URLs only" = 9 characters, inserted "whole URLs, never passages" = 26.
    expect(result.changelog.map((c) => [c.itemId, c.kind, c.version, c.desc])).toEqual([
      [PAGE, 'content', 'v2.0', "page 'A sitemap for AI' edited, +26/−9 characters"],
      [WHY, 'content', 'v2.0', "section 'Why classic sitemaps fail' edited, +26/−9 characters"],
    ]);
    for (const id of [PAGE, WHY]) {
      const entry = result.changelog.find((c) => c.itemId === id)!;
      expect(entry.checksumBefore).toBe(stateOf(initial, id).checksum);
      expect(entry.checksumAfter).toBe(drafts.find((d) => d.id === id)!.checksum);
      expect(entry.checksumAfter).not.toBe(entry.checksumBefore);
    }
    expect(result.writes.map((w) => w.state.itemId)).toEqual([PAGE, WHY]);
    const why = result.writes[1]!;
    expect(why.expectedRevision).toBe(1);
    expect(why.state).toMatchObject({
      revision: 2,
      contentVersion: 2,
      metaVersion: 0,
      modified: T1,
      firstPublished: PUBLISHED,
      history: [PUBLISHED, T1],
    });
    expect(why.state.content).toContain('They list whole URLs, never passages.');
    expect(why.state.data).toMatchObject({ version: 'v2.0', modified: T1 });
    // The stored item leaves its checksum to its row, the state's own
    expect(why.state.data.checksum).toBe(CHECKSUM_OF_ROW);
    expect(readStoredItem(why.state.data, why.state.checksum).checksum).toBe(
      checksumOf(why.state.content),
    );
  });

  it('Given a content change after a metadata change, When diffed, Then the content version rises and the metadata version resets', () => {
    const relicensed = apply(
      initial,
      diff(initial, {
        drafts: draftsFor(
          republished(T1, { metadata: { ...geoEntry().metadata, usage: { train: 'allow' } } }),
        ),
        now: T1,
      }).writes,
    );
    expect(stateOf(relicensed, WHY).data.version).toBe('v1.1');
    const edited = diff(relicensed, {
      drafts: draftsFor(
        republished(T2, {
          ...withBody(EDITED_BODY),
          metadata: { ...geoEntry().metadata, usage: { train: 'allow' } },
        }),
      ),
      now: T2,
    });
    expect(edited.changelog.map((c) => [c.itemId, c.version])).toEqual([
      [PAGE, 'v2.0'],
      [WHY, 'v2.0'],
    ]);
  });

  it('Given tracked states, When the entry licence and train usage change, Then every item gets a v1.1 metadata entry naming both', () => {
    const metadata = {
      ...geoEntry().metadata,
      license: 'https://example.com/license/cc-by-4.0',
      usage: { train: 'allow' as const },
    };
    const result = diff(initial, { drafts: draftsFor(republished(T1, { metadata })), now: T1 });
    expect(result.changelog.map((c) => [c.itemId, c.kind, c.version])).toEqual(
      EN_IDS.map((id) => [id, 'metadata', 'v1.1']),
    );
    const change =
      'license: https://example.com/license#tdm → https://example.com/license/cc-by-4.0; usage.train: deny → allow';
    expect(result.changelog[0]!.desc).toBe(`page 'A sitemap for AI': ${change}`);
    expect(result.changelog[4]!.desc).toBe(`table 'Results — table 1': ${change}`);
    for (const entry of result.changelog) {
      expect(entry.checksumBefore).toBe(stateOf(initial, entry.itemId).checksum);
      expect(entry.checksumAfter).toBe(entry.checksumBefore);
    }
    for (const write of result.writes) {
      expect(write.state).toMatchObject({
        contentVersion: 1,
        metaVersion: 1,
        modified: T1,
        history: [PUBLISHED],
        revision: 2,
      });
      expect(write.state.data).toMatchObject({
        license: 'https://example.com/license/cc-by-4.0',
        usage: { train: 'allow' },
        version: 'v1.1',
      });
    }
  });

  it('Given tracked states, When the topics change, Then the entries say the list changed', () => {
    const metadata = { ...geoEntry().metadata, topics: ['GEO', 'LLM', 'sitemaps'] };
    const result = diff(initial, { drafts: draftsFor(republished(T1, { metadata })), now: T1 });
    expect(result.changelog[2]).toMatchObject({
      itemId: WHY,
      kind: 'metadata',
      desc: "section 'Why classic sitemaps fail': topics changed",
    });
  });
});

describe('diffDocument: editor reasons', () => {
  const REASON = 'Clarify why URL-only sitemaps fall short';
  const initial = firstPublish();

  it("Given an editor reason for the locale, When content changes, Then the reason (trimmed) is every entry's desc and is kept on the page", () => {
    const result = diff(initial, {
      drafts: draftsFor(republished(T1, withBody(EDITED_BODY))),
      now: T1,
      reasons: { en: `  ${REASON}\n` },
    });
    expect(result.changelog.map((c) => [c.itemId, c.desc])).toEqual([
      [PAGE, REASON],
      [WHY, REASON],
    ]);
    expect(
      stateOf(
        result.writes.map((w) => w.state),
        PAGE,
      ).reason,
    ).toBe(REASON);
    expect(
      stateOf(
        result.writes.map((w) => w.state),
        WHY,
      ).reason,
    ).toBeUndefined();
    expect(
      stateOf(
        result.writes.map((w) => w.state),
        WHY,
      ).data.changelog![0],
    ).toEqual({ date: T1, version: 'v2.0', desc: REASON });
  });

  it('Given a reason already used, When the next change is published with the same reason, Then an automatic summary is written instead', () => {
    const afterFirst = apply(
      initial,
      diff(initial, {
        drafts: draftsFor(republished(T1, withBody(EDITED_BODY))),
        now: T1,
        reasons: { en: REASON },
      }).writes,
    );
    const body = EDITED_BODY.replace('| GPTBot | 41 |', '| GPTBot | 43 |');
    const result = diff(afterFirst, {
      drafts: draftsFor(republished(T2, withBody(body))),
      now: T2,
      reasons: { en: REASON },
    });
    expect(result.changelog.map((c) => [c.itemId, c.desc])).toEqual([
      [PAGE, "page 'A sitemap for AI' edited, +1/−1 characters"],
      [RESULTS, "section 'Results' edited, +1/−1 characters"],
      [TABLE, "table 'Results — table 1' edited, +1/−1 characters"],
    ]);
  });

  it('Given a new reason but no change, When diffed, Then only the page state is written (to remember it) and no changelog', () => {
    const result = diff(initial, {
      drafts: draftsFor(republished(T1)),
      now: T1,
      reasons: { en: REASON },
    });
    expect(result.changelog).toEqual([]);
    expect(result.writes).toHaveLength(1);
    const [write] = result.writes;
    expect(write!.expectedRevision).toBe(stateOf(initial, PAGE).revision);
    expect(write!.state).toMatchObject({
      itemId: PAGE,
      reason: REASON,
      revision: 2,
      contentVersion: 1,
      metaVersion: 0,
      modified: PUBLISHED,
    });
    // Remembered: an edit published later with that same reason is summarised automatically.
    const later = diff(apply(initial, result.writes), {
      drafts: draftsFor(republished(T2, withBody(EDITED_BODY))),
      now: T2,
      reasons: { en: REASON },
    });
    expect(later.changelog[0]!.desc).toBe("page 'A sitemap for AI' edited, +26/−9 characters");
  });

  it('Given a reason given at first publish, When the entry is then re-published unchanged with it, Then nothing is written', () => {
    const states = firstPublish({ en: 'First publication of the GEO index' });
    expect(stateOf(states, PAGE).reason).toBe('First publication of the GEO index');
    expect(
      diff(states, {
        drafts: draftsFor(republished(T1)),
        now: T1,
        reasons: { en: 'First publication of the GEO index' },
      }),
    ).toEqual({
      writes: [],
      changelog: [],
      aliases: [],
    });
  });

  it('Given a blank reason, When content changes, Then the automatic summary is used and the stored reason is kept', () => {
    const remembered = apply(
      initial,
      diff(initial, { drafts: draftsFor(republished(T1)), now: T1, reasons: { en: REASON } })
        .writes,
    );
    const result = diff(remembered, {
      drafts: draftsFor(republished(T2, withBody(EDITED_BODY))),
      now: T2,
      reasons: { en: '   ' },
    });
    expect(result.changelog[0]!.desc).toBe("page 'A sitemap for AI' edited, +26/−9 characters");
    expect(
      stateOf(
        result.writes.map((w) => w.state),
        PAGE,
      ).reason,
    ).toBe(REASON);
  });

  it('Given a page renamed and renamed back, When the same reason is published again, Then it is not reused whatever the state order', () => {
    const renamed = (slug: string, at: string): EntrySource =>
      republished(at, { slug, pathValues: { locale: 'en', slug } });
    const rename = 'Put the year in the URL';
    const back = 'Restore the original URL';
    let states = apply(
      initial,
      diff(initial, {
        drafts: draftsFor(renamed('geo-index-2025', T1)),
        now: T1,
        reasons: { en: rename },
      }).writes,
    );
    states = apply(
      states,
      diff(states, { drafts: draftsFor(renamed('geo-index', T2)), now: T2, reasons: { en: back } })
        .writes,
    );
    expect(
      states.filter((s) => s.type === 'article').map((s) => [s.itemId, s.removed, s.reason]),
    ).toEqual([
      [PAGE, false, back],
      ['article:geo-index-2025:en', true, rename],
    ]);
    for (const order of [states, [...states].reverse()]) {
      expect(
        diff(order, {
          drafts: draftsFor(renamed('geo-index', T3)),
          now: T3,
          reasons: { en: back },
        }),
      ).toEqual({ writes: [], changelog: [], aliases: [] });
      const edit = diff(order, {
        drafts: draftsFor({ ...renamed('geo-index', T3), ...withBody(EDITED_BODY) }),
        now: T3,
        reasons: { en: back },
      });
      expect(edit.changelog.map((c) => c.desc)).toEqual([
        "page 'A sitemap for AI' edited, +26/−9 characters",
        "section 'Why classic sitemaps fail' edited, +26/−9 characters",
      ]);
    }
  });
});

describe('lastRecordedReason', () => {
  const page = (
    itemId: string,
    lang: string,
    removed: boolean,
    reason: string | undefined,
  ): Pick<TrackedState, 'itemId' | 'type' | 'lang' | 'removed' | 'reason'> => ({
    itemId,
    type: 'article',
    lang,
    removed,
    reason,
  });

  it('Given a live page and an old slug’s removed page, When asked in any order, Then the live page’s reason is the recorded one', () => {
    const states = [
      page('article:geo-index-2025:en', 'en', true, 'Put the year in the URL'),
      page(PAGE, 'en', false, 'Restore the original URL'),
    ];
    expect(lastRecordedReason(states, 'en')).toBe('Restore the original URL');
    expect(lastRecordedReason([...states].reverse(), 'en')).toBe('Restore the original URL');
  });

  it('Given only removed pages, When asked, Then the last removed one’s reason is recorded; another locale’s never', () => {
    const states = [
      page('article:a:en', 'en', true, 'First'),
      page('article:b:en', 'en', true, 'Second'),
      page('article:b:sk', 'sk', false, 'Slovak'),
      { itemId: INTRO, type: 'section', lang: 'en', removed: false, reason: 'Not a page' },
    ];
    expect(lastRecordedReason(states, 'en')).toBe('Second');
    expect(lastRecordedReason(states, 'sk')).toBe('Slovak');
    expect(lastRecordedReason(states, 'de')).toBeUndefined();
  });

  it('Given the tracked states after a publish with a reason, When asked, Then it is that reason trimmed (what diffDocument compares the next one with)', () => {
    const states = firstPublish({ en: '  Initial publication ' });
    expect(lastRecordedReason(states, 'en')).toBe('Initial publication');
    expect(
      diff(states, {
        drafts: draftsFor(republished(T1)),
        now: T1,
        reasons: { en: 'Initial publication' },
      }),
    ).toEqual({ writes: [], changelog: [], aliases: [] });
  });
});

describe('diffDocument: removal and restore', () => {
  const initial = firstPublish();
  const removal = diff(initial, {
    drafts: draftsFor(republished(T1, withBody(BODY_WITHOUT_WHY))),
    now: T1,
  });
  const afterRemoval = apply(initial, removal.writes);

  it('Given a section deleted from the body, When diffed, Then it gets a removed entry with no checksum after', () => {
    expect(removal.changelog.map((c) => [c.itemId, c.kind])).toEqual([
      [PAGE, 'content'],
      [WHY, 'removed'],
    ]);
    expect(removal.changelog[1]).toEqual({
      itemId: WHY,
      at: T1,
      version: 'v1.0',
      kind: 'removed',
      desc: "section 'Why classic sitemaps fail' removed",
      checksumBefore: stateOf(initial, WHY).checksum,
      checksumAfter: null,
      sourceUid: UID,
      sourceDocument: DOC,
      lang: 'en',
    });
  });

  it('Given a section deleted, When diffed, Then its state is kept, marked removed, with its versions and history', () => {
    const write = removal.writes.find((w) => w.state.itemId === WHY)!;
    expect(write.expectedRevision).toBe(1);
    expect(write.state).toMatchObject({
      removed: true,
      revision: 2,
      contentVersion: 1,
      metaVersion: 0,
      history: [PUBLISHED],
      modified: T1,
    });
    expect(write.state.checksum).toBe(stateOf(initial, WHY).checksum);
    expect(write.state.history).not.toBe(stateOf(initial, WHY).history);
  });

  it('Given a removed section, When the entry is re-published still without it, Then nothing more is written for it', () => {
    const again = diff(afterRemoval, {
      drafts: draftsFor(republished(T2, withBody(BODY_WITHOUT_WHY))),
      now: T2,
    });
    expect(again).toEqual({ writes: [], changelog: [], aliases: [] });
  });

  it('Given a removed section, When it is added back, Then it is restored at the next content version with its history appended', () => {
    const drafts = draftsFor(republished(T2));
    const restore = diff(afterRemoval, { drafts, now: T2 });
    // The page gets back "## Why classic sitemaps fail" (28) + "\n\n" (2) + the paragraph (132) + "\n\n" (2) = 164.
    expect(restore.changelog.map((c) => [c.itemId, c.kind, c.version, c.desc])).toEqual([
      [PAGE, 'content', 'v3.0', "page 'A sitemap for AI' edited, +164/−0 characters"],
      [WHY, 'added', 'v2.0', "section 'Why classic sitemaps fail' restored"],
    ]);
    expect(restore.changelog[1]).toMatchObject({
      checksumBefore: null,
      checksumAfter: drafts.find((d) => d.id === WHY)!.checksum,
    });
    const write = restore.writes.find((w) => w.state.itemId === WHY)!;
    expect(write.expectedRevision).toBe(2);
    expect(write.state).toMatchObject({
      removed: false,
      revision: 3,
      contentVersion: 2,
      metaVersion: 0,
      firstPublished: PUBLISHED,
      history: [PUBLISHED, T2],
      modified: T2,
    });
    expect(write.state.data.version).toBe('v2.0');
  });
});

describe('diffDocument: locales', () => {
  const en = draftsFor(geoEntry());
  const sk = draftsFor(skEntry());
  const both = apply([], diff([], { drafts: [...en, ...sk], langs: ['en', 'sk'], now: T0 }).writes);
  const skIds = sk.map((d) => d.id);

  it('Given en and sk tracked, When only en was read (langs [en]), Then the sk states are left alone', () => {
    expect(skIds[0]).toBe('article:geo-index:sk');
    const result = diff(both, {
      drafts: draftsFor(republished(T1, withBody(EDITED_BODY))),
      langs: ['en'],
      now: T1,
    });
    expect(result.writes.map((w) => w.state.itemId)).toEqual([PAGE, WHY]);
    expect(result.changelog.every((c) => c.lang === 'en')).toBe(true);
  });

  it('Given en and sk tracked, When sk was read and is no longer published, Then every sk item is removed and en is untouched', () => {
    const result = diff(both, { drafts: en, langs: ['en', 'sk'], now: T1 });
    expect(result.changelog.map((c) => [c.itemId, c.kind])).toEqual(
      skIds.map((id) => [id, 'removed']),
    );
    expect(result.writes.every((w) => w.state.removed && w.state.lang === 'sk')).toBe(true);
  });

  it("Given a reason for en only, When sk changes, Then sk's entries are summarised automatically", () => {
    const edited = draftsFor(
      skEntry({
        bodies: [
          {
            field: 'body',
            format: 'markdown',
            value: SK_BODY.replace('iba adresy URL', 'iba adresy URL stránok'),
          },
        ],
      }),
    );
    const result = diff(both, {
      drafts: [...en, ...edited],
      langs: ['en', 'sk'],
      now: T1,
      reasons: { en: 'Clarify why URL-only sitemaps fall short' },
    });
    // "Uvádzajú iba adresy URL." → "Uvádzajú iba adresy URL stránok.": inserted " stránok" = 8 characters.
    expect(result.changelog.map((c) => [c.itemId, c.desc])).toEqual([
      ['article:geo-index:sk', "page 'Sitemapa pre AI' edited, +8/−0 characters"],
      [
        'article:geo-index:sk:preco-klasicke-sitemapy-nestacia',
        "section 'Prečo klasické sitemapy nestačia' edited, +8/−0 characters",
      ],
    ]);
    // The en page remembers its new reason although nothing of it changed.
    expect(result.writes.map((w) => [w.state.itemId, w.state.reason])).toContainEqual([
      PAGE,
      'Clarify why URL-only sitemaps fall short',
    ]);
  });
});

describe('diffDocument: cause', () => {
  const initial = firstPublish();
  const relicensedSite: SiteContext = {
    ...SITE,
    defaults: { ...SITE.defaults, license: 'https://example.com/license/v2#tdm' },
  };

  it('Given a cause and no reason, When the site licence changes, Then the automatic desc is prefixed with the cause', () => {
    const result = diff(initial, {
      drafts: draftsFor(geoEntry(), relicensedSite),
      now: T1,
      cause: 'site settings changed',
    });
    expect(result.changelog).toHaveLength(6);
    expect(result.changelog[0]!.desc).toBe(
      "site settings changed: page 'A sitemap for AI': license: https://example.com/license#tdm → https://example.com/license/v2#tdm",
    );
  });

  it('Given a cause, When an item is removed, Then its automatic desc is prefixed too', () => {
    const result = diff(initial, {
      drafts: draftsFor(geoEntry(withBody(BODY_WITHOUT_WHY))),
      now: T1,
      cause: 'content type settings changed',
    });
    expect(result.changelog.find((c) => c.kind === 'removed')!.desc).toBe(
      "content type settings changed: section 'Why classic sitemaps fail' removed",
    );
  });

  it('Given a cause and a fresh editor reason, When diffed, Then the reason is written unprefixed', () => {
    const result = diff(initial, {
      drafts: draftsFor(geoEntry(), relicensedSite),
      now: T1,
      cause: 'site settings changed',
      reasons: { en: 'Licence v2 adopted' },
    });
    expect(new Set(result.changelog.map((c) => c.desc))).toEqual(new Set(['Licence v2 adopted']));
  });
});

describe('diffDocument: the changelog shown on the item', () => {
  const initial = firstPublish();
  const drafts = draftsFor(republished(T1, withBody(EDITED_BODY)));
  const whyData = (recent: ChangelogEntry[]): ChangelogEntry[] =>
    diff(initial, { drafts, now: T1, recent: new Map([[WHY, recent]]) }).writes.find(
      (w) => w.state.itemId === WHY,
    )!.state.data.changelog!;

  it('Given recent entries, When a change is written, Then the new entry comes first, then the recent ones newest first', () => {
    const recent = [
      {
        date: '2025-10-30T10:00:00.000Z',
        version: 'v1.2',
        desc: 'Evidence link to RFC 9309 added',
      },
      { date: '2025-10-25T08:00:00.000Z', version: 'v1.1', desc: 'Topic LLM added' },
    ];
    expect(whyData(recent)).toEqual([
      {
        date: T1,
        version: 'v2.0',
        desc: "section 'Why classic sitemaps fail' edited, +26/−9 characters",
      },
      ...recent,
    ]);
  });

  it('Given entries around the 90-day limit, When written, Then only those of the last 90 days are kept', () => {
    // T1 − 90 days = 2025-08-05T14:30:00Z
    const inside = { date: '2025-08-05T15:00:00.000Z', version: 'v1.1', desc: 'Caption corrected' };
    const outside = { date: '2025-08-05T14:00:00.000Z', version: 'v1.0', desc: 'Section added' };
    expect(whyData([inside, outside]).map((e) => e.desc)).toEqual([
      "section 'Why classic sitemaps fail' edited, +26/−9 characters",
      'Caption corrected',
    ]);
  });

  it('Given many recent entries, When written, Then at most 10 are shown, the newest', () => {
    const recent = Array.from({ length: 14 }, (_, i) => ({
      date: new Date(Date.parse('2025-11-02T20:00:00.000Z') - i * 3_600_000).toISOString(),
      version: `v1.${14 - i}`,
      desc: `Evidence link ${14 - i} added`,
    }));
    const shown = whyData(recent);
    expect(shown).toHaveLength(ITEM_CHANGELOG_MAX);
    expect(shown[0]!.date).toBe(T1);
    expect(shown.slice(1).map((e) => e.desc)).toEqual(recent.slice(0, 9).map((e) => e.desc));
  });
});

describe('diffDocument: purity', () => {
  it('Given deep-frozen inputs, When a change, a removal, a restore and a reason are diffed, Then nothing is mutated', () => {
    const initial = deepFreeze(firstPublish());
    const snapshot = structuredClone(initial);
    const drafts = deepFreeze(
      draftsFor(republished(T1, withBody(EDITED_BODY.replace(/## Results[\s\S]*$/, '')))),
    );
    const recent = readOnlyMap([
      [WHY, [{ date: '2025-10-30T10:00:00.000Z', version: 'v1.0', desc: 'Evidence added' }]],
    ]);
    const reasons = deepFreeze({ en: 'Trim the results' });
    const input = deepFreeze({
      uid: UID,
      documentId: DOC,
      drafts,
      langs: ['en'],
      states: initial,
      reasons,
      recent,
      now: T1,
    });
    const removal = diffDocument(input);
    expect(removal.changelog.map((c) => c.kind)).toEqual([
      'content',
      'content',
      'removed',
      'removed',
    ]);
    expect(initial).toEqual(snapshot);
    const afterRemoval = deepFreeze(apply(initial, removal.writes));
    const restore = diffDocument(
      deepFreeze({
        ...input,
        drafts: deepFreeze(draftsFor(republished(T2))),
        states: afterRemoval,
        now: T2,
      }),
    );
    expect(restore.changelog.map((c) => [c.itemId, c.kind])).toEqual([
      [PAGE, 'content'],
      [WHY, 'content'],
      [RESULTS, 'added'],
      [TABLE, 'added'],
    ]);
    expect(recent.get(WHY)).toHaveLength(1);
  });
});

describe('characterDelta', () => {
  it.each([
    [
      'an edit inside a sentence',
      'They list URLs only.',
      'They list whole URLs, never passages.',
      26,
      9,
    ],
    ['identical text', 'Sitemaps were built for pages.', 'Sitemaps were built for pages.', 0, 0],
    ['text from nothing', '', 'New FAQ answer', 14, 0],
    ['text to nothing', 'Obsolete note', '', 0, 13],
    ['a diacritic replaced', 'Jana Novákova', 'Jana Nováková', 1, 1],
    [
      'Slovak words appended',
      'Sitemapy vznikli pre stránky.',
      'Sitemapy vznikli pre stránky, nie pre pasáže.',
      16,
      0,
    ],
    ['an emoji inserted next to an equal one', 'Agents 🤖 read', 'Agents 🤖🤖 read', 1, 0],
    ['an emoji replacing a word', 'Launch day', 'Launch 🚀', 1, 3],
    ['a repeated letter doubled', 'Tallin', 'Tallinn', 1, 0],
  ])(
    'Given %s, When compared, Then the inserted and deleted code points are counted',
    (_, before, after, added, removed) => {
      expect(characterDelta(before, after)).toEqual({ added, removed });
    },
  );

  it('Given any two texts, When compared, Then the counts are non-negative code points that explain the length change', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        (before, after) => {
          const { added, removed } = characterDelta(before, after);
          const a = [...before].length;
          const b = [...after].length;
          expect(added).toBeGreaterThanOrEqual(0);
          expect(removed).toBeGreaterThanOrEqual(0);
          expect(added).toBeLessThanOrEqual(b);
          expect(removed).toBeLessThanOrEqual(a);
          expect(b - a).toBe(added - removed);
        },
      ),
    );
  });

  it('Given a pure insertion (or deletion) anywhere, When compared, Then exactly its code points are counted', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
        fc.nat(),
        (text, inserted, at) => {
          const points = [...text];
          const cut = at % (points.length + 1);
          const longer = [...points.slice(0, cut), inserted, ...points.slice(cut)].join('');
          const size = [...inserted].length;
          expect(characterDelta(text, longer)).toEqual({ added: size, removed: 0 });
          expect(characterDelta(longer, text)).toEqual({ added: 0, removed: size });
        },
      ),
    );
  });
});

describe('metadataSummary', () => {
  const stored = firstPublish();
  const data = (id: string): ManifestItem => stateOf(stored, id).data;

  it('Given only volatile fields differ, When summarised, Then nothing specific is named', () => {
    const before = data(WHY);
    const after: ManifestItem = {
      ...before,
      checksum: 'sha256:0c1f6f1c1d1f2a4c1c2e5b9e1f0e3d4c5b6a7980a1b2c3d4e5f60718293a4b5c',
      version: 'v4.2',
      modified: T2,
      stability_score: 0.41,
      revisit_after: 'P7D',
      citation: {
        apa: 'Nováková, J. (2025). Why classic sitemaps fail (v4.2).',
        bibtex: '@online{x}',
      },
      changelog: [{ date: T2, version: 'v4.2', desc: 'Typo fixed' }],
      content_url:
        'https://cms2.example.com/api/sitemap-ai/fragments/article:geo-index:en:why-classic-sitemaps-fail/content',
      signals: { ...before.signals, first_published: T1 },
    };
    expect(metadataSummary(before, after)).toBe('metadata changed');
    expect(
      metadataSummary(before, {
        ...after,
        signals: { ...after.signals, author: 'Jana Nováková, Peter Horváth' },
      }),
    ).toBe('signals.author: Jana Nováková → Jana Nováková, Peter Horváth');
  });

  it('Given changed scalars and lists, When summarised, Then scalars read a.b: x → y (sorted) and lists read "changed" after them', () => {
    const before = data(TABLE);
    const after = {
      ...before,
      usage: {
        ...before.usage,
        train: 'allow' as const,
        redistribute: 'allow-with-citation' as const,
      },
      topics: ['GEO', 'LLM', 'sitemaps'],
      evidence: [],
      title: 'Results — crawler share by agent',
    };
    expect(metadataSummary(before, after)).toBe(
      'title: Results — table 1 → Results — crawler share by agent; usage.redistribute: deny → allow-with-citation; usage.train: deny → allow; evidence changed; topics changed',
    );
  });

  it('Given a field that appears and one that disappears, When summarised, Then the missing side reads (none)', () => {
    const before = data(PAGE);
    const translated = { ...before, alt_of: 'article:geo-index:sk' };
    expect(metadataSummary(before, translated)).toBe('alt_of: (none) → article:geo-index:sk');
    expect(metadataSummary(translated, before)).toBe('alt_of: article:geo-index:sk → (none)');
    expect(metadataSummary(before, { ...before, entity_ids: undefined })).toBe(
      'entity_ids changed',
    );
    expect(
      metadataSummary(before, { ...before, embedding_hint: { chunk: 'by_h3', max_tokens: 400 } }),
    ).toBe('embedding_hint.chunk: by_h2 → by_h3; embedding_hint.max_tokens: 800 → 400');
  });

  it('Given a long value, When summarised, Then it is cut to 60 characters', () => {
    const before = data(PAGE);
    const license =
      'https://example.com/legal/licences/text-and-data-mining-reservation-2025#tdm-rights';
    expect(metadataSummary(before, { ...before, license })).toBe(
      `license: https://example.com/license#tdm → ${license.slice(0, 57)}…`,
    );
  });

  it('Given more than six changes, When summarised, Then six are named and the rest elided', () => {
    const before = data(PAGE);
    const after = {
      ...before,
      title: 'GEO index 2025',
      license: 'https://example.com/license/v2',
      usage: { train: 'allow', infer: 'allow', cache: 'deny', redistribute: 'allow' } as const,
      embedding_hint: { chunk: 'whole' as const, max_tokens: 800 },
    };
    const summary = metadataSummary(before, after);
    expect(summary.split('; ')).toHaveLength(7);
    expect(summary.endsWith('; …')).toBe(true);
    expect(summary.startsWith('embedding_hint.chunk: by_h2 → whole; license: ')).toBe(true);
  });
});

describe('unchangedStates: the states a comparison never reads the texts of', () => {
  const initial = firstPublish();
  const afterRemoval = apply(
    initial,
    diff(initial, { drafts: draftsFor(republished(T1, withBody(BODY_WITHOUT_WHY))), now: T1 })
      .writes,
  );
  const renamedBody = GEO_BODY.replace(
    '## Why classic sitemaps fail',
    '## Why classic sitemaps fall short',
  );
  const licensed = (at: string) =>
    republished(at, {
      metadata: { ...geoEntry().metadata, license: 'CC-BY-SA-4.0' },
    });

  /** The state, its data and canonical text unreadable (a state whose texts were not read). */
  function unreadable(state: TrackedState): TrackedState {
    const copy = { ...state };
    for (const key of ['data', 'content'])
      Object.defineProperty(copy, key, {
        enumerable: true,
        get: () => {
          throw new Error(`the ${key} of ${state.itemId} was read`);
        },
      });
    return copy;
  }

  const runs: [string, readonly TrackedState[], Run][] = [
    ['re-published unchanged', initial, { drafts: draftsFor(republished(T1)), now: T1 }],
    [
      'a section edited',
      initial,
      { drafts: draftsFor(republished(T1, withBody(EDITED_BODY))), now: T1 },
    ],
    [
      'a section deleted',
      initial,
      { drafts: draftsFor(republished(T1, withBody(BODY_WITHOUT_WHY))), now: T1 },
    ],
    ['a removed section restored', afterRemoval, { drafts: draftsFor(republished(T2)), now: T2 }],
    [
      'a section renamed',
      initial,
      { drafts: draftsFor(republished(T1, withBody(renamedBody))), now: T1 },
    ],
    ['the licence changed', initial, { drafts: draftsFor(licensed(T1)), now: T1 }],
    [
      "a new editor's reason, nothing else",
      initial,
      { drafts: draftsFor(republished(T1)), now: T1, reasons: { en: 'Checked the figures' } },
    ],
    [
      'a reason and an edit',
      initial,
      {
        drafts: draftsFor(republished(T1, withBody(EDITED_BODY))),
        now: T1,
        reasons: { en: 'Clearer' },
      },
    ],
  ];

  it.each(runs)(
    'Given %s, When the states it leaves have unreadable texts, Then the comparison is the same',
    (_name, states, run) => {
      const unchanged = new Set(
        unchangedStates({ states, drafts: run.drafts, reasons: run.reasons ?? {} }),
      );
      const sealed = states.map((state) => (unchanged.has(state) ? unreadable(state) : state));
      // every item with a recent entry; the unchanged ones' not read (the tracker asks for none)
      const recent = new Map(
        states.map((state): [string, ChangelogEntry[]] => [
          state.itemId,
          [{ date: T0, version: 'v1.0', desc: `${state.itemId} noted` }],
        ]),
      );
      const unread = new Map(
        [...recent].filter(([id]) => ![...unchanged].some((s) => s.itemId === id)),
      );
      expect(diff(sealed, { ...run, recent: unread })).toEqual(diff(states, { ...run, recent }));
      // and none of them is written
      const written = new Set(diff(states, run).writes.map((w) => w.state.itemId));
      for (const state of unchanged) expect(written.has(state.itemId)).toBe(false);
    },
  );

  it('Given a re-publish with nothing changed, Then every state is unchanged; with one section edited, all but it and its page', () => {
    const ids = (run: Run) =>
      unchangedStates({ states: initial, drafts: run.drafts, reasons: run.reasons ?? {} }).map(
        (s) => s.itemId,
      );
    expect(ids(runs[0]![2])).toEqual(initial.map((s) => s.itemId));
    expect(ids(runs[1]![2])).toEqual(EN_IDS.filter((id) => id !== PAGE && id !== WHY));
  });

  it("Given a new editor's reason, Then the page's state is not unchanged (it is written to keep the reason); a removed section's never is", () => {
    const withReason = unchangedStates({
      states: initial,
      drafts: draftsFor(republished(T1)),
      reasons: { en: 'Checked the figures' },
    }).map((s) => s.itemId);
    expect(withReason).toEqual(EN_IDS.filter((id) => id !== PAGE));
    const removed = unchangedStates({
      states: afterRemoval,
      drafts: draftsFor(republished(T2)),
      reasons: {},
    }).map((s) => s.itemId);
    // (restoring the section changes the page's text too)
    expect(removed).toEqual(EN_IDS.filter((id) => id !== PAGE && id !== WHY));
  });
});
