import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';
import { crawl } from '../helpers/manifest';
import { changelogEntries } from '../helpers/stored';
import { createLockRepository } from '../../server/src/repositories/lock-repository';

const TICK_SECONDS = 2;
const SCHEDULE = { SITEMAP_AI_SCHEDULE: 'true', SITEMAP_AI_CRON: `*/${TICK_SECONDS} * * * * *` };

function waitFor(line: string, output: string[], timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`instance B did not print "${line}": ${output.join('')}`)),
      timeoutMs,
    );
    const check = () => {
      if (
        output
          .join('')
          .split('\n')
          .some((l) => l.trim() === line)
      ) {
        clearTimeout(timer);
        resolve();
      } else setTimeout(check, 100);
    };
    check();
  });
}

/** Every changelog entry of the database (item, version, kind): rows and those states imply. */
async function changelogRows(app: TestApp) {
  return changelogEntries(app.strapi);
}

interface ReadParams {
  sort?: unknown;
  status?: unknown;
  populate?: unknown;
  filters?: { documentId?: { $in?: unknown[] } };
}

/**
 * Hold the first read of articles through `app`'s document service that `matches`, once it has
 * returned, until `release` is called: how a test places another instance's work at one point of
 * this one's, the same on every run.
 */
function holdArticleRead(app: TestApp, matches: (params: ReadParams) => boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let gate = true;
  app.strapi.documents.use(async (context, next) => {
    const result = await next();
    if (
      gate &&
      context.uid === 'api::article.article' &&
      context.action === 'findMany' &&
      matches(context.params as ReadParams)
    ) {
      gate = false;
      held();
      await released;
    }
    return result;
  });
  return { holding, release };
}

/** Changes marked and not recorded yet. */
const marks = (app: TestApp) => app.strapi.db.query('plugin::sitemap-ai.dirty-mark').count();

/** Wait until at most `count` changes are left marked (another instance has recorded its own). */
async function untilMarksAtMost(app: TestApp, count: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; (await marks(app)) > count;) {
    if (Date.now() > deadline) throw new Error('instance B did not record its publishes');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The served contents of the pages `ids` once every one holds `tag` and nothing is left marked,
 * or as they are after 30 s: both instances' schedules build (either may hold the build lock
 * when this one asks), so the test waits for the manifest rather than for one build.
 */
