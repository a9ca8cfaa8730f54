import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blobKey, encodeBlob } from '../../server/src/repositories/blob-codec';
import { encodeBodies } from '../../server/src/repositories/blob-encoder';
import { askThread, stopPluginThread, useDraftingFile } from '../../server/src/utils/plugin-thread';
import { draftingOnThread } from '../../server/src/utils/drafting-thread';
import { ARTICLE_TYPE, SITE, geoEntry } from './fixtures/entries';
import type { EntrySource } from '../../server/src/core/types';
import { documentDrafts, type SiteContext, type TypePolicy } from '../../server/src/core/items';

/**
 * Has the plugin's thread load a drafting module of the test's own (`source`, with a `checksumOf`
 * and the bundle's `blobKeyOfChecksum` given) for the tests of the describe that calls it.
 */
function useDraftingModule(source: string): void {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sai-thread-'));
    fs.writeFileSync(
      path.join(dir, 'drafting.js'),
      `const checksumOf = (content) =>
        'sha256:' + require('node:crypto').createHash('sha256').update(content).digest('hex');
      // (the real bundle exports core's, held to blobKey by tests/unit/canonical.test.ts)
      exports.blobKeyOfChecksum = (checksum) =>
        Buffer.from(checksum.slice(7, 39), 'hex').toString('base64url');
      ${source}`,
    );
    useDraftingFile(path.join(dir, 'drafting.js'));
  });
  afterEach(async () => {
    await stopPluginThread();
  });
  afterAll(() => {
    useDraftingFile(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * The order in which the plugin's thread answers (utils/plugin-thread.ts): texts to encode that
 * arrive while a batch is being drafted are answered between two of its documents, not after it.
 * The thread loads a drafting module of the test's own, whose documents each take a while and
 * which records what it was asked, so the order of the answers is the thread's, not a race.
 */
describe("the plugin's thread", () => {
  useDraftingModule(`exports.draftBatch = ({ id, documents }, between) => ({
    id,
    documents: documents.map((entries) => {
      const until = Date.now() + 40;
      while (Date.now() < until);
      const drafts = entries.map((entry) => ({
        id: entry.id,
        content: entry.content,
        checksum: checksumOf(entry.content),
      }));
      between(drafts);
      return { drafts, unfilled: [] };
    }),
  });`);

  const many = (n: number) => Array.from({ length: n }, (_, i) => `text ${i} `.repeat(20));

  it('Given texts asked while a batch drafts, Then they are answered before the batch, with the right bytes', async () => {
    const answered: string[] = [];
    const draft = askThread<{ documents: unknown[] }>({
      kind: 'draft',
      documents: Array.from({ length: 10 }, () => []),
    }).then((answer) => {
      answered.push('draft');
      return answer;
    });
    // (asked once the thread is drafting: its first document takes 40 ms)
    await new Promise((resolve) => setTimeout(resolve, 60));
    const texts = many(300);
    const bodies = encodeBodies(texts).then((encoded) => {
      answered.push('texts');
      return encoded;
    });
    const [drafted, encoded] = await Promise.all([draft, bodies]);
    expect(answered).toEqual(['texts', 'draft']);
    expect(drafted.documents).toHaveLength(10);
    encoded.forEach((body, i) => expect(body.equals(encodeBlob(texts[i]!))).toBe(true));
  });

  it('Given two batches asked at once and texts after them, Then the texts come first and the batches in the order asked', async () => {
    const answered: string[] = [];
    const ask = (name: string, documents: number) =>
      askThread({ kind: 'draft', documents: Array.from({ length: documents }, () => []) }).then(
        () => answered.push(name),
      );
    const first = ask('first', 4);
    const second = ask('second', 2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const texts = encodeBodies(many(300)).then(() => answered.push('texts'));
    await Promise.all([first, second, texts]);
    expect(answered).toEqual(['texts', 'first', 'second']);
  });

  it("Given a batch asked with its canonical texts encoded, Then each draft's text comes by its item's id with the key and body this thread would store", async () => {
    const documents = [
      [
        { id: 'a', content: 'First — résumé '.repeat(30) },
        { id: 'b', content: 'short' },
      ],
      [],
      [{ id: 'c', content: '## Heading\n\n| a | b |\n|---|---|\n'.repeat(10) }],
    ] as unknown as EntrySource[][];
    const made = await draftingOnThread({} as TypePolicy, {} as SiteContext, documents, {
      encodeContents: true,
    }).result();
    expect(made).not.toBeNull();
    expect(made!.documents.map(({ drafts }) => drafts.map((draft) => draft.id))).toEqual([
      ['a', 'b'],
      [],
      ['c'],
    ]);
    const contents = documents
      .flat()
      .map((entry) => (entry as unknown as { content: string }).content);
    expect([...made!.encoded.keys()]).toEqual(['a', 'b', 'c']);
    expect([...made!.encoded.values()].map(({ text }) => text)).toEqual(contents);
    for (const { text, key, body } of made!.encoded.values()) {
      expect(key).toBe(blobKey(text));
      expect(body.equals(encodeBlob(text))).toBe(true);
    }

    // (without the flag, nothing is encoded)
    const plain = await draftingOnThread({} as TypePolicy, {} as SiteContext, documents).result();
    expect(plain!.encoded.size).toBe(0);
  });
});

/**
 * A batch drafted from both ends (utils/drafting-thread.ts `draftingOnThread` with `shared`): the
 * thread from the first document, this thread from the last while it waits. The thread's module
 * here claims as the bundle's draftBatch does (tests/unit/drafting-batch.test.ts holds that one
 * to it) and, so that both sides surely draft, goes on past its first document only once this
 * thread has claimed the last; it answers each of its documents with one marked draft.
 */
describe('a batch drafted from both ends', () => {
  useDraftingModule(`exports.draftBatch = ({ id, documents, claims }, between) => {
    const last = documents.length - 1;
    return {
      id,
      documents: documents.map((entries, i) => {
        if (Atomics.compareExchange(claims, i, 0, 1) !== 0)
          return { drafts: [], unfilled: [], stolen: true };
        if (i === 0) {
          Atomics.notify(claims, 0);
          const until = Date.now() + 5000;
          while (Atomics.load(claims, last) === 0 && Date.now() < until);
        }
        const spin = Date.now() + 20;
        while (Date.now() < spin);
        const content = 'made on the thread ' + i;
        const drafts = [{ id: 'thread:' + i, content, checksum: checksumOf(content) }];
        between(drafts);
        return { drafts, unfilled: [] };
      }),
    };
  };`);

  it('Given a batch awaited while the thread drafts it, Then each document is drafted once, by one side, in its place, and this side drafts as the bundle does', async () => {
    const documents = Array.from({ length: 12 }, (_, i) => [
      geoEntry({
        documentId: `doc-${i}`,
        pathValues: { locale: 'en', slug: `page-${i}` },
      }),
    ]);
    const drafting = draftingOnThread(ARTICLE_TYPE, SITE, documents, { shared: true });
    const made = await drafting.result();
    expect(made).not.toBeNull();
    expect(made!.documents).toHaveLength(documents.length);
    const here = made!.documents.map((document) => document.here === true);
    // (the thread drafted the first, this thread the last)
    expect(here[0]).toBe(false);
    expect(here[documents.length - 1]).toBe(true);
    // one boundary: the thread's documents first, then this thread's
    expect(here).toEqual([...here].sort((a, b) => Number(a) - Number(b)));
    made!.documents.forEach((document, i) => {
      if (document.here)
        expect(document.drafts).toEqual(documentDrafts(documents[i]!, ARTICLE_TYPE, SITE).drafts);
      else expect(document.drafts.map((draft) => draft.id)).toEqual([`thread:${i}`]);
    });
    expect(made!.encoded.size).toBe(0);
  });

  it("Given a first build's batch, Then the canonical texts drafted on this side come keyed and encoded as the thread's would", async () => {
    const documents = Array.from({ length: 4 }, (_, i) => [
      geoEntry({ documentId: `doc-${i}`, pathValues: { locale: 'en', slug: `page-${i}` } }),
    ]);
    const made = await draftingOnThread(ARTICLE_TYPE, SITE, documents, {
      shared: true,
      encodeContents: true,
    }).result();
    const mine = made!.documents.filter((document) => document.here);
    expect(mine.length).toBeGreaterThan(0);
    for (const { drafts } of mine)
      for (const draft of drafts) {
        const { text, key, body } = made!.encoded.get(draft.id)!;
        expect(text).toBe(draft.content);
        expect(key).toBe(blobKey(text));
        expect(body.equals(encodeBlob(text))).toBe(true);
      }
  });
});
