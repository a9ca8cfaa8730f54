/**
 * The client kit (`strapi-plugin-sitemap-ai/client` and the `sitemap-ai` CLI) against the booted
 * playground over real HTTP: a mirror that fetches each content once, an edit that costs exactly
 * the changed contents, a killed sync that resumes, an export equal to what the site serves, and
 * the CLI as a child process.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  EXPORT_DOCUMENTS,
  SitemapAiClient,
  exportSite,
  fileNameForId,
  syncMirror,
  type FetchLike,
} from '../../client/src/client';
import { API, crawl } from '../helpers/manifest';
import { ROOT, bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const ARTICLE = 'api::article.article';
const CLI = path.join(ROOT, 'bin', 'sitemap-ai.js');

const sha = (bytes: Buffer | string) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A fetch that records every content request it passes on. */
function countingFetch() {
  const contents: string[] = [];
  const fetchImpl: FetchLike = (url, init) => {
    if (new URL(url).pathname.endsWith('/content')) contents.push(url);
    return fetch(url, init);
  };
  return { contents, fetchImpl };
}

/** The mirror's view: id → checksum of the file on disk, from index.jsonl. */
function mirrored(out: string): Map<string, string> {
  const result = new Map<string, string>();
  const lines = readFileSync(path.join(out, 'index.jsonl'), 'utf8').trim().split('\n');
  for (const line of lines) {
    const entry = JSON.parse(line) as { id: string; file: string; checksum: string };
    expect(entry.file).toBe(`content/${fileNameForId(entry.id)}.md`);
    const onDisk = sha(readFileSync(path.join(out, entry.file)));
    expect(onDisk, entry.id).toBe(entry.checksum);
    result.set(entry.id, onDisk);
  }
  return result;
}

