import { describe, expect, it } from 'vitest';
import { documentDrafts } from '../../server/src/core/items';
import {
  MAIN,
  THREAD,
  claim,
  draftBatch,
  stateKey,
  type ThinDraft,
} from '../../server/src/workers/drafting';
import { diffDocument, type UntrackedDiffInput } from '../../server/src/core/tracking';
import { wholeOrGuarded } from '../../server/src/utils/drafting-thread';
import type { ItemDraft } from '../../server/src/core/types';
import { ARTICLE_TYPE, SITE, geoEntry } from './fixtures/entries';

/**
 * What the plugin's thread answers for a batch to draft (workers/drafting.ts): core's drafts of
 * each document, in order, with its unplaceable entries as positions the main thread maps back.
 * (That the thread runs it from the package's bundle, and drafts what the main thread drafts, is
 * checked through the built server: tests/integration/first-build.test.ts.)
 */
describe('draftBatch', () => {
  const en = geoEntry();
  const sk = geoEntry({
    lang: 'sk',
    title: 'Sitemapa pre AI',
    pathValues: { locale: 'sk', slug: 'geo-index' },
  });
  /** An entry whose path pattern cannot be filled (no slug): left out of its document. */
  const unplaceable = geoEntry({ documentId: 'other-doc', pathValues: { locale: 'en' } });

  it('Given documents of several locales and an entry that cannot be placed, Then each answer is what documentDrafts gives, its entries by position', () => {
    const documents = [[en, sk], [unplaceable], [en]];
    const answer = draftBatch({
      kind: 'draft',
      id: 7,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents,
    });
    expect(answer.id).toBe(7);
    expect(answer.error).toBeUndefined();
    expect(answer.documents).toHaveLength(3);
    answer.documents!.forEach(({ drafts, unfilled }, i) => {
      const expected = documentDrafts(documents[i]!, ARTICLE_TYPE, SITE);
      expect(drafts).toEqual(expected.drafts);
      expect(unfilled.map((position) => documents[i]![position])).toEqual(expected.unfilled);
    });
    expect(answer.documents![0]!.drafts.length).toBeGreaterThan(5);
    expect(answer.documents![1]).toEqual({ drafts: [], unfilled: [0] });
  });

  it('Given documents the main thread claimed first, Then the thread answers them stolen and drafts and claims the rest', () => {
    const documents = [[en, sk], [en], [sk], [en]];
    const claims = new Int32Array(new SharedArrayBuffer(4 * documents.length));
    // (the main thread drafts from the last back)
    expect(claim(claims, 3, MAIN)).toBe(true);
    expect(claim(claims, 2, MAIN)).toBe(true);
    const answer = draftBatch({
      kind: 'draft',
      id: 12,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents,
      claims,
    });
    expect([...claims]).toEqual([THREAD, THREAD, MAIN, MAIN]);
    expect(answer.documents!.slice(2)).toEqual([
      { drafts: [], unfilled: [], stolen: true },
      { drafts: [], unfilled: [], stolen: true },
    ]);
    answer.documents!.slice(0, 2).forEach(({ drafts, stolen }, i) => {
      expect(stolen).toBeUndefined();
      expect(drafts).toEqual(documentDrafts(documents[i]!, ARTICLE_TYPE, SITE).drafts);
    });
    // A document is claimed once: by neither side again
    expect(claim(claims, 0, MAIN)).toBe(false);
    expect(claim(claims, 3, THREAD)).toBe(false);
  });

  it('Given a batch whose drafting throws, Then the answer says why and carries no drafts', () => {
    const broken = { ...en, bodies: null } as unknown as typeof en;
    const answer = draftBatch({
      kind: 'draft',
      id: 8,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents: [[en], [broken]],
    });
    expect(answer.id).toBe(8);
    expect(answer.documents).toBeUndefined();
    expect(answer.error).toEqual(expect.any(String));
  });

  it('Given the keys of unchanged states, Then only the drafts that match their key are answered thin, with every field the comparison reads', () => {
    const whole = documentDrafts([en], ARTICLE_TYPE, SITE).drafts;
    const [page, first, second] = whole;
    const unchanged = new Map([
      [page!.id, stateKey(page!)],
      [first!.id, stateKey(first!)],
      // (the state of `second` was made from other content: its draft stays whole)
      [second!.id, stateKey({ checksum: `sha256:${'0'.repeat(64)}`, metaHash: second!.metaHash })],
    ]);
    const answer = draftBatch({
      kind: 'draft',
      id: 9,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents: [[en]],
      unchanged: [{ keys: unchanged, whole: true }],
    });
    const drafts = answer.documents![0]!.drafts;
    expect(drafts.map((d) => d.id)).toEqual(whole.map((d) => d.id));
    for (const [i, draft] of drafts.entries()) {
      const expected = whole[i]!;
      if (i < 2) {
        const { id, type, lang, parent, sourceUid, documentId, checksum, metaHash } = expected;
        expect(draft).toEqual({
          id,
          type,
          lang,
          ...(parent === undefined ? {} : { parent }),
          sourceUid,
          documentId,
          checksum,
          metaHash,
          sourceModified: expected.sourceModified,
          thin: true,
        });
      } else expect(draft).toEqual(expected);
    }
  });

  it('Given every state of a document and drafts that match them all, Then the document is answered settled, without drafts; with a state left out or one more, it is not', () => {
    const whole = documentDrafts([en, sk], ARTICLE_TYPE, SITE).drafts;
    const all = new Map(whole.map((draft) => [draft.id, stateKey(draft)]));
    const ask = (keys: ReadonlyMap<string, string>, wholeKeys: boolean) =>
      draftBatch({
        kind: 'draft',
        id: 11,
        policy: ARTICLE_TYPE,
        site: SITE,
        documents: [[en, sk, unplaceable]],
        unchanged: [{ keys, whole: wholeKeys }],
      }).documents![0]!;

    // (its unplaceable entry is still told)
    expect(ask(all, true)).toEqual({ drafts: [], unfilled: [2], settled: whole.length });
    // Not when the keys are not all of its states (a page left out for an editor's reason)
    const notAll = ask(all, false);
    expect(notAll.settled).toBeUndefined();
    expect(notAll.drafts).toHaveLength(whole.length);
    expect(notAll.drafts.every((draft) => 'thin' in draft)).toBe(true);
    // Nor when a state has no draft any more (its item is removed)
    const more = ask(new Map([...all, ['article:gone:en#old', 'x y']]), true);
    expect(more.settled).toBeUndefined();
    expect(more.drafts.every((draft) => 'thin' in draft)).toBe(true);
    // Nor when one draft differs from its state (written again)
    const [first] = whole;
    const changed = ask(
      new Map([...all, [first!.id, stateKey({ ...first!, metaHash: 'other' })]]),
      true,
    );
    expect(changed.settled).toBeUndefined();
    expect(changed.drafts.filter((draft) => !('thin' in draft))).toEqual([first]);
  });

  it("Given keys of another document's states, Then a document's drafts are matched only with its own", () => {
    const drafts = documentDrafts([en], ARTICLE_TYPE, SITE).drafts;
    const keys = new Map(drafts.map((draft) => [draft.id, stateKey(draft)]));
    const answer = draftBatch({
      kind: 'draft',
      id: 12,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents: [[en], [en]],
      unchanged: [
        { keys: new Map(), whole: true },
        { keys, whole: true },
      ],
    });
    expect(answer.documents![0]).toEqual({ drafts, unfilled: [] });
    expect(answer.documents![1]).toEqual({ drafts: [], unfilled: [], settled: drafts.length });
  });

  it('Given a thin draft on the main thread, Then reading its item, text or citation throws instead of answering undefined', () => {
    const [draft] = documentDrafts([en], ARTICLE_TYPE, SITE).drafts;
    const { checksum, metaHash } = draft!;
    const answer = draftBatch({
      kind: 'draft',
      id: 10,
      policy: ARTICLE_TYPE,
      site: SITE,
      documents: [[en]],
      unchanged: [{ keys: new Map([[draft!.id, stateKey(draft!)]]), whole: false }],
    });
    const thin = answer.documents![0]!.drafts[0] as ThinDraft;
    expect(thin.thin).toBe(true);
    const guarded = wholeOrGuarded(thin);
    expect(guarded.checksum).toBe(checksum);
    expect(guarded.metaHash).toBe(metaHash);
    expect(() => guarded.item).toThrow(/without its item/);
    expect(() => guarded.content).toThrow(/without its item/);
    expect(() => guarded.citationInput).toThrow(/without its item/);
    expect(() => ({ ...guarded })).toThrow(/without its item/);
    const full: ItemDraft = draft!;
    expect(wholeOrGuarded(full)).toBe(full);
  });

  it('Given fresh documents (no state) to compare, Then they are answered with the states the tracker would write, each stamped with the policy, keeping the "added" entry it implies, their data cut to what the main thread reads', () => {
    const documents = [
      [en, sk],
      [unplaceable],
      [geoEntry({ metadata: { ...en.metadata, reason: 'First cut' } })],
    ];
    const input: UntrackedDiffInput = {
      uid: 'api::article.article',
      langs: ['en', 'sk'],
      now: '2026-12-06T10:00:00.000Z',
      print: 'print-1',
    };
    const written: unknown[] = [];
    const answer = draftBatch(
      {
        kind: 'draft',
        id: 3,
        policy: ARTICLE_TYPE,
        site: SITE,
        documents,
        encodeContents: true,
        fresh: { input, documentIds: [en.documentId, null, en.documentId] },
      },
      (drafts, writes) => written.push(writes ? writes.map((w) => w.state.data) : drafts.length),
    );
    expect(answer.error).toBeUndefined();
    // (a document not fresh is answered its drafts, as ever)
    expect(answer.documents![1]).toEqual({ drafts: [], unfilled: [0] });
    expect(written[1]).toBe(0);
    for (const i of [0, 2]) {
      const entries = documents[i]!;
      const { drafts } = documentDrafts(entries, ARTICLE_TYPE, SITE);
      const expected = diffDocument({
        uid: input.uid,
        documentId: en.documentId,
        drafts,
        langs: input.langs,
        states: [],
        reasons: Object.fromEntries(entries.map((e) => [e.lang, e.metadata.reason])),
        recent: new Map(),
        now: input.now,
      });
      const answered = answer.documents![i]!;
      expect(answered.drafts).toEqual([]);
      // the "added" entries a state implies kept in it, the others (an editor's reason) entries
      const kept = new Map(
        expected.changelog
          .filter((entry) => entry.desc.endsWith(' added'))
          .map((entry) => [entry.itemId, entry.at]),
      );
      // (none of the document whose entry brings an editor's reason: each entry says it)
      expect(kept.size).toBe(i === 0 ? drafts.length : 0);
      expect(answered.diff!.changelog).toEqual(
        expected.changelog.filter((entry) => !entry.desc.endsWith(' added')),
      );
      expect(answered.diff!.writes).toHaveLength(drafts.length);
      // `between` is given the whole data of each state, the answer only what the main thread reads
      expect(written[i]).toEqual(expected.writes.map((w) => w.state.data));
      answered.diff!.writes.forEach((write, k) => {
        const whole = expected.writes[k]!.state;
        const { title, url, license, usage, signals } = whole.data;
        const at = kept.get(whole.itemId);
        expect(write.state).toEqual({
          ...whole,
          policyPrint: 'print-1',
          ...(at === undefined ? {} : { addedAt: at }),
          data: { title, url, license, usage, signals: { canonical: signals!.canonical } },
        });
      });
    }
    expect(answer.documents![0]!.diff!.changelog).toEqual([]);
    const reasoned = answer.documents![2]!.diff!;
    expect(new Set(reasoned.changelog.map((entry) => entry.desc))).toEqual(new Set(['First cut']));
    expect(reasoned.writes.filter((w) => w.state.addedAt !== undefined)).toEqual([]);
  });
});