async function servedOnceRecorded(app: TestApp, ids: string[], tag: string): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { items } = await crawl(app.http, { limit: '1000' });
    const contents = await Promise.all(
      ids.map(async (id) => {
        const page = items.find((i) => i.id === id)!;
        return (await app.http.get(new URL(page.content_url).pathname).buffer(true)).text;
      }),
    );
    const done = contents.every((c) => c.includes(tag));
    if ((done && (await marks(app)) === 0) || Date.now() > deadline) return contents;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe.each(testDatabases().filter((client) => client !== 'sqlite'))(
  'two Strapi instances on one %s database',
  (client) => {
    let a: TestApp;
    let b: ChildProcessWithoutNullStreams;
    const output: string[] = [];
    const children: ChildProcessWithoutNullStreams[] = [];

    /** Instance B on A's database, its output collected in `into`. */
    function spawnB(into: string[]): ChildProcessWithoutNullStreams {
      const child = spawn(
        process.execPath,
        [path.join(__dirname, '..', 'helpers', 'instance.cjs')],
        {
          env: {
            ...process.env,
            ...a.database.env,
            ...SCHEDULE,
            LOG_LEVEL: 'error',
            NODE_ENV: 'test',
            SITEMAP_AI_RATE_LIMIT_MAX: '1000000',
            SLUGS: 'tdm-licensing,stability-scores-explained',
          },
        },
      );
      child.stdout.on('data', (chunk: Buffer) => into.push(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => into.push(chunk.toString()));
      children.push(child);
      return child;
    }

    beforeAll(async () => {
      a = await bootPlayground(client, { env: SCHEDULE });
      b = spawnB(output);
      await waitFor('ready', output);
    });

    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
      await a?.close();
    });

    it('builds at most one snapshot per tick and loses or duplicates no change under concurrent publishes on both', async () => {
      const start = await a.strapi.plugin('sitemap-ai').service('manifest').current();
      const documents = a.strapi.documents('api::article.article' as never) as unknown as {
        findFirst(p: object): Promise<{ documentId: string; body: string }>;
        update(p: object): Promise<unknown>;
        publish(p: object): Promise<unknown>;
      };
      // When both instances publish at the same time while both schedules tick
      b.stdin.write('go\n');
      await Promise.all(
        ['geo-index', 'measuring-ai-crawler-ingest'].map(async (slug) => {
          const doc = await documents.findFirst({
            filters: { slug },
            locale: 'en',
            status: 'draft',
          });
          await documents.update({
            documentId: doc.documentId,
            locale: 'en',
            data: { body: `${doc.body}\n\nEdited by instance A.` },
          });
          await documents.publish({ documentId: doc.documentId, locale: 'en' });
        }),
      );
      await waitFor('published', output);
      // Let several ticks pass on both instances
      await new Promise((r) => setTimeout(r, TICK_SECONDS * 4 * 1000));
      const exited = new Promise((r) => b.once('exit', r));
      b.stdin.write('stop\n');
      await exited;
      const ticksB = Number(/ticks (\d+)/.exec(output.join(''))?.[1] ?? 0);
      expect(ticksB).toBeGreaterThan(0);
      expect(a.strapi.plugin('sitemap-ai').service('scheduler').ticks()).toBeGreaterThan(0);

      // Then snapshots are contiguous, at most one per tick
      const snapshots = (
        await a.strapi.plugin('sitemap-ai').service('manifest').recentSnapshots(100)
      ).filter((s: { seq: number }) => s.seq > start.seq);
      expect(snapshots.length).toBeGreaterThan(0);
      const seqs = snapshots
        .map((s: { seq: number }) => s.seq)
        .sort((x: number, y: number) => x - y);
      expect(seqs).toEqual(seqs.map((_: number, i: number) => start.seq + 1 + i));
      const ticks = snapshots.map((s: { builtAt: string }) =>
        Math.floor(Date.parse(s.builtAt) / 1000 / TICK_SECONDS),
      );
      expect(new Set(ticks).size).toBe(ticks.length);

      // And every publish of both instances is in the manifest, with exactly one changelog entry per version
      const rows = await changelogRows(a);
      const keys = rows.map((r) => `${r.item_id}@${r.version}@${r.kind}`);
      expect(new Set(keys).size).toBe(keys.length);
      const { items } = await crawl(a.http, { limit: '1000' });
      for (const [slug, by] of [
        ['geo-index', 'A'],
        ['measuring-ai-crawler-ingest', 'A'],
        ['tdm-licensing', 'B'],
        ['stability-scores-explained', 'B'],
      ]) {
        const page = items.find((i) => i.id === `article:${slug}:en`)!;
        expect(page.version, slug).toBe('v2.0');
        const content = await a.http.get(new URL(page.content_url).pathname).buffer(true);
        expect(content.text).toContain(`Edited by instance ${by}.`);
        expect(rows.filter((r) => r.item_id === page.id && r.version === 'v2.0')).toHaveLength(1);
      }
    });

    it('gives the build lock to one owner at a time, and to another once it expires', async () => {
      const locks = createLockRepository({ strapi: a.strapi });
      const now = Date.now();
      const results = await Promise.all(
        ['x', 'y', 'z'].map((owner) => locks.acquire('test-lock', owner, 60_000, now)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const holder = ['x', 'y', 'z'][results.indexOf(true)]!;
      const other = holder === 'x' ? 'y' : 'x';
      expect(await locks.acquire('test-lock', other, 60_000, now + 1000)).toBe(false);
      expect(await locks.acquire('test-lock', holder, 60_000, now + 1000)).toBe(true);
      // A crashed holder never releases: after the expiry another owner takes it
      expect(await locks.acquire('test-lock', other, 60_000, now + 120_000)).toBe(true);
      await locks.release('test-lock', other);
      expect(await locks.acquire('test-lock', holder, 60_000, now + 121_000)).toBe(true);
    });

    it('loses no publish made on one instance while the other re-compares the whole site', async () => {
      const documents = a.strapi.documents('api::article.article' as never) as unknown as {
        create(p: object): Promise<{ documentId: string }>;
        publish(p: object): Promise<unknown>;
      };
      const builder = a.strapi.plugin('sitemap-ai').service('snapshot-builder');
      // Given a site of 100 more articles, so that re-comparing it takes a while
      for (let n = 1; n <= 100; n += 1) {
        const doc = await documents.create({
          locale: 'en',
          data: {
            title: `Bulk article ${n}`,
            slug: `bulk-${n}`,
            body: `## Part one\n\nFirst part of bulk article ${n}.\n\n## Part two\n\nSecond part.`,
          },
        });
        await documents.publish({ documentId: doc.documentId, locale: 'en' });
      }
      await builder.rebuild({ trigger: 'test' });
      // (a B of this test's own: the first test stops its B)
      const outputB: string[] = [];
      const instanceB = spawnB(outputB);
      await waitFor('ready', outputB);

      // When instance A re-compares every entry (what a first build or a settings change does),
      // and B publishes two edits and records them after A has read its first page of articles
      // and before A compares it: A's re-compare is held there by a document middleware of this
      // test, so the interleaving is the same on every run.
      const { holding, release } = holdArticleRead(
        a,
        (params) => params.status === 'published' && params.sort === 'documentId:asc',
      );
      const full = builder.rebuild({ trigger: 'test', full: true }) as Promise<{
        failures: unknown[];
      }>;
      await holding;
      instanceB.stdin.write('go during-recompare\n');
      await waitFor('published during-recompare', outputB);
      // (B records its publishes within a second; the marks are gone once it has)
      await untilMarksAtMost(a, 0);
      release();
      const result = await full;
      expect(result.failures).toEqual([]);

      // Then, once the schedules have run, both edits are in the manifest, each once in the
      // changelog, and nothing is left marked
      const pages = ['tdm-licensing', 'stability-scores-explained'].map(
        (slug) => `article:${slug}:en`,
      );
      const contents = await servedOnceRecorded(a, pages, 'B (during-recompare)');
      for (const content of contents)
        expect(content).toContain('Edited by instance B (during-recompare).');
      const rows = await changelogRows(a);
      const keys = rows.map((r) => `${r.item_id}@${r.version}@${r.kind}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(await marks(a)).toBe(0);
    });

    it('loses no publish when both instances record edits of one document at once', async () => {
      const documents = a.strapi.documents('api::article.article' as never) as unknown as {
        findFirst(p: object): Promise<{ documentId: string; body: string }>;
        update(p: object): Promise<unknown>;
        publish(p: object): Promise<unknown>;
      };
      const tracker = a.strapi.plugin('sitemap-ai').service('tracker');
      const outputB: string[] = [];
      const instanceB = spawnB(outputB);
      await waitFor('ready', outputB);
      const slug = 'tdm-licensing';
      const doc = await documents.findFirst({ filters: { slug }, locale: 'en', status: 'draft' });
      // A's recording of its own publish is held by a document middleware of this test once it
      // has read the published entry, until B has published an edit of the same document on top
      // of A's and recorded it: the same interleaving on every run.
      const { holding, release } = holdArticleRead(
        a,
        (params) =>
          params.status === 'published' &&
          params.populate !== undefined &&
          params.filters?.documentId?.$in?.includes(doc.documentId) === true,
      );

      // When A publishes an edit, and B publishes one on top of it while A records A's
      await documents.update({
        documentId: doc.documentId,
        locale: 'en',
        data: { body: `${doc.body}\n\nEdited by instance A (same-document).` },
      });
      await documents.publish({ documentId: doc.documentId, locale: 'en' });
      await holding;
      instanceB.stdin.write('go same-document\n');
      await waitFor('published same-document', outputB);
      // (B's two marks are gone once it has recorded its publishes; A's is still held)
      await untilMarksAtMost(a, 1);
      release();
      await tracker.flush();

      // Then, once the schedules have run, the manifest serves B's publish, which holds both
      // edits, and nothing is left marked
      const [content] = await servedOnceRecorded(a, [`article:${slug}:en`], 'B (same-document)');
      expect(content).toContain('Edited by instance A (same-document).');
      expect(content).toContain('Edited by instance B (same-document).');
      const rows = await changelogRows(a);
      const keys = rows.map((r) => `${r.item_id}@${r.version}@${r.kind}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(await marks(a)).toBe(0);
    });
  },
);