function runCli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    // Asynchronous: the site answering the CLI runs in this very process.
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.each(testDatabases())('the client kit against the playground on %s', (db) => {
  let app: TestApp;
  let base: string;
  let out: string;

  type Doc = { documentId: string; body: string; sitemapAi?: Record<string, unknown> | null };
  const articles = () =>
    app.strapi.documents(ARTICLE as never) as unknown as {
      findFirst(params: object): Promise<Doc | null>;
      update(params: object): Promise<Doc>;
      publish(params: object): Promise<unknown>;
    };
  const rebuild = () =>
    app.strapi.plugin('sitemap-ai').service('snapshot-builder').rebuild({ trigger: 'test' });
  const editArticle = async (slug: string, edit: { paragraph?: string; topics?: string[] }) => {
    const doc = await articles().findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
    if (!doc) throw new Error(`no seed article ${slug}`);
    await articles().update({
      documentId: doc.documentId,
      locale: 'en',
      data: edit.paragraph
        ? { body: `${doc.body}\n\n${edit.paragraph}` }
        : { sitemapAi: { ...(doc.sitemapAi ?? {}), topics: edit.topics } },
    });
    await articles().publish({ documentId: doc.documentId, locale: 'en' });
    await rebuild();
  };
  const checksums = async () =>
    new Map((await crawl(app.http)).items.map((item) => [item.id, item.checksum]));

  beforeAll(async () => {
    app = await bootPlayground(db);
    const server = app.strapi.server.httpServer;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  beforeEach(() => {
    out = mkdtempSync(path.join(os.tmpdir(), 'sitemap-ai-kit-'));
  });

  afterEach(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it('mirrors every item once with verified checksums, and after edits fetches exactly the contents that changed', async () => {
    // Given the published site
    const before = await checksums();
    const itemsBefore = new Map(
      (await crawl(app.http)).items.map((i) => [i.id, JSON.stringify(i)]),
    );
    const first = countingFetch();
    const client = new SitemapAiClient({ baseUrl: base, fetch: first.fetchImpl });

    // When it is mirrored
    const result = await syncMirror({ client, out, limit: 40 });

    // Then every item is there once, its file hashing to its checksum
    expect(result.mode).toBe('full');
    expect(result.fetched).toBe(before.size);
    expect(first.contents).toHaveLength(before.size);
    expect(new Set(first.contents).size).toBe(before.size);
    expect(mirrored(out)).toEqual(before);

    // When one article's text is edited, another's metadata only, and the site rebuilds
    await editArticle('geo-index', { paragraph: 'A paragraph added by the client-kit test.' });
    await editArticle('tdm-licensing', { topics: ['TDM', 'client kit'] });
    const after = await checksums();
    const itemsAfter = new Map((await crawl(app.http)).items.map((i) => [i.id, JSON.stringify(i)]));
    const changed = [...after].filter(([id, sum]) => before.get(id) !== sum).map(([id]) => id);
    const metadataOnly = [...itemsAfter].filter(
      ([id, json]) => before.get(id) === after.get(id) && itemsBefore.get(id) !== json,
    );
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.size / 4);
    expect(metadataOnly.length).toBeGreaterThan(0);

    // Then the next sync reads the delta and fetches the changed contents only
    const second = countingFetch();
    const again = await syncMirror({
      client: new SitemapAiClient({ baseUrl: base, fetch: second.fetchImpl }),
      out,
    });
    expect(again.mode).toBe('delta');
    expect(again.items).toBe(changed.length + metadataOnly.length);
    expect(again.metadataOnly).toBe(metadataOnly.length);
    const fetchedIds = second.contents
      .map((url) => decodeURIComponent(new URL(url).pathname.split('/').at(-2)!))
      .sort();
    expect(fetchedIds).toEqual([...changed].sort());
    expect(again.fetched).toBe(changed.length);
    expect(mirrored(out)).toEqual(after);
    // The index carries the new metadata.
    const index = readFileSync(path.join(out, 'index.jsonl'), 'utf8').trim().split('\n');
    const tdm = index.map((l) => JSON.parse(l) as { id: string; topics?: string[] });
    expect(tdm.find((i) => i.id === 'article:tdm-licensing:en')?.topics).toContain('client kit');
  });

  it('resumes a sync killed in the middle without fetching a finished content again', async () => {
    const total = (await checksums()).size;
    const killedAfter = 30;
    const firstRun: string[] = [];
    const dying: FetchLike = (url, init) => {
      if (new URL(url).pathname.endsWith('/content')) {
        if (firstRun.length === killedAfter) throw new Error('killed by the test');
        firstRun.push(url);
      }
      return fetch(url, init);
    };
    // When the run dies after 30 contents (pages of 25: one page saved, 5 contents beyond it)
    await expect(
      syncMirror({
        client: new SitemapAiClient({ baseUrl: base, fetch: dying }),
        out,
        limit: 25,
        concurrency: 1,
      }),
    ).rejects.toThrow(/killed by the test/);
    const state = JSON.parse(readFileSync(path.join(out, 'state.json'), 'utf8')) as {
      since: string | null;
      items: object;
    };
    expect(state.since).toBeNull();
    expect(Object.keys(state.items)).toHaveLength(25);

    // Then the next run fetches only what the first did not
    const resumed = countingFetch();
    const result = await syncMirror({
      client: new SitemapAiClient({ baseUrl: base, fetch: resumed.fetchImpl }),
      out,
      limit: 25,
    });
    expect(resumed.contents.filter((url) => firstRun.includes(url))).toEqual([]);
    expect(resumed.contents).toHaveLength(total - killedAfter);
    expect(result).toMatchObject({ fetched: total - killedAfter, adopted: 5 });
    expect(mirrored(out).size).toBe(total);
  });

  it('exports the manifest pages and the documents byte for byte as the site serves them, and keeps them on a 304', async () => {
    const client = new SitemapAiClient({ baseUrl: base });
    const result = await exportSite({ client, out, limit: 100 });
    expect(result.missing).toEqual([]);
    for (const name of EXPORT_DOCUMENTS) {
      const served = await app.http
        .get(`${API}/${name}`)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(served.status, name).toBe(200);
      expect(readFileSync(path.join(out, name)).equals(served.body as Buffer), name).toBe(true);
    }
    const { pages } = await crawl(app.http, { limit: '100' });
    expect(result.pages).toBe(pages.length);
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, i) => {
      expect(
        JSON.parse(readFileSync(path.join(out, `manifest/page-${i + 1}.json`), 'utf8')),
      ).toEqual(page);
    });
    const index = JSON.parse(readFileSync(path.join(out, 'manifest/index.json'), 'utf8')) as {
      pages: { file: string; page_token: string | null }[];
    };
    expect(index.pages.map((p) => p.page_token)).toEqual([
      null,
      ...pages.slice(0, -1).map((p) => p.next_page_token),
    ]);

    // A second export asks with the ETags it kept: the documents come back 304 and stay.
    const again = await exportSite({ client, out, limit: 100 });
    expect([...again.unchanged].sort()).toEqual([...EXPORT_DOCUMENTS].sort());
  });

  it('runs as a command: sync into a folder, again with nothing to fetch, and clear exit codes', async () => {
    const total = (await checksums()).size;
    const first = await runCli(['sync', base, '--out', out]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`full to snapshot \\d+: ${total} items read, ${total} contents fetched`),
    );
    expect(readdirSync(path.join(out, 'content'))).toHaveLength(total);
    expect(mirrored(out).size).toBe(total);

    const second = await runCli(['sync', `${base}/api/sitemap-ai`, '--out', out]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/delta to snapshot \d+: 0 items read, 0 contents fetched/);

    const quiet = await runCli(['sync', base, '--out', out, '--quiet']);
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });

    const usage = await runCli(['sync', base]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--out <dir> is missing[\s\S]*Usage: sitemap-ai/);

    const unreachable = await runCli([
      'export',
      'http://127.0.0.1:9',
      '--out',
      path.join(out, 'x'),
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /sitemap-ai export: http:\/\/127\.0\.0\.1:9\/api\/sitemap-ai\/.*fetch failed/,
    );
    expect(existsSync(path.join(out, 'x', 'manifest'))).toBe(false);
  });
});
