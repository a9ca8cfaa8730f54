import { statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../helpers/manifest';
import { bootPlayground, testDatabases, type TestApp } from '../helpers/strapi';

const SECONDS = Number(process.env.SITEMAP_AI_SOAK_SECONDS ?? 150);
const ARTICLE = 'api::article.article';
const KEEP = 3;
const TABLES = {
  snapshots: 'plugin::sitemap-ai.snapshot',
  itemVersions: 'plugin::sitemap-ai.item-version',
  states: 'plugin::sitemap-ai.fragment-state',
  changelog: 'plugin::sitemap-ai.changelog-entry',
  dirtyMarks: 'plugin::sitemap-ai.dirty-mark',
  locks: 'plugin::sitemap-ai.lock',
  rateCounters: 'plugin::sitemap-ai.rate-counter',
  accessLog: 'plugin::sitemap-ai.access-log-entry',
  webhookDeliveries: 'plugin::sitemap-ai.webhook-delivery',
} as const;
type Table = keyof typeof TABLES;

interface Sample {
  at: number;
  rssMb: number;
  heapMb: number;
  dbMb: number;
  served: number;
  changelogMaxId: number;
  rows: Record<Table, number>;
}

interface Documents {
  findFirst(p: object): Promise<{ documentId: string; body: string } | null>;
  findMany(p: object): Promise<{ documentId: string; slug: string; body: string }[]>;
  create(p: object): Promise<{ documentId: string }>;
  update(p: object): Promise<unknown>;
  publish(p: object): Promise<unknown>;
  delete(p: object): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const max = (xs: number[]) => Math.max(...xs);

/** A full garbage collection, without starting the test process with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Issue 9, a bounded soak: continuous publishes and deletions, rebuilds on the cron and agent
 * traffic at a fixed rate for SITEMAP_AI_SOAK_SECONDS (150 s). After warm-up (the first third)
 * memory and the plugin's tables stay flat — each table within the bound its retention rule
 * documents (README "Storage") — and no request gets a 5xx. Prints the figures.
 */
describe.runIf(testDatabases().includes('sqlite'))('soak on sqlite', () => {
  let app: TestApp;
  const documents = () => app.strapi.documents(ARTICLE as never) as unknown as Documents;
  const plugin = () => app.strapi.plugin('sitemap-ai');

  beforeAll(async () => {
    app = await bootPlayground('sqlite', {
      env: {
        SITEMAP_AI_SCHEDULE: 'true',
        SITEMAP_AI_CRON: '*/2 * * * * *',
        SITEMAP_AI_SNAPSHOT_RETENTION: '3',
        SITEMAP_AI_SNAPSHOT_RETENTION_HOURS: '0',
        SITEMAP_AI_CHANGELOG_DAYS: '0',
        SITEMAP_AI_CHANGELOG_KEEP: String(KEEP),
        SITEMAP_AI_CHANGELOG_COLLECT_MINUTES: '1',
      },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  async function sample(): Promise<Sample> {
    const rows = {} as Record<Table, number>;
    for (const [name, uid] of Object.entries(TABLES) as [Table, string][])
      rows[name] = Number(await app.strapi.db.query(uid).count({}));
    const latest = await plugin().service('manifest').current();
    const last = (await app.strapi.db
      .query(TABLES.changelog)
      .findOne({ orderBy: { id: 'desc' }, select: ['id'] })) as { id: number } | null;
    const file = app.database.env.DATABASE_FILENAME!;
    const size = (suffix: string) => {
      try {
        return statSync(`${file}${suffix}`).size;
      } catch {
        return 0;
      }
    };
    // Retained memory: the heap right after a full collection (the peaks only say when V8 chose
    // to collect).
    collectGarbage();
    const memory = process.memoryUsage();
    return {
      at: Date.now(),
      rssMb: memory.rss / 2 ** 20,
      heapMb: memory.heapUsed / 2 ** 20,
      dbMb: (size('') + size('-wal')) / 2 ** 20,
      served: Number(latest?.itemCount ?? 0),
      changelogMaxId: Number(last?.id ?? 0),
      rows,
    };
  }

  it(
    `stays flat for ${SECONDS} s of publishes, deletions, cron rebuilds and agent traffic`,
    async () => {
      const originals = (
        await documents().findMany({ locale: 'en', status: 'draft', limit: 8 })
      ).map((d) => ({ documentId: d.documentId, body: d.body }));
      expect(originals.length).toBeGreaterThan(3);
      const deadline = Date.now() + SECONDS * 1000;
      const counts = { publishes: 0, deletions: 0, requests: 0 };
      const statuses = new Map<number, number>();
      const samples: Sample[] = [];

      const publisher = async () => {
        for (let n = 0; Date.now() < deadline; n += 1) {
          const doc = originals[n % originals.length]!;
          await documents().update({
            documentId: doc.documentId,
            locale: 'en',
            data: { body: `${doc.body}\n\nSoak edit ${n}.` },
          });
          await documents().publish({ documentId: doc.documentId, locale: 'en' });
          counts.publishes += 1;
          await sleep(300);
        }
      };

      const churn = async () => {
        const live: string[] = [];
        for (let n = 0; Date.now() < deadline; n += 1) {
          const created = await documents().create({
            locale: 'en',
            data: {
              title: `Soak page ${n}`,
              slug: `soak-page-${n}`,
              body: `## First part\n\nText of soak page ${n}.\n\n## Second part\n\nMore text ${n}.`,
            },
          });
          await documents().publish({ documentId: created.documentId, locale: 'en' });
          counts.publishes += 1;
          live.push(created.documentId);
          if (live.length > 3) {
            await documents().delete({ documentId: live.shift()!, locale: '*' });
            counts.deletions += 1;
          }
          await sleep(3000);
        }
      };

      const agent = async () => {
        let ids: string[] = [];
        let snapshot = 1;
        for (let n = 0; Date.now() < deadline; n += 1) {
          const id = ids.length > 0 ? ids[n % ids.length]! : 'article:geo-index:en';
          const path = [
            `${API}/manifest?limit=100`,
            `${API}/fragments/${id}`,
            `${API}/fragments/${id}/content`,
            `${API}/fragments/${id}/changelog`,
            `${API}/delta?since=${Math.max(1, snapshot - 1)}`,
          ][n % 5]!;
          const res = await app.http.get(path);
          counts.requests += 1;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (n % 5 === 0 && res.status === 200) {
            ids = (res.body.items as { id: string }[]).map((i) => i.id);
            snapshot = Number(res.body.snapshot.id);
          }
          await sleep(50);
        }
      };

      const sampler = async () => {
        while (Date.now() < deadline) {
          samples.push(await sample());
          await sleep(5000);
        }
      };

      await Promise.all([publisher(), churn(), agent(), sampler()]);
      const scheduler = plugin().service('scheduler');
      const ticks = scheduler.ticks() as number;
      await scheduler.stop();

      // After the load: one last build and collection, then the documented steady state
      await plugin().service('snapshot-builder').rebuild({ trigger: 'test' });
      await plugin().service('snapshot-builder').collectChangelog();
      await plugin().service('access-log').flush();
      const end = await sample();

      const warm = samples.filter((s) => s.at >= samples[0]!.at + (SECONDS * 1000) / 3);
      const middle = warm.slice(0, Math.floor(warm.length / 2));
      const last = warm.slice(Math.floor(warm.length / 2));
      const seconds = (end.at - samples[0]!.at) / 1000;
      const changelogRate = (end.changelogMaxId - samples[0]!.changelogMaxId) / seconds;
      const figures = {
        seconds: Math.round(seconds),
        publishes: counts.publishes,
        deletions: counts.deletions,
        requests: counts.requests,
        ticks,
        statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
        rssMb: samples.map((s) => Math.round(s.rssMb)),
        heapMb: samples.map((s) => Math.round(s.heapMb)),
        dbMb: samples.map((s) => Number(s.dbMb.toFixed(1))),
        served: samples.map((s) => s.served),
        rows: Object.fromEntries(
          Object.keys(TABLES).map((t) => [t, samples.map((s) => s.rows[t as Table])]),
        ),
        end: { served: end.served, rows: end.rows },
        changelogWritesPerSecond: Number(changelogRate.toFixed(1)),
      };
      console.log(`[soak sqlite] ${JSON.stringify(figures)}`);

      // No 5xx; the load was real
      expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
      expect(counts.requests).toBeGreaterThan(SECONDS * 5);
      expect(counts.publishes).toBeGreaterThan(SECONDS);
      expect(ticks).toBeGreaterThan(SECONDS / 4);

      // Memory: the heap retained after a full collection does not rise from the first half of
      // the warm period to the second (RSS is reported: V8 and SQLite keep pages they freed).
      expect(max(last.map((s) => s.heapMb)) - max(middle.map((s) => s.heapMb))).toBeLessThan(32);

      // Tables: within their retention rules throughout, and at rest exactly the steady state
      const servedMax = max(samples.map((s) => s.served));
      for (const s of warm) {
        expect(s.rows.snapshots).toBeLessThanOrEqual(3 + 1);
        expect(s.rows.rateCounters).toBeLessThanOrEqual(4);
        expect(s.rows.locks).toBeLessThanOrEqual(4);
        // What one collection interval (60 s) and a build can write, on top of KEEP per item
        expect(s.rows.changelog).toBeLessThanOrEqual(KEEP * servedMax + changelogRate * 75);
      }
      expect(max(last.map((s) => s.rows.itemVersions))).toBeLessThanOrEqual(
        max(middle.map((s) => s.rows.itemVersions)) * 1.15,
      );
      expect(max(last.map((s) => s.rows.states))).toBeLessThanOrEqual(
        max(middle.map((s) => s.rows.states)) * 1.15,
      );
      expect(end.rows.states).toBe(end.served);
      expect(end.rows.changelog).toBeLessThanOrEqual(KEEP * end.served);
      expect(end.rows.dirtyMarks).toBe(0);
      expect(end.rows.webhookDeliveries).toBe(0);
      // The access log grows with traffic (its retention is counted in days) and loses nothing
      expect(end.rows.accessLog).toBeGreaterThanOrEqual(counts.requests);
    },
    (SECONDS + 120) * 1000,
  );
});
